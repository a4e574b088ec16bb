// JSON nested deeper than the stack allows (10,000 levels, 20 KB) through the built mcpmux
// over stdio and both HTTP transports, from a child and from the client. JSON.parse takes it,
// JSON.stringify does not: over stdio such a message ended mcpmux and every server with it;
// over HTTP the answer was dropped and the client waited for ever. Now each is answered with
// an error that says why, and everything else goes on.
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import t from 'tap';
import { fixturePath } from '../helpers/fixtures.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { rawMcpmux } from '../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

const TOO_DEEP = /nested too deeply/;

t.test('a message nested too deeply is answered with an error, and mcpmux goes on', async (t) => {
  const answers = new Map<unknown, Record<string, any>>();
  const { mcpmux, send, stderr } = await rawMcpmux(
    ['--', 'deep', process.execPath, fixturePath('deep-json')],
    'deep',
    (m) => void (m.id !== undefined && answers.set(m.id, m)),
  );
  send({ id: 2, method: 'logging/setLevel', params: { level: 'info' } });
  // From the child: a log message and a result, on the fast path and through call_tool.
  send({ id: 3, method: 'tools/call', params: { name: 'deep__deep', arguments: {} } });
  send({
    id: 4,
    method: 'tools/call',
    params: { name: 'call_tool', arguments: { name: 'deep__deep', arguments: {} } },
  });
  t.ok(await waitFor(() => answers.has(3) && answers.has(4)), 'both calls answered');
  for (const id of [3, 4]) {
    t.equal(answers.get(id)?.error?.code, -32603, `call ${id}: an internal error`);
    t.match(answers.get(id)?.error?.message, TOO_DEEP, 'that says why');
  }
  t.match(
    stderr(),
    /\[deep\] mcpmux could not handle notifications\/message from the server: .*nested too deeply/,
  );

  // From the client: arguments mcpmux must parse and write again (call_tool).
  // (Written as text: this process cannot JSON.stringify it either.)
  const deep = '['.repeat(10_000) + ']'.repeat(10_000);
  mcpmux.stdin.write(
    `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"deep__ok","arguments":{"value":${deep}}}}}\n`,
  );
  t.ok(await waitFor(() => answers.has(5)), 'answered');
  t.match(JSON.stringify(answers.get(5)), TOO_DEEP, 'with why');

  // The same inside a batch, with a ping beside it.
  mcpmux.stdin.write(
    `[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"deep__ok","arguments":{"value":${deep}}}}}]\n`,
  );
  t.ok(await waitFor(() => answers.has(7) && answers.has(8)), 'both of a batch answered');
  t.match(JSON.stringify(answers.get(8)), TOO_DEEP, 'the deep one with why');

  send({ id: 6, method: 'tools/call', params: { name: 'deep__ok', arguments: {} } });
  t.ok(await waitFor(() => answers.has(6)), 'a call after them is answered');
  t.equal(answers.get(6)?.result?.content?.[0]?.text, 'ok');
  t.equal(mcpmux.exit, undefined, 'mcpmux is running');
  mcpmux.stdin.end();
  await mcpmux.exited;
  await assertNoLeaks(t);
});

t.test('over HTTP, either transport, such an answer comes as an error too', async (t) => {
  const mcpmux = await startMcpmuxHttp(['--', 'deep', process.execPath, fixturePath('deep-json')]);
  t.ok(await waitFor(() => /'deep' is running/.test(mcpmux.stderr())), 'the child is running');
  const transports = {
    'streamable HTTP': () => new StreamableHTTPClientTransport(new URL(mcpmux.url)),
    'HTTP+SSE': () => new SSEClientTransport(new URL(mcpmux.url.replace(/\/mcp$/, '/sse'))),
  };
  for (const [kind, transport] of Object.entries(transports)) {
    const client = new Client({ name: 'deep-json-test', version: '1' });
    await client.connect(transport());
    // Both ways a call goes: the fast path, and the SDK's dispatch (call_tool).
    for (const [name, args] of [
      ['deep__deep', {}],
      ['call_tool', { name: 'deep__deep', arguments: {} }],
    ] as const) {
      await t.rejects(
        client.callTool({ name, arguments: args }, { timeout: 10_000 }),
        { code: -32603, message: TOO_DEEP },
        `${kind}, ${name}: an internal error that says why, not a wait`,
      );
    }
    const ok = (await client.callTool({ name: 'deep__ok', arguments: {} })) as CallToolResult;
    t.same(ok.content, [{ type: 'text', text: 'ok' }], `${kind}: the session goes on`);
    await client.close();
  }
  await mcpmux.stop();
  await assertNoLeaks(t);
});
