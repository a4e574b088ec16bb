// A server's process ends when mcpmux is done with it, however it behaves: one that ignores EOF
// and SIGTERM, one that closes a pipe and lives on, its own children, and a daemon it started
// outside its process group.
import t from 'tap';
import { fixture, fixturePath } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { isAlive, waitFor } from '../helpers/processes.js';

const statusOf = async (h: Awaited<ReturnType<typeof startHarness>>, name: string) =>
  ((await h.callJson('list_servers')).servers as any[]).find((s) => s.name === name);

t.test('a child that ignores EOF and SIGTERM is still removed, and dead when remove returns', async (t) => {
  const h = await startHarness(t);
  const { server } = await h.callJson('add_server', { name: 'stubborn', ...fixture('hang-on-shutdown') });
  const removed = await h.callJson('remove_server', { name: 'stubborn' });
  t.equal(removed.exit.signal, 'SIGKILL');
  t.notOk(isAlive(server.pid));
  await h.close();
});

t.test(
  'a server that closes its stdout and lives on: crashed, its call failed, its process ended',
  async (t) => {
    const h = await startHarness(t);
    const { server } = await h.callJson('add_server', { name: 'mute', ...fixture('closes-stdout') });
    const call = await h.call('mute__close');
    t.ok(call.isError);
    t.match(textOf(call), /server 'mute' crashed \(closed its connection unexpectedly\); call reload_server/);
    t.ok(await waitFor(async () => (await statusOf(h, 'mute'))?.status === 'crashed'), 'marked crashed');
    t.ok(
      await waitFor(() => !isAlive(server.pid)),
      'the process, which ignores stdin EOF and SIGTERM, is ended all the same',
    );
    await h.close();
  },
);

t.test(
  'a server that closes its stdin and lives on: crashed at the next request, which fails, its process ended',
  async (t) => {
    const h = await startHarness(t);
    const { server } = await h.callJson('add_server', { name: 'deaf', ...fixture('closes-stdin') });
    t.equal(textOf(await h.call('deaf__close')), 'closing');
    // Nothing tells mcpmux until it writes: the next request finds stdin closed (EPIPE).
    const call = await h.call('deaf__echo');
    t.ok(call.isError);
    t.match(
      textOf(call),
      /server 'deaf' crashed \(closed its stdin and stopped reading requests\); call reload_server/,
    );
    t.ok(await waitFor(async () => (await statusOf(h, 'deaf'))?.status === 'crashed'), 'marked crashed');
    t.same((await statusOf(h, 'deaf'))?.tools, [], 'its tools withdrawn');
    t.ok(
      await waitFor(() => !isAlive(server.pid)),
      'the process, which ignores SIGTERM, is ended all the same',
    );
    await h.close();
  },
);

t.test("the child's own children die with it", async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'tree', ...fixture('grandchild') });
  const pid = Number(textOf(await h.call('tree__grandchild_pid')));
  t.ok(isAlive(pid), 'grandchild running');
  await h.callJson('remove_server', { name: 'tree' });
  t.notOk(isAlive(pid), 'grandchild dead when remove_server returns');
  await h.callJson('add_server', { name: 'tree', ...fixture('grandchild') });
  const pid2 = Number(textOf(await h.call('tree__grandchild_pid')));
  await h.callJson('reload_server', { name: 'tree' });
  t.notOk(isAlive(pid2), 'grandchild of the old generation dead after reload');
  await h.close();
});

t.test('a daemon the child started outside its process group dies with it', async (t) => {
  const h = await startHarness(t);
  const daemonized = { command: process.execPath, args: [fixturePath('grandchild'), '--detached'] };
  await h.callJson('add_server', { name: 'd', ...daemonized });
  const pid = Number(textOf(await h.call('d__grandchild_pid')));
  t.ok(isAlive(pid), 'daemon running');
  await h.callJson('reload_server', { name: 'd' });
  t.notOk(isAlive(pid), "the old generation's daemon (it ignores SIGTERM) dead after reload");
  const pid2 = Number(textOf(await h.call('d__grandchild_pid')));
  await h.callJson('remove_server', { name: 'd' });
  t.notOk(isAlive(pid2), 'daemon dead when remove_server returns');
  await h.close();
});
