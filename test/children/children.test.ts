// The children under real concurrency and real failures: crashes, races on one name,
// removal with calls in flight, a child that changes its own tools, reloads mid-start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import t from 'tap';
import { fixture, npmServerPath, type FixtureName } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { taggedEnv, waitFor } from '../helpers/processes.js';

const statusOf = async (h: Awaited<ReturnType<typeof startHarness>>, name: string) =>
  ((await h.callJson('list_servers')).servers as any[]).find((s) => s.name === name);

t.test(
  'a crash mid-call: the call fails at once, the server is crashed, others are unaffected, reload brings it back',
  async (t) => {
    const h = await startHarness(t);
    await h.callJson('add_server', { name: 'boom', ...fixture('crash-on-call') });
    await h.callJson('add_server', { name: 'echo', ...fixture('echo-v1') });
    const before = h.listChanged();
    const crashed = await h.call('boom__crash');
    t.ok(crashed.isError);
    t.match(textOf(crashed), /server 'boom' crashed \(exit 1\); call reload_server \{"name":"boom"\}/);
    t.ok(await waitFor(async () => (await statusOf(h, 'boom'))?.status === 'crashed'), 'marked crashed');
    const status = await statusOf(h, 'boom');
    t.match(status, {
      status: 'crashed',
      exit: { code: 1, signal: null },
      last_error: /exited unexpectedly \(exit 1\)/,
      tools: [],
    });
    t.ok(status.stderr_tail.includes('crash-on-call: exiting on purpose'), 'stderr tail kept');
    t.notOk(
      (await h.toolNames()).some((n) => n.startsWith('boom__')),
      'its tools are withdrawn',
    );
    t.ok(await waitFor(() => h.listChanged() > before), 'list_changed sent');
    const later = await h.call('boom__ok');
    t.match(textOf(later), /server 'boom' is crashed .*call reload_server/);
    t.equal(textOf(await h.call('echo__echo', { message: 'still here' })), 'still here');
    await h.callJson('reload_server', { name: 'boom' });
    t.equal(textOf(await h.call('boom__ok')), 'ok');
    await h.close();
  },
);

t.test('concurrent add_server of one name: exactly one wins, nothing else is left running', async (t) => {
  const h = await startHarness(t);
  const results = await Promise.all(
    Array.from({ length: 5 }, () => h.call('add_server', { name: 'same', ...fixture('echo-v1') })),
  );
  t.equal(results.filter((r) => !r.isError).length, 1, 'one success');
  for (const r of results.filter((r) => r.isError)) t.match(textOf(r), /already exists/);
  t.equal((await h.callJson('list_servers')).servers.length, 1);
  await h.close();
});

t.test('remove_server with 20 calls in flight: every call settles with a clear error', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'slow', ...fixture('slow-call') });
  const calls = Array.from({ length: 20 }, () => h.call('slow__wait', { steps: 1000, interval_ms: 50 }));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await h.callJson('remove_server', { name: 'slow' });
  const settled = await Promise.all(calls);
  t.equal(settled.length, 20);
  for (const r of settled) {
    t.ok(r.isError);
    t.match(textOf(r), /server 'slow' was removed while the call was in flight/);
  }
  await h.close();
});

t.test('50 concurrent calls each get their own answer', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'echo', ...fixture('echo-v1') });
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) => h.call('echo__echo', { message: `m${i}` })),
  );
  t.same(
    answers.map(textOf),
    Array.from({ length: 50 }, (_, i) => `m${i}`),
  );
  await h.close();
});

t.test(
  "a child's own list_changed: re-listed, and the client is told only when the content changed",
  async (t) => {
    const h = await startHarness(t);
    await h.callJson('add_server', { name: 'dyn', ...fixture('list-changed') });
    await waitFor(() => h.listChanged() > 0);
    const afterAdd = h.listChanged();
    await h.call('dyn__add_tool', { name: 'fresh' });
    t.ok(await waitFor(async () => (await h.toolNames()).includes('dyn__fresh')), 'the new tool is listed');
    t.ok(await waitFor(() => h.listChanged() > afterAdd), 'list_changed forwarded');
    t.equal(textOf(await h.call('dyn__fresh')), 'fresh');
    const afterFresh = h.listChanged();
    await h.call('dyn__touch');
    t.ok(
      await waitFor(() =>
        h.logs.some((l) => l.includes("server 'dyn' sent list_changed; its tools did not change")),
      ),
      're-listed',
    );
    // Give a (wrong) notification the debounce window and a round trip to arrive.
    await h.callJson('list_servers');
    await waitFor(() => h.listChanged() > afterFresh, 100);
    t.equal(h.listChanged(), afterFresh, 'a list_changed without a content change is not forwarded');
    await h.close();
  },
);

t.test('remove while starting: the add fails, nothing is registered or left running', async (t) => {
  const h = await startHarness(t);
  const adding = h.call('add_server', {
    name: 'late',
    ...fixture('slow-start'),
    env: { SLOW_START_MS: '60000' },
  });
  t.ok(await waitFor(async () => (await statusOf(h, 'late'))?.status === 'starting'), 'listed as starting');
  // Removed while it is asked the era probe (a server that exits then is started again with initialize).
  t.ok(await waitFor(() => h.logs.some((l) => /spawn server=late/.test(l))), 'spawned');
  await new Promise((resolve) => setTimeout(resolve, 300));
  await h.callJson('remove_server', { name: 'late' });
  const result = await adding;
  t.ok(result.isError);
  t.match(textOf(result), /server 'late' was removed while it was starting/);
  t.equal(await statusOf(h, 'late'), undefined);
  t.notOk(
    h.logs.some((l) => /starting it again|illegal child state/.test(l)),
    'a server killed by its removal is not taken for one that exits on the probe',
  );
  await h.close();
});

t.test(
  'reload while starting: the reload takes the start over, and the add answers with it; no process is left unregistered',
  async (t) => {
    const h = await startHarness(t);
    /** add_server, and reload_server once its process is spawned: both answers. */
    const addThenReload = async (name: string, server: FixtureName, env: Record<string, string>) => {
      const adding = h.call('add_server', { name, ...fixture(server), env });
      t.ok(await waitFor(() => h.logs.some((l) => l.includes(`spawn server=${name} `))), 'spawned');
      const reloaded = await h.call('reload_server', { name });
      return [await adding, reloaded] as const;
    };
    const [added, reloaded] = await addThenReload('slow', 'slow-start', { SLOW_START_MS: '1500' });
    t.notOk(added.isError, `the add succeeds (${textOf(added)})`);
    t.notOk(reloaded.isError, `the reload succeeds (${textOf(reloaded)})`);
    t.match(await statusOf(h, 'slow'), { status: 'running' });
    t.equal(h.logs.filter((l) => /spawn server=slow/.test(l)).length, 2, "its process, then the reload's");

    // One whose reloaded start fails is gone, and both answers say why.
    for (const answer of await addThenReload('gone', 'exit-on-start', { EXIT_DELAY_MS: '2000' })) {
      t.ok(answer.isError);
      t.match(textOf(answer), /^server 'gone' exited \(exit 3\) before it finished the MCP handshake/);
    }
    t.equal(await statusOf(h, 'gone'), undefined);
    await h.close();
  },
);

t.test('remove during a reload: nothing is started again, and nothing is left running', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'twice', ...fixture('echo-v1') });
  const reloading = h.call('reload_server', { name: 'twice' });
  await h.callJson('remove_server', { name: 'twice' });
  const reloaded = await reloading;
  t.ok(reloaded.isError);
  t.match(textOf(reloaded), /server 'twice' was removed while it was reloading/);
  t.equal(await statusOf(h, 'twice'), undefined);
  t.equal(
    h.logs.filter((l) => /spawn server=twice/.test(l)).length,
    1,
    "no process is started after the removal (its stop joined the reload's)",
  );
  await h.close();
});

t.test(
  "a server's own instructions reach the model: in add_server's answer and in list_servers",
  async (t) => {
    const everything = {
      command: process.execPath,
      args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
    };
    // What server-everything tells a client that connects to it directly.
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new StdioClientTransport({ ...everything, env: taggedEnv(), stderr: 'ignore' }));
    const own = direct.getInstructions();
    await direct.close();
    t.ok(own && own.length > 100, 'server-everything gives instructions');

    const h = await startHarness(t);
    const { server } = await h.callJson('add_server', { name: 'ev', ...everything });
    t.equal(server.instructions, own?.trim(), "add_server's answer carries them");
    t.equal((await statusOf(h, 'ev')).instructions, own?.trim(), 'and list_servers');
    await h.callJson('add_server', { name: 'plain', ...fixture('echo-v1') });
    t.notOk('instructions' in (await statusOf(h, 'plain')), 'a server without any shows none');
    await h.close();
  },
);

t.test(
  'during a reload the old tools stay listed, and a call waits for the new process instead of failing',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpmux-reload-hold-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const gate = join(dir, 'go');
    writeFileSync(gate, '');
    const h = await startHarness(t);
    await h.callJson('add_server', {
      name: 'slow',
      ...fixture('slow-start'),
      env: { SLOW_START_GATE: gate },
    });
    rmSync(gate);
    const reloading = h.callJson('reload_server', { name: 'slow' });
    t.ok(
      await waitFor(async () => (await statusOf(h, 'slow')).status === 'starting'),
      'the new process is starting',
    );
    t.ok((await h.toolNames()).includes('slow__ready'), 'its tools are still listed');
    const call = h.call('slow__ready', {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    writeFileSync(gate, '');
    t.equal(textOf(await call), 'ready', 'the call waited and the new process answered');
    t.same((await reloading).changes, { added: [], removed: [], changed: [] });
    await h.close();
  },
);
