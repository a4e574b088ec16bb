// A request whose params do not fit its method, through the built mcpmux: answered -32602
// Invalid params saying which field is wrong, over stdio and HTTP. The SDK answered -32603
// Internal error with zod's issues as raw JSON (upstream typescript-sdk#2284), telling the
// client that mcpmux broke; and over stdio a request whose params were not an object at all
// was never answered.
import t from 'tap';
import { fixturePath } from '../helpers/fixtures.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, matchLogged, waitFor } from '../helpers/processes.js';
import { rawMcpmux } from '../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

const BAD = [
  {
    method: 'logging/setLevel',
    params: { level: 'loud' },
    message: /^Invalid params for logging\/setLevel: level: Invalid option: expected one of "debug"\|/,
  },
  {
    method: 'resources/read',
    params: { uri: 5 },
    message: 'Invalid params for resources/read: uri: Invalid input: expected string, received number',
  },
  {
    method: 'prompts/get',
    params: {},
    message: 'Invalid params for prompts/get: name: Invalid input: expected string, received undefined',
  },
  {
    method: 'tools/list',
    params: { cursor: 5 },
    message: 'Invalid params for tools/list: cursor: Invalid input: expected string, received number',
  },
];

t.test('over stdio, each is answered -32602 naming the field, and the session goes on', async (t) => {
  const answers = new Map<unknown, Record<string, any>>();
  const { mcpmux, stderr } = await rawMcpmux(
    ['--', 'echo', process.execPath, fixturePath('echo-v1')],
    'echo',
    (m) => void (m.id !== undefined && answers.set(m.id, m)),
  );
  BAD.forEach(({ method, params }, i) =>
    mcpmux.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method, params }) + '\n'),
  );
  // Not an object at all: the SDK dropped it without a word, even on the forwarding fast path's method.
  mcpmux.stdin.write('{"jsonrpc":"2.0","id":20,"method":"tools/call","params":"echo__echo"}\n');
  mcpmux.stdin.write(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 21,
      method: 'tools/call',
      params: { name: 'echo__echo', arguments: { message: 'still here' } },
    }) + '\n',
  );
  if (!t.ok(await waitFor(() => answers.size >= BAD.length + 3), 'every request answered'))
    t.comment(stderr());
  BAD.forEach(({ method, message }, i) =>
    t.match(answers.get(10 + i)?.error, { code: -32602, message }, method),
  );
  t.match(answers.get(20)?.error, {
    code: -32600,
    message: 'Invalid Request: "params" must be an object when present, not "echo__echo"',
  });
  t.match(
    answers.get(21)?.result,
    { content: [{ type: 'text', text: 'still here' }] },
    'the next call is served',
  );
  await matchLogged(
    t,
    () => stderr(),
    /refused a tools\/call request from the client: "params" must be an object/,
  );
  mcpmux.stdin.end();
  await mcpmux.exited;
  await assertNoLeaks(t);
});

t.test('over HTTP, in a 2025 session, the same', async (t) => {
  const mux = await startMcpmuxHttp();
  t.teardown(() => mux.stop());
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const post = async (body: object): Promise<Record<string, any>> => {
    const response = await fetch(mux.url, { method: 'POST', headers, body: JSON.stringify(body) });
    const sessionId = response.headers.get('mcp-session-id');
    if (sessionId) headers['mcp-session-id'] = sessionId;
    const text = await response.text();
    // One answer, as JSON or as one SSE event.
    return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text);
  };
  await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  headers['mcp-protocol-version'] = '2025-11-25';
  await fetch(mux.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  for (const [i, { method, params, message }] of BAD.entries())
    t.match(
      await post({ jsonrpc: '2.0', id: 10 + i, method, params }),
      { id: 10 + i, error: { code: -32602, message } },
      method,
    );
  t.match(
    await post({ jsonrpc: '2.0', id: 30, method: 'ping' }),
    { id: 30, result: {} },
    'the session goes on',
  );
});
