// mcpmux installed straight from git arrives as source (bin/mcpmux.js says why): its first run
// bundles src/ once. These start a copy of what npm installs (package.json's "files" without
// dist/, the checkout's node_modules beside it) as a client starts mcpmux, and, at the end,
// install the checkout's HEAD with npm itself.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/fixtures.js';
import { NOBODY, asRoot, initialize, manifest, sourceInstall, tempDir } from '../helpers/installed-copy.js';

const BUILDING = 'bundling src/ once';

t.test('npm prepares a git install of mcpmux in no way that npm before 12 breaks', async (t) => {
  // pacote (npm's fetcher) runs an install in the clone when one of these is present.
  const preparing = ['build', 'prepare', 'prepack', 'preinstall', 'install', 'postinstall'];
  t.same(
    Object.keys(manifest.scripts).filter((name) => preparing.includes(name)),
    [],
    'no script npm runs when it prepares a git dependency',
  );
  t.equal(manifest.workspaces, undefined);
  t.equal(manifest.bin.mcpmux, 'bin/mcpmux.js', 'the command is the launcher, which is in git');
});

t.test('the first run bundles src/ into dist/ beside it; the next one starts at once', async (t) => {
  const dir = sourceInstall(t);
  const first = await initialize(join(dir, 'bin/mcpmux.js'));
  t.equal(first.answer.result?.serverInfo?.name, 'mcpmux');
  t.match(first.stderr, `${BUILDING} into ${join(dir, 'dist')}`);
  t.ok(existsSync(join(dir, 'dist/main.js')));
  t.same(
    readdirSync(dir).filter((name) => name.startsWith('.dist-')),
    [],
    'no staging directory left behind',
  );
  const second = await initialize(join(dir, 'bin/mcpmux.js'));
  t.equal(second.answer.result?.serverInfo?.name, 'mcpmux');
  t.notMatch(second.stderr, BUILDING);
});

t.test('a first run removes what a first run killed mid-build left, once it is long dead', async (t) => {
  const dir = sourceInstall(t);
  mkdirSync(join(dir, '.dist-killed'));
  const longAgo = new Date(Date.now() - 3_600_000);
  utimesSync(join(dir, '.dist-killed'), longAgo, longAgo);
  mkdirSync(join(dir, '.dist-building'));
  const started = await initialize(join(dir, 'bin/mcpmux.js'));
  t.equal(started.answer.result?.serverInfo?.name, 'mcpmux');
  t.same(
    readdirSync(dir).filter((name) => name.startsWith('.dist-')),
    ['.dist-building'],
    "a build under way (another mcpmux's) is left alone",
  );
});

t.test('two first runs at once both answer and leave one build', async (t) => {
  const dir = sourceInstall(t);
  const both = await Promise.all([
    initialize(join(dir, 'bin/mcpmux.js')),
    initialize(join(dir, 'bin/mcpmux.js')),
  ]);
  for (const started of both) t.equal(started.answer.result?.serverInfo?.name, 'mcpmux');
  t.ok(existsSync(join(dir, 'dist/main.js')));
  t.same(
    readdirSync(dir).filter((name) => name.startsWith('.dist-')),
    [],
  );
});

t.test("an install the user cannot write builds in the user's cache", async (t) => {
  const dir = sourceInstall(t);
  const cache = tempDir(t, 'mcpmux-cache-');
  // Root writes anywhere: the install is then run as nobody, as after `sudo npm install -g`.
  if (asRoot) spawnSync('chown', [String(NOBODY), cache]);
  spawnSync('chmod', ['-R', 'a-w', dir]);
  const user = asRoot ? { uid: NOBODY } : {};
  const first = await initialize(join(dir, 'bin/mcpmux.js'), { env: { XDG_CACHE_HOME: cache }, ...user });
  t.equal(first.answer.result?.serverInfo?.name, 'mcpmux');
  t.match(first.stderr, `${BUILDING} into ${join(cache, 'mcpmux')}`);
  t.notOk(existsSync(join(dir, 'dist')), 'nothing written in the install');
  const second = await initialize(join(dir, 'bin/mcpmux.js'), { env: { XDG_CACHE_HOME: cache }, ...user });
  t.equal(second.answer.result?.serverInfo?.name, 'mcpmux');
  t.notMatch(second.stderr, BUILDING, 'the cached build is used');
});

t.test("a build in the cache clears the cache's builds of installs that are gone", async (t) => {
  const dir = sourceInstall(t);
  const cache = tempDir(t, 'mcpmux-cache-');
  const builds = join(cache, 'mcpmux');
  const longAgo = new Date(Date.now() - 3_600_000);
  /** A build of the cache's shape, its package.json linking to `install`'s. */
  const build = (key: string, install: string, when = longAgo) => {
    mkdirSync(join(builds, key, 'dist'), { recursive: true });
    symlinkSync(join(install, 'package.json'), join(builds, key, 'package.json'));
    utimesSync(join(builds, key), when, when);
  };
  build('0000000000000000', '/nonexistent/mcpmux'); // uninstalled
  build('1111111111111111', dir); // this install before a reinstall: its key is not this one's
  build('2222222222222222', '/nonexistent/other', new Date()); // made now: maybe a first run under way
  mkdirSync(join(builds, 'notes'));
  utimesSync(join(builds, 'notes'), longAgo, longAgo); // not a build
  if (asRoot) spawnSync('chown', ['-R', String(NOBODY), cache]);
  spawnSync('chmod', ['-R', 'a-w', dir]);
  const started = await initialize(join(dir, 'bin/mcpmux.js'), {
    env: { XDG_CACHE_HOME: cache },
    ...(asRoot ? { uid: NOBODY } : {}),
  });
  t.equal(started.answer.result?.serverInfo?.name, 'mcpmux');
  const left = readdirSync(builds).sort();
  t.equal(left.length, 3, `left: ${left.join(', ')}`);
  t.ok(
    left.includes('2222222222222222') && left.includes('notes'),
    'a young build and what is not a build stay',
  );
  t.notOk(left.includes('0000000000000000') || left.includes('1111111111111111'), 'the orphans are gone');
});

t.test('with nowhere to write, the first run says what to do', async (t) => {
  const dir = sourceInstall(t);
  spawnSync('chmod', ['-R', 'a-w', dir]);
  const cache = tempDir(t, 'mcpmux-cache-');
  spawnSync('chmod', ['a-w', cache]);
  const user = asRoot ? { uid: NOBODY } : {};
  await t.rejects(
    initialize(join(dir, 'bin/mcpmux.js'), { env: { XDG_CACHE_HOME: join(cache, 'inner') }, ...user }),
    /could not build this copy of mcpmux: .*set XDG_CACHE_HOME to a directory you can write/,
  );
});

t.test('npm install -g from a git URL gives a working mcpmux command', async (t) => {
  // The checkout's HEAD as npm fetches it (git+file: clones the repository: what is committed).
  const prefix = tempDir(t, 'mcpmux-global-');
  const install = spawnSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', `git+file://${ROOT}`],
    { encoding: 'utf8' },
  );
  t.equal(install.status, 0, 'npm install -g succeeds', { stderr: install.stderr.slice(-3000) });
  const started = await initialize(join(prefix, 'bin/mcpmux'));
  t.equal(started.answer.result?.serverInfo?.name, 'mcpmux');
  t.match(started.stderr, `${BUILDING} into ${join(prefix, 'lib/node_modules/mcpmux/dist')}`);
});
