// add_server and remove_server with persist: the change lands in the config file (the rest
// of it kept), a watching mcpmux takes its own write as no change, and a restarted mcpmux
// brings the persisted server back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { serverStatus, startMcpmux, text } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-persist-'));
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

t.test('persist round trip', async (t) => {
  const config = join(scratch, 'servers.json');
  writeFileSync(config, JSON.stringify({ note: 'kept', mcpServers: { keep: fixture('echo-v1') } }));
  const s = await startMcpmux(['--config', config, '--watch-config']);
  t.ok(await waitFor(async () => (await serverStatus(s, 'keep'))?.status === 'running', 15_000));

  const added = await s.json('add_server', {
    name: 'p',
    ...fixture('echo-v2'),
    env: { K: 'v' },
    persist: true,
  });
  t.equal(added.persisted_to, config);
  t.same(read(config), {
    note: 'kept',
    mcpServers: { keep: fixture('echo-v1'), p: { ...fixture('echo-v2'), env: { K: 'v' } } },
  });
  t.ok(
    await waitFor(() => /servers\.json applied: no change \(unchanged: keep, p\)/.test(s.stderr()), 15_000),
    'the watcher sees its own write as no change',
  );
  const pid = (await serverStatus(s, 'p')).pid;

  const removed = await s.json('remove_server', { name: 'keep', persist: true });
  t.equal(removed.persisted_to, config);
  t.same(Object.keys(read(config).mcpServers), ['p']);
  t.equal((await serverStatus(s, 'p')).pid, pid, 'the persisted server was not restarted');
  await s.client.close();
  await s.process.exited;

  const again = await startMcpmux(['--config', config]);
  t.ok(
    await waitFor(async () => (await serverStatus(again, 'p'))?.status === 'running', 15_000),
    'a new mcpmux starts the persisted server',
  );
  t.match(text(await again.call('p__reverse', { text: 'abc' })), 'cba');
  t.equal(await serverStatus(again, 'keep'), undefined);
  await again.client.close();
  await again.process.exited;
  await assertNoLeaks(t);
});

t.test('persist without --config is refused before anything starts', async (t) => {
  const s = await startMcpmux([]);
  const result = await s.call('add_server', { name: 'p', ...fixture('echo-v1'), persist: true });
  t.ok(result.isError);
  t.match(
    text(result),
    /persist needs a config file, and mcpmux was started without --config; nothing was changed/,
  );
  t.same((await s.json('list_servers')).servers, []);
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
});
