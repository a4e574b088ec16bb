// The server author's dev loop: watched sources are rebuilt and the server reloaded with its
// tool diff reported; a failed build keeps the old process serving and says why;
// reload_server with build does the same on demand; a removal stops a build under way.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { fixture, fixturePath, fixtureSpec } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { assertNoLeaks, waitFor } from '../helpers/processes.js';

/** A server author's project: src/tools.json and its build, both listing `tools`. */
function project(t: Test, tools: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-dev-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'build'));
  writeFileSync(join(dir, 'src/tools.json'), JSON.stringify(tools));
  writeFileSync(join(dir, 'build/tools.json'), JSON.stringify(tools));
  return dir;
}

t.test(
  'edit → build → reload with a diff; a broken edit keeps the old process; reload_server {build}',
  async (t) => {
    const dir = project(t, ['alpha']);
    const source = (value: unknown) => writeFileSync(join(dir, 'src/tools.json'), JSON.stringify(value));

    const h = await startHarness(t);
    const status = async () => (await h.callJson('list_servers')).servers[0];
    await h.callJson('add_server', {
      name: 'dev',
      ...fixture('tools-from-file'),
      cwd: dir,
      watch: {
        paths: ['src/**/*.json'],
        debounce_ms: 100,
        build: [process.execPath, fixturePath('build-tools')],
      },
    });
    t.same(await h.toolNames().then((n) => n.filter((x) => x.startsWith('dev__'))), ['dev__alpha']);

    source(['alpha', 'beta']);
    t.ok(
      await waitFor(async () => (await h.toolNames()).includes('dev__beta'), 20_000),
      'the edit was built and the server reloaded',
    );
    t.ok(
      await waitFor(() =>
        h.logs.some((l) =>
          /server 'dev' reloaded after changes to src\/tools\.json: tools added \[beta\], removed \[\], changed \[\]/.test(
            l,
          ),
        ),
      ),
      'the diff is logged',
    );
    t.match(textOf(await h.call('dev__beta')), 'beta');
    const pid = (await status()).pid;

    source({ not: 'a list' });
    t.ok(
      await waitFor(
        () =>
          h.logs.some((l) =>
            /server 'dev' not reloaded after changes to src\/tools\.json: build of server 'dev' .* failed \(exit 1\); the running process is kept/.test(
              l,
            ),
          ),
        20_000,
      ),
    );
    const failed = await status();
    t.equal(failed.pid, pid, 'the old process still serves');
    t.match(failed.last_build, {
      ok: false,
      output_tail: ['building tools…', 'src/tools.json: error TS1005: a list of tool names was expected'],
    });
    t.match(textOf(await h.call('dev__beta')), 'beta');

    const onDemand = await h.call('reload_server', { name: 'dev', build: true });
    t.ok(onDemand.isError);
    t.match(textOf(onDemand), /error TS1005[\s\S]*\[BUILD_FAILED\]/);
    t.equal((await status()).pid, pid);

    source(['beta', 'gamma']);
    // The watcher may get there first; either way a build+reload brings gamma.
    const reloaded = await h.callJson('reload_server', { name: 'dev', build: true });
    t.ok(reloaded.tools.some((x: { name: string }) => x.name === 'dev__gamma'));
    t.equal((await status()).last_build.ok, true);
    t.ok(await waitFor(async () => !(await h.toolNames()).includes('dev__alpha')));
    await h.callJson('remove_server', { name: 'dev' });
    await h.close();
  },
);

t.test(
  'a watched change before the server ever ran is said as a start, not as every tool added',
  async (t) => {
    const dir = project(t, ['alpha']);
    const h = await startHarness(t);
    // A configured server is spawned at once but spoken to once the client has opened: that has not happened yet.
    let clientOpened!: () => void;
    const opened = new Promise<void>((resolve) => (clientOpened = resolve));
    const adding = h.children.add(
      'early',
      {
        ...fixtureSpec('tools-from-file'),
        cwd: dir,
        watch: { paths: ['src/**/*.json'], debounceMs: 100 },
      },
      { handshakeAfter: opened },
    );
    writeFileSync(join(dir, 'build/tools.json'), JSON.stringify(['alpha', 'beta']));
    writeFileSync(join(dir, 'src/tools.json'), JSON.stringify(['alpha', 'beta']));
    t.ok(
      await waitFor(
        () =>
          h.logs.some((l) =>
            /server 'early' started after changes to src\/tools\.json \(before it had run\): tools \[alpha, beta\]/.test(
              l,
            ),
          ),
        20_000,
      ),
      'logged as a start with its tools',
    );
    t.notOk(
      h.logs.some((l) => /server 'early' reloaded after changes/.test(l)),
      'not as a reload that added them',
    );
    clientOpened();
    const started = await adding;
    t.same(
      started.tools.map((tool) => tool.name),
      ['alpha', 'beta'],
    );
    await h.close();
    await assertNoLeaks(t);
  },
);

t.test('reload_server {build} of a server without a build command says how to give one', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'e', ...fixture('echo-v1') });
  t.match(
    textOf(await h.call('reload_server', { name: 'e', build: true })),
    /server 'e' has no build command; give watch\.build/,
  );
  await h.close();
});

t.test(
  'remove_server during a build stops the build, and the reload waiting on it answers at once',
  async (t) => {
    const dir = project(t, ['alpha']);
    const building = join(dir, 'building');
    // A build that says it began, then takes a minute.
    const slowBuild = [
      process.execPath,
      '-e',
      `require('fs').writeFileSync('building', ''); setTimeout(() => {}, 60000)`,
    ];
    const h = await startHarness(t);
    const add = () =>
      h.callJson('add_server', {
        name: 'dev',
        ...fixture('tools-from-file'),
        cwd: dir,
        watch: { paths: ['src/**/*.json'], debounce_ms: 100, build: slowBuild },
      });

    await add();
    const reloading = h.call('reload_server', { name: 'dev', build: true });
    t.ok(await waitFor(() => existsSync(building)), 'the build runs');
    await h.callJson('remove_server', { name: 'dev' });
    t.match(textOf(await reloading), /server 'dev' was removed while it was reloading \[SERVER_STOPPED\]/);
    await assertNoLeaks(t);

    // The same when the watcher started the build: nothing left, and no error logged for it.
    rmSync(building);
    await add();
    writeFileSync(join(dir, 'src/tools.json'), '["alpha", "beta"]');
    t.ok(await waitFor(() => existsSync(building)), 'the watched edit starts a build');
    await h.callJson('remove_server', { name: 'dev' });
    await assertNoLeaks(t);
    t.notOk(
      h.logs.some((l) => /not reloaded after changes/.test(l)),
      'a removal during a rebuild is not logged as a failed rebuild',
    );
    await h.close();
  },
);
