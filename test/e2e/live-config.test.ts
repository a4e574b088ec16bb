// Live config: edits of the config file are applied by difference while the client stays
// connected (with --watch-config, or on SIGHUP); an unchanged server keeps its process, a
// broken edit keeps the running set, and servers added at run time are left alone.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { serverStatus, startMcpmux, type Session } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, matchLogged, waitFor } from '../helpers/processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-live-'));
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

const writeConfig = (path: string, servers: Record<string, unknown>) =>
  writeFileSync(path, JSON.stringify({ mcpServers: servers }));
const names = async (s: Session) =>
  ((await s.json('list_servers')).servers as { name: string }[]).map((x) => x.name).sort();
const runningPid = async (s: Session, name: string) => {
  const status = await serverStatus(s, name);
  return status?.status === 'running' ? (status.pid as number) : undefined;
};

t.test(
  '--watch-config: add, replace and remove by content; unchanged servers keep their process',
  async (t) => {
    const config = join(scratch, 'watched.json');
    writeConfig(config, { stay: fixture('echo-v1'), change: fixture('echo-v1') });
    const s = await startMcpmux(['--config', config, '--watch-config']);
    t.ok(
      await waitFor(
        async () =>
          (await runningPid(s, 'stay')) !== undefined && (await runningPid(s, 'change')) !== undefined,
        15_000,
      ),
    );
    const stayPid = await runningPid(s, 'stay');
    const changePid = await runningPid(s, 'change');
    await s.json('add_server', { name: 'mine', ...fixture('echo-v1') });

    writeConfig(config, {
      stay: fixture('echo-v1'),
      change: { ...fixture('echo-v1'), env: { MODE: 'two' } },
      fresh: fixture('echo-v2'),
    });
    t.ok(
      await waitFor(async () => (await runningPid(s, 'fresh')) !== undefined, 15_000),
      'a new entry is started',
    );
    t.ok(
      await waitFor(async () => ![undefined, changePid].includes(await runningPid(s, 'change')), 15_000),
      'a changed entry is replaced',
    );
    t.equal(await runningPid(s, 'stay'), stayPid, 'an unchanged entry keeps its process');

    writeFileSync(config, '{ "mcpServers": { oops');
    t.ok(
      await waitFor(
        () => /config .*watched\.json not applied, the running servers are kept/.test(s.stderr()),
        15_000,
      ),
      'a broken edit is reported',
    );
    t.same(await names(s), ['change', 'fresh', 'mine', 'stay'], 'and changes nothing');

    writeConfig(config, { stay: fixture('echo-v1') });
    t.ok(
      await waitFor(async () => (await names(s)).join() === 'mine,stay', 15_000),
      'removed entries are stopped; a server added at run time stays',
    );
    t.equal(await runningPid(s, 'stay'), stayPid);
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test('SIGHUP re-reads the config; without a config it ends mcpmux', async (t) => {
  const config = join(scratch, 'hup.json');
  writeConfig(config, { one: fixture('echo-v1') });
  const s = await startMcpmux(['--config', config]);
  t.ok(await waitFor(async () => (await runningPid(s, 'one')) !== undefined, 15_000));
  writeConfig(config, { one: fixture('echo-v1'), two: fixture('echo-v2') });
  process.kill(s.process.pid, 'SIGHUP');
  t.ok(
    await waitFor(async () => (await runningPid(s, 'two')) !== undefined, 15_000),
    'the new entry is started',
  );
  await matchLogged(t, () => s.stderr(), /config .*hup\.json applied: added two \(unchanged: one\)/);
  await s.client.close();
  await s.process.exited;

  const plain = await startMcpmux(['--', 'e', ...Object.values(fixture('echo-v1')).flat()]);
  process.kill(plain.process.pid, 'SIGHUP');
  t.same(await plain.process.exited, { code: 129, signal: null }, 'exit 128 + SIGHUP');
  await assertNoLeaks(t);
});

t.test(
  '--watch-config follows a file swapped through a link (a Kubernetes ConfigMap) and a directory removed and made again',
  async (t) => {
    // A ConfigMap's volume: config.json -> ..data/config.json, ..data -> a directory of the
    // version; an update writes a new version and renames a new link over ..data.
    const volume = join(scratch, 'configmap');
    const version = (n: number, servers: Record<string, unknown>) => {
      mkdirSync(join(volume, `v${n}`), { recursive: true });
      writeConfig(join(volume, `v${n}`, 'config.json'), servers);
      symlinkSync(`v${n}`, join(volume, '..data_tmp'));
      renameSync(join(volume, '..data_tmp'), join(volume, '..data'));
    };
    version(1, { one: fixture('echo-v1') });
    symlinkSync(join('..data', 'config.json'), join(volume, 'config.json'));
    const config = join(volume, 'config.json');
    const s = await startMcpmux(['--config', config, '--watch-config']);
    t.ok(await waitFor(async () => (await runningPid(s, 'one')) !== undefined, 15_000));
    version(2, { one: fixture('echo-v1'), two: fixture('echo-v2') });
    t.ok(
      await waitFor(async () => (await runningPid(s, 'two')) !== undefined, 15_000),
      'the swapped version is applied',
    );

    rmSync(volume, { recursive: true });
    t.ok(
      await waitFor(() =>
        /config directory .*configmap is gone: the running servers are kept/.test(s.stderr()),
      ),
      'a removed directory is reported',
    );
    t.same(await names(s), ['one', 'two'], 'and changes nothing');
    mkdirSync(volume);
    writeConfig(config, { three: fixture('echo-v2') });
    t.ok(
      await waitFor(async () => (await names(s)).join() === 'three', 15_000),
      'the directory made again is read, and watched',
    );
    writeConfig(config, { three: fixture('echo-v2'), four: fixture('echo-v1') });
    t.ok(await waitFor(async () => (await names(s)).join() === 'four,three', 15_000), 'an edit after it');
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);
