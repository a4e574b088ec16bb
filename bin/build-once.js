// @ts-check
// The first run of mcpmux installed from git: bundle src/ into dist/ next to it, or, where
// the install is not the user's to write (`sudo npm install -g`, a read-only image), into
// the user's cache. Seconds at most, once per installed copy; a second process starting at
// the same time builds its own copy and keeps the first one to land (rename is atomic).
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/** The URL of a built dist/main.js, building it first. */
export async function builtMain() {
  const home = (await buildIn(ROOT)) ?? (await buildIn(cacheHome(), linkPackage, removeOrphanedBuilds));
  if (home === undefined)
    throw new Error(
      `mcpmux was installed from source and could not write its build in ${ROOT} or in ${cacheHome()}: ` +
        'run it once as the user who installed it, or set XDG_CACHE_HOME to a directory you can write',
    );
  return pathToFileURL(join(home, 'dist', 'main.js')).href;
}

/**
 * Builds `home`/dist unless it is there; undefined when `home` cannot be written. `prepare`
 * readies a new `home` (the cache's needs the package's files beside its dist); `built`
 * runs after a build.
 * @param {string} home
 * @param {(home: string) => void} [prepare]
 * @param {(home: string) => void} [built]
 */
async function buildIn(home, prepare, built) {
  const dist = join(home, 'dist');
  if (existsSync(join(dist, 'main.js'))) return home;
  const esbuild = await import('esbuild');
  let staging;
  try {
    mkdirSync(home, { recursive: true });
    prepare?.(home);
    removeAbandoned(home);
    staging = mkdtempSync(join(home, '.dist-'));
  } catch (error) {
    if (UNWRITABLE.has(/** @type {NodeJS.ErrnoException} */ (error).code ?? '')) return undefined;
    throw error;
  }
  const started = Date.now();
  process.stderr.write(`mcpmux: no build of this copy yet; bundling src/ once into ${dist}\n`);
  try {
    const { bundle } = await import('../scripts/build.js');
    await bundle(staging);
    renameSync(staging, dist);
    process.stderr.write(`mcpmux: built in ${Date.now() - started} ms\n`);
    built?.(home);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another mcpmux starting at the same time built it first.
    if (!existsSync(join(dist, 'main.js'))) throw error;
  } finally {
    // esbuild's service process would otherwise live as long as mcpmux (code mode starts it again).
    await esbuild.stop();
  }
  return home;
}

/** Staging directories of first runs killed mid-build: a build takes a second, so ten minutes is long dead. */
function removeAbandoned(/** @type {string} */ home) {
  for (const name of readdirSync(home)) {
    const path = join(home, name);
    if (name.startsWith('.dist-') && Date.now() - statSync(path).mtimeMs > 600_000) removeQuietly(path);
  }
}

/** One directory per installed copy (a reinstall makes a new src/), under the user's cache. */
function cacheHome() {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcpmux', cacheKey(ROOT));
}

/** The cache's name for the install at `root` as it is now. */
function cacheKey(/** @type {string} */ root) {
  const src = statSync(join(root, 'src'));
  return createHash('sha256').update(`${root}\0${src.ino}\0${src.mtimeMs}`).digest('hex').slice(0, 16);
}

/**
 * A build away from the package finds what the package has as dist/'s parent would: its
 * package.json (read for the version) and its dependencies (the packages dist/ loads at run
 * time), linked from where Node resolves them for the package.
 * @param {string} home
 */
function linkPackage(home) {
  linkOnce(join(ROOT, 'package.json'), join(home, 'package.json'));
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const names = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies });
  const lookup = createRequire(join(ROOT, 'package.json')).resolve.paths;
  for (const name of names) {
    const found = (lookup(name) ?? []).map((dir) => join(dir, name)).find((dir) => existsSync(dir));
    if (found === undefined) continue;
    mkdirSync(dirname(join(home, 'node_modules', name)), { recursive: true });
    linkOnce(found, join(home, 'node_modules', name));
  }
}

/**
 * The cache's builds of installs that are gone (uninstalled, or replaced by a reinstall): each
 * one's package.json links to its install's, whose key is no longer the build's. One made in
 * the last ten minutes may be another mcpmux's first run under way, and is left.
 * @param {string} home
 */
function removeOrphanedBuilds(home) {
  const builds = dirname(home);
  for (const key of readdirSync(builds)) {
    const other = join(builds, key);
    let install;
    try {
      if (other === home || Date.now() - statSync(other).mtimeMs < 600_000) continue;
      install = dirname(readlinkSync(join(other, 'package.json')));
    } catch {
      continue; // gone meanwhile, or not one of these builds
    }
    const now = existsSync(join(install, 'src')) ? cacheKey(install) : undefined;
    if (now !== key) removeQuietly(other);
  }
}

/** Clearing up is worth no failed start: what cannot be removed stays. */
function removeQuietly(/** @type {string} */ path) {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {}
}

function linkOnce(/** @type {string} */ target, /** @type {string} */ path) {
  try {
    symlinkSync(target, path);
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
  }
}
