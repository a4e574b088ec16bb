// What the built mcpmux loads is what its mode needs: serving a client with no search,
// no code mode and no HTTP evaluates none of their packages, nor Ajv (the SDK's default
// validator, which mcpmux never validates through; scripts/build.js defers it). Each
// loaded dist/ file is named by a module hook, and its source map says which packages
// are in it.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { ROOT } from '../helpers/fixtures.js';
import { startMcpmux } from '../helpers/mcpmux-process.js';
import { killTaggedProcesses, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const hook = pathToFileURL(`${ROOT}/test/helpers/load-log.mjs`).href;
const env = { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${hook}` };

/** The packages in the dist/ files named so far on stderr, from each file's source map. */
function loadedPackages(stderr: string): Set<string> {
  const packages = new Set<string>();
  for (const [, url] of stderr.matchAll(/^module-load-log (\S+)$/gm)) {
    const map = JSON.parse(readFileSync(`${fileURLToPath(url!)}.map`, 'utf8')) as { sources: string[] };
    for (const source of map.sources) {
      // The package is named after the last node_modules/ (bundled SDK sources point into pnpm's tree).
      const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
      if (match) packages.add(match[1]!);
    }
  }
  return packages;
}

const LAZY = ['ajv', 'ajv-formats', 'minisearch', 'stemmer', 'esbuild', 'json-schema-to-typescript'];

t.test('serving with no children loads the SDK and nothing a mode loads on first use', async (t) => {
  const s = await startMcpmux([], undefined, env);
  t.teardown(() => s.client.close());
  await s.client.listTools();
  await s.json('list_servers');
  const loaded = loadedPackages(s.stderr());
  t.ok(loaded.has('@modelcontextprotocol/server'), 'the hook sees what is loaded');
  for (const name of LAZY) t.notOk(loaded.has(name), `${name} is not loaded`);
});

t.test('the first search loads the search index', async (t) => {
  const s = await startMcpmux(['--expose', 'search'], undefined, env);
  t.teardown(() => s.client.close());
  t.notOk(loadedPackages(s.stderr()).has('minisearch'), 'not before');
  await s.call('search_tools', { query: 'add a server' });
  // stderr and stdout are separate pipes: the line may be read just after the answer.
  t.ok(await waitFor(() => loadedPackages(s.stderr()).has('minisearch'), 5_000), 'after');
});

t.test("the SDK's default validator still validates when something uses it", async (t) => {
  for (const pkg of ['server', 'client']) {
    const sdk = (await import(`${ROOT}/dist/vendor/modelcontextprotocol-${pkg}.js`)) as {
      fromJsonSchema: (schema: object) => { '~standard': { validate: (v: unknown) => Promise<unknown> } };
    };
    const schema = sdk.fromJsonSchema({
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    });
    t.same(await schema['~standard'].validate({ n: 2 }), { value: { n: 2 } }, pkg);
    t.match(
      await schema['~standard'].validate({ n: 'x' }),
      { issues: [{ message: /must be integer/ }] },
      pkg,
    );
  }
});
