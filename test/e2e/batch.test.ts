// A JSON-RPC batch from the client through the built mcpmux over stdio: MCP's 2025-03-26
// revision had every receiver take them, and mcpmux skipped the line, so the client waited
// forever. Each message of a batch is now handled on its own: a child's tool (the fast path),
// mcpmux's own tool and a ping are each answered under their ids.
import t from 'tap';
import { fixturePath } from '../helpers/fixtures.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { rawMcpmux } from '../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

t.test('each request of a batch is answered under its id', async (t) => {
  const answers = new Map<unknown, Record<string, any>>();
  const { mcpmux, stderr } = await rawMcpmux(
    ['--', 'echo', process.execPath, fixturePath('echo-v1')],
    'echo',
    (m) => void (m.id !== undefined && answers.set(m.id, m)),
  );
  const batch = [
    {
      jsonrpc: '2.0',
      id: 'a',
      method: 'tools/call',
      params: { name: 'echo__echo', arguments: { message: 'one' } },
    },
    { jsonrpc: '2.0', id: 'b', method: 'ping' },
    { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'list_servers', arguments: {} } },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
  ];
  mcpmux.stdin.write(`${JSON.stringify(batch)}\n`);
  t.ok(await waitFor(() => ['a', 'b', 'c'].every((id) => answers.has(id))), 'every request answered');
  t.match(answers.get('a'), { result: { content: [{ type: 'text', text: 'one' }] } }, "the child's tool");
  t.same(answers.get('b')?.result, {}, 'the ping');
  t.match(answers.get('c')?.result?.content?.[0]?.text, /"name": ?"echo"/, "mcpmux's own tool");
  t.notMatch(stderr(), /not JSON-RPC/, 'the line was not skipped');
  mcpmux.stdin.end();
  await mcpmux.exited;
  await assertNoLeaks(t);
});
