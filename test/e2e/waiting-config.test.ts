// A config's server whose values are not there (an unset variable) waits for them, and the
// others start: it is listed as needs_config, naming each variable and where to set it, and is
// never spawned; reload_server tries the config again, and with --watch-config an edit that
// gives the value starts it. inspect says the same and exits 1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { DIST_MAIN, fixture } from '../helpers/fixtures.js';
import { serverStatus, startMcpmux, text } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, taggedEnv, waitFor } from '../helpers/processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-waiting-'));
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

const TOKEN = 'MCPMUX_TEST_SURELY_UNSET_TOKEN';
/** The echo fixture, as a server that needs a token: its env refers to one. */
const needsToken = (value: string) => ({ ...fixture('echo-v1'), env: { ECHO_TOKEN: value } });
const writeConfig = (path: string, gh: Record<string, unknown>) =>
  writeFileSync(path, JSON.stringify({ mcpServers: { memory: fixture('echo-v2'), gh } }));

t.test(
  'an unset variable: that server waits, the others start; reload_server tries the config again',
  async (t) => {
    const config = join(scratch, 'servers.json');
    writeConfig(config, needsToken(`\${${TOKEN}}`));
    const s = await startMcpmux(['--config', config]);
    t.ok(await waitFor(async () => (await serverStatus(s, 'memory'))?.status === 'running', 15_000));
    const waiting = await serverStatus(s, 'gh');
    t.match(waiting, {
      status: 'needs_config',
      missing: [TOKEN],
      last_error: new RegExp(
        `^server 'gh' waits for its configuration: env\\.ECHO_TOKEN: \\$\\{${TOKEN}\\} is not set in mcpmux's environment\\. ` +
          `To start it, write the value into the config .* reload_server \\{"name":"gh"\\}.*or set ${TOKEN} where mcpmux ` +
          `is started \\(in a client, the "env" of its mcpmux entry\\)`,
      ),
    });
    t.equal(waiting.pid, undefined, 'nothing was spawned for it');
    t.match(s.stderr(), `server 'gh' waits for its configuration`);
    t.notMatch(s.stderr(), /server 'gh' failed to start/);
    t.match(text(await s.call('memory__echo', { message: 'up' })), 'up', 'the other server answers');

    const again = await s.call('reload_server', { name: 'gh' });
    t.ok(again.isError, 'still waiting');
    t.match(text(again), /^server .gh. waits for its configuration: [\s\S]* \[NEEDS_CONFIG\]$/);

    // The person writes the value into the config: reload_server starts it.
    writeConfig(config, needsToken('a-token'));
    const started = (await s.json('reload_server', { name: 'gh' })) as {
      server: { status: string };
      tools: { name: string }[];
      changes: { added: string[] };
    };
    t.equal(started.server.status, 'running');
    t.ok(started.changes.added.includes('gh__echo'), 'its tools are added');
    t.match(text(await s.call('gh__echo', { message: 'now' })), 'now');
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test('--watch-config: the edit that gives the value starts the waiting server', async (t) => {
  const config = join(scratch, 'watched.json');
  writeConfig(config, needsToken(`\${${TOKEN}}`));
  const s = await startMcpmux(['--config', config, '--watch-config']);
  t.ok(await waitFor(async () => (await serverStatus(s, 'gh'))?.status === 'needs_config', 15_000));
  writeConfig(config, needsToken(`\${${TOKEN}:-from-the-default}`));
  t.ok(
    await waitFor(async () => (await serverStatus(s, 'gh'))?.status === 'running', 15_000),
    'started by the edit',
  );
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
});

t.test('inspect names the waiting server and exits 1; the others are inspected', async (t) => {
  const config = join(scratch, 'inspected.json');
  writeConfig(config, needsToken(`\${${TOKEN}}`));
  const run = spawnSync(process.execPath, [DIST_MAIN, 'inspect', '--config', config], {
    env: taggedEnv(),
    encoding: 'utf8',
  });
  t.equal(run.status, 1);
  t.match(
    run.stderr,
    `server 'gh' failed to start: server 'gh' waits for its configuration: env.ECHO_TOKEN: \${${TOKEN}}`,
  );
  t.match(run.stdout, /memory/, 'the other server is inspected');
  await assertNoLeaks(t);
});
