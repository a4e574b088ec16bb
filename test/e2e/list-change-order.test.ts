// The order a client reads things in when one of mcpmux's own tools changes its tool list:
// list_changed first, then (for a client that lists again on it, as Claude Code does) its
// new list, then the tool's answer. Claude Code builds its next model request as a tool's
// answer arrives; when list_changed trailed add_server's answer by the 10 ms debounce, the
// model saw the added server's tools one turn late. Read off the wire of the built mcpmux.
import t from 'tap';
import { fixture, fixturePath } from '../helpers/fixtures.js';
import { assertNoLeaks, killTaggedProcesses, matchLogged, waitFor } from '../helpers/processes.js';
import { rawMcpmux } from '../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

const TOOLS_CHANGED = 'notifications/tools/list_changed';

/** mcpmux with server `a` running; what it writes, in order, as short labels. */
async function session(relists: boolean, args: string[] = []) {
  const wire: string[] = [];
  const lists: string[][] = [];
  let listIds = 0;
  const client = await rawMcpmux(
    [...args, '--log-level', 'debug', '--', 'a', process.execPath, fixturePath('echo-v1')],
    'a',
    (message) => {
      if (message.method === TOOLS_CHANGED) {
        wire.push('list_changed');
        if (relists) client.send({ id: `list-${++listIds}`, method: 'tools/list' });
      } else if (typeof message.id === 'string' && message.id.startsWith('list-')) {
        wire.push('tools/list answer');
        lists.push((message.result.tools as { name: string }[]).map((tool) => tool.name));
      } else if (message.id !== undefined && message.method === undefined) wire.push(`answer ${message.id}`);
    },
  );
  let id = 100;
  /** Calls one of mcpmux's tools; resolves with the wire as it was when the answer came. */
  const call = async (name: string, args: Record<string, unknown>) => {
    const callId = ++id;
    wire.length = 0;
    lists.length = 0;
    client.send({ id: callId, method: 'tools/call', params: { name, arguments: args } });
    if (!(await waitFor(() => wire.includes(`answer ${callId}`))))
      throw new Error(`${name} was not answered`);
    return { wire: wire.slice(0, wire.indexOf(`answer ${callId}`) + 1), lists: [...lists] };
  };
  /** Everything written since the last call's answer. */
  const since = () => [...wire];
  return { ...client, call, since };
}

t.test('a client that lists again: list_changed, its new list, then the answer', async (t) => {
  const mux = await session(true);
  const added = await mux.call('add_server', { name: 'b', ...fixture('echo-v2') });
  t.same(added.wire, ['list_changed', 'tools/list answer', 'answer 101'], 'add_server');
  t.ok(added.lists[0]?.includes('b__echo'), "the list it read before the answer has b's tools");
  const removed = await mux.call('remove_server', { name: 'b' });
  t.same(removed.wire, ['list_changed', 'tools/list answer', 'answer 102'], 'remove_server');
  t.notOk(removed.lists[0]?.includes('b__echo'), "b's tools are gone from it");
  const unchanged = await mux.call('reload_server', { name: 'a' });
  t.same(unchanged.wire, ['answer 103'], 'a reload that changed no tool tells nothing and waits for nothing');
  mux.mcpmux.stdin.end();
  await mux.mcpmux.exited;
  await assertNoLeaks(t);
});

t.test('search mode: a found tool listed by search_tools is told before its answer', async (t) => {
  const mux = await session(true, ['--expose', 'search']);
  const found = await mux.call('search_tools', { query: 'a__echo', limit: 1, activate: true });
  t.same(found.wire, ['list_changed', 'tools/list answer', 'answer 101']);
  t.ok(found.lists[0]?.includes('a__echo'), 'the found tool is in the list read before the answer');
  mux.mcpmux.stdin.end();
  await mux.mcpmux.exited;
  await assertNoLeaks(t);
});

t.test(
  'a client that does not list again: list_changed still comes first, and it is waited for only once',
  async (t) => {
    const mux = await session(false);
    for (const [name, args] of [
      ['add_server', { name: 'b', ...fixture('echo-v2') }],
      ['remove_server', { name: 'b' }],
      ['add_server', { name: 'c', ...fixture('echo-v2') }],
    ] as const) {
      const { wire } = await mux.call(name, args);
      t.equal(wire[0], 'list_changed', `${name}: list_changed before the answer`);
    }
    t.equal(
      mux.stderr().match(/did not list tools again within \d+ ms of list_changed/g)?.length,
      1,
      'given up on once, and not waited for after',
    );
    // Ending mcpmux stops its servers: that is no change to tell its client of (Claude Code
    // heard one as it closed mcpmux).
    await new Promise((resolve) => setTimeout(resolve, 100));
    const told = mux.since().length;
    process.kill(mux.mcpmux.pid, 'SIGTERM');
    await mux.mcpmux.exited;
    await matchLogged(t, () => mux.stderr(), /shutting down/);
    t.same(mux.since().slice(told), [], 'nothing written after the signal');
    await assertNoLeaks(t);
  },
);
