// @ts-check
// The build's second half (tsc type-checks first): esbuild bundles src/ into dist/ as ES
// modules. Loading ~200 small modules (zod alone is 97 files, then the SDK and mcpmux's own
// 72) was most of mcpmux's start-up before it could spawn its configured servers; a few
// dozen files load in a fraction of that time and hold less memory.
//
// Two bundles, so that no file mixes mcpmux's code with a dependency's: mcpmux's own
// (dist/*.js, split where src imports lazily) imports each package from its bundle in
// dist/vendor/. Source maps then name only src/ files for the one and only node_modules for
// the other, which is what coverage of the built CLI run by the tests needs. What code mode
// alone loads stays a package (esbuild's native binary, QuickJS's wasm, prettier under
// json-schema-to-typescript): its chunk is loaded on first use.
//
// Run as a script it builds ./dist; bin/build-once.js calls `bundle` where an install from
// git must put its first build.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// OpenTelemetry's SDK is loaded only when an OTEL_* variable is set, from node_modules as installed.
const UNBUNDLED = [
  'esbuild',
  '@jitl/*',
  'quickjs-emscripten-core',
  'json-schema-to-typescript',
  '@opentelemetry/*',
  // Found beside its own files (its seccomp helper), loaded when a server first asks for a sandbox.
  '@anthropic-ai/sandbox-runtime',
  // Required by the sandbox's fetch preload on old Node lines only.
  'undici',
  // Loaded by a replica of a cluster (--redis) only; a CommonJS package whose named exports an ES bundle loses.
  '@redis/client',
];
const COMMON = /** @type {const} */ ({
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: UNBUNDLED,
  // CommonJS dependencies that require Node's built-ins need a require in an ES module.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  absWorkingDir: ROOT,
  sourcemap: 'linked',
  legalComments: 'eof',
  logLevel: 'warning',
});

/** A package path as a file name: @modelcontextprotocol/server/stdio → modelcontextprotocol-server-stdio. */
const vendorName = (/** @type {string} */ specifier) => specifier.replace(/^@/, '').replaceAll('/', '-');
const isUnbundled = (/** @type {string} */ specifier) =>
  UNBUNDLED.some((u) => (u.endsWith('/*') ? specifier.startsWith(u.slice(0, -1)) : specifier === u));

/** Bundles src/ into `outdir` (emptied first): mcpmux's code there, its packages in vendor/. */
export async function bundle(/** @type {string} */ outdir) {
  rmSync(outdir, { recursive: true, force: true });
  // mcpmux's own code; every package it imports becomes ./vendor/NAME.js.
  /** @type {Set<string>} */
  const packages = new Set();
  await build({
    ...COMMON,
    entryPoints: [
      // The executable, which loads main.ts once Node's compile cache is on.
      { in: join(ROOT, 'src/bin.ts'), out: 'main' },
      // The sandbox worker is started from its own file, next to the chunk that starts it.
      { in: join(ROOT, 'src/code/sandbox-worker.ts'), out: 'sandbox-worker' },
      // Preloaded into sandboxed Node servers, from its own file.
      { in: join(ROOT, 'src/sandbox/env-proxy-preload.ts'), out: 'env-proxy-preload' },
      // What bench/ measures, from the built code.
      { in: join(ROOT, 'src/internals.ts'), out: 'internals' },
    ],
    outdir,
    plugins: [
      {
        name: 'packages-from-vendor',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, ({ path }) => {
            if (path.startsWith('node:') || isUnbundled(path)) return undefined;
            packages.add(path);
            return { path: `./vendor/${vendorName(path)}.js`, external: true };
          });
        },
      },
    ],
  });

  // A package whose main file is a UMD build that requires its own files by computed paths,
  // which esbuild cannot follow: its ES module build is bundled instead.
  /** @type {Record<string, string>} */
  const ES_MODULE_BUILD = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };

  // The packages, each an entry of its own, their shared code in common chunks.
  await build({
    ...COMMON,
    entryPoints: [...packages].sort().map((specifier) => ({
      in: ES_MODULE_BUILD[specifier] ?? specifier,
      out: vendorName(specifier),
    })),
    outdir: join(outdir, 'vendor'),
    sourcesContent: false,
    plugins: [lazyValidatorShims(), englishOnlyZodLocales()],
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await bundle(join(ROOT, 'dist'));

/**
 * The SDK's `_shims` for Node export Ajv as the default JSON Schema validator of every
 * Client and Server, so importing either package evaluates all of Ajv and ajv-formats
 * (~1.7 MB of RSS, measured alone) although mcpmux never validates through them: its
 * requests to children go out with an unchecked result schema and it never calls
 * elicitInput. These shims export a validator that requires the SDK's own Ajv provider the
 * first time a schema is actually compiled, so nothing changes for a caller who does.
 */
function lazyValidatorShims() {
  const SHIM = /^@modelcontextprotocol\/(server|client)\/_shims$/;
  return {
    name: 'lazy-validator-shims',
    /** @param {import('esbuild').PluginBuild} build */
    setup(build) {
      build.onResolve({ filter: SHIM }, ({ path }) => ({ path, namespace: 'lazy-validator-shims' }));
      build.onLoad({ filter: /.*/, namespace: 'lazy-validator-shims' }, ({ path }) => {
        const pkg = path.replace(/\/_shims$/, '');
        const extra = pkg.endsWith('/server')
          ? "export { default as process } from 'node:process';"
          : // fetch's TypeError is never a CORS error outside a browser.
            'export const CORS_IS_POSSIBLE = false;';
        return {
          contents: `
import { createRequire } from 'node:module';
const requireAjvProvider = () => createRequire(import.meta.url)('${pkg}/validators/ajv');
export class DefaultJsonSchemaValidator {
  #validator;
  getValidator(schema) {
    this.#validator ??= new (requireAjvProvider().AjvJsonSchemaValidator)();
    return this.#validator.getValidator(schema);
  }
}
${extra}
`,
          loader: 'js',
          resolveDir: ROOT,
        };
      });
    },
  };
}

/**
 * zod exports its error messages in 64 languages as `z.locales`, and a bundle of the whole
 * package keeps them all: 360 of its 755 KB, ~11 ms of every start spent compiling them
 * (measured: 31 → 20.5 ms to import zod), and zod is loaded before mcpmux can spawn its
 * configured servers (their config is checked with it). Nothing in mcpmux or the SDK
 * switches language, so `locales` holds English, the default, alone.
 */
function englishOnlyZodLocales() {
  return {
    name: 'english-only-zod-locales',
    /** @param {import('esbuild').PluginBuild} build */
    setup(build) {
      build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ path, resolveDir, importer }) =>
        importer.includes(join('node_modules', 'zod'))
          ? { path: join(resolveDir, path), namespace: 'english-only-zod-locales' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'english-only-zod-locales' }, ({ path }) => ({
        contents: "export { default as en } from './en.js';",
        loader: 'js',
        resolveDir: dirname(path),
      }));
    },
  };
}
