// A hand-written server whose answers JSON-RPC does not allow, behind the built mcpmux
// (testservers/bad-answers.js). Before: `"error": null` threw in the forwarding fast path
// after the call was taken off its list, and the call was never answered; an error without an
// integer code reached the client as it was, which an SDK client drops and then waits for (as
// did a result that is not an object, such as null, which MCP does not allow); and
// the server's `{}` for resources/templates/list failed its whole start, where a client
// connected to it directly would still have had its tools. Now each such answer fails its own
// request with an Internal error saying what the server sent, and the malformed list is empty.
// The same holds the other way: a client's malformed answer to a server's question (the SDK
// dropped it, and the question and the client's own call waited) fails that question.
import { isUtf8 } from 'node:buffer';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { fixturePath } from '../helpers/fixtures.js';
import { startMcpmux, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, matchLogged, waitFor } from '../helpers/processes.js';
import { rawMcpmux } from '../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

const SERVER = ['--', 'bad', process.execPath, fixturePath('bad-answers')];
const NOT_JSON_RPC = "the server's answer is not valid JSON-RPC: ";

/** Every malformed answer fails its own call, saying what was wrong; the next call is served. */
async function checkAnswers(t: Test, client: Client) {
  const failures = [
    ['no_code', `its error's "code" is missing, not an integer (it said: no code here)`],
    ['string_code', `its error's "code" is "E42", not an integer (it said: a string code)`],
    ['null_error', `its "error" is null, not an object`],
    ['empty_answer', `it has neither a "result" nor an "error"`],
  ] as const;
  for (const [tool, why] of failures)
    await t.rejects(
      client.callTool({ name: `bad__${tool}` }),
      { code: -32603, message: NOT_JSON_RPC + why },
      tool,
    );
  await t.rejects(
    client.callTool({ name: 'bad__broken_json' }),
    {
      code: -32603,
      message: /^the server's answer is not JSON \(.+\): \{"jsonrpc": "2\.0", "id": .*…$/,
    },
    'broken_json: failed at once, not at --call-timeout',
  );
  for (const [tool, shown] of [
    ['null_result', 'null'],
    ['text_result', '"done"'],
  ] as const)
    await t.rejects(
      client.callTool({ name: `bad__${tool}` }),
      {
        code: -32603,
        message: `the server's answer is not valid MCP: its "result" is ${shown}, not an object`,
      },
      tool,
    );
  await t.rejects(client.readResource({ uri: 'bad://one' }), {
    code: -32603,
    message: /its error's "code" is "404", not an integer \(it said: a read that went wrong\)/,
  });
  t.match(await client.callTool({ name: 'bad__fine' }), { content: [{ type: 'text', text: 'fine' }] });
}

t.test('over stdio (the forwarding fast path)', async (t) => {
  const s = await startMcpmux(['--call-timeout', '120', ...SERVER]);
  t.teardown(() => s.client.close());
  t.match((await s.json('list_servers')).servers, [{ name: 'bad', status: 'running' }], 'it started');
  await matchLogged(
    t,
    () => s.stderr(),
    /\[bad\] resources\/templates\/list: Invalid result .*; taking it as empty/,
  );
  await checkAnswers(t, s.client);
  t.match(
    s.stderr(),
    /\[bad\] the server's answer is not valid JSON-RPC: its "error" is null, not an object/,
  );
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
});

t.test('over HTTP', async (t) => {
  const mux = await startMcpmuxHttp(['--call-timeout', '120', ...SERVER]);
  t.teardown(() => mux.stop());
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(mux.url)));
  t.teardown(() => client.close());
  await checkAnswers(t, client);
});

t.test("a client's malformed answer to a server's question fails that question, over stdio", async (t) => {
  const answers = new Map<unknown, Record<string, any>>();
  const { mcpmux, send, stderr } = await rawMcpmux(
    ['--', 'asks', process.execPath, fixturePath('asks-client')],
    'asks',
    (m) => {
      // The server's questions get answers JSON-RPC does not allow: an error without a code, an empty answer.
      if (m.method === 'sampling/createMessage') send({ id: m.id, error: { message: 'no model here' } });
      else if (m.method === 'roots/list') send({ id: m.id });
      else if (m.id !== undefined && m.method === undefined) answers.set(m.id, m);
    },
    { capabilities: { sampling: {}, roots: {} } },
  );
  send({
    id: 10,
    method: 'tools/call',
    params: { name: 'asks__ask', arguments: { method: 'sampling/createMessage' } },
  });
  send({ id: 11, method: 'tools/call', params: { name: 'asks__ask', arguments: { method: 'roots/list' } } });
  if (!t.ok(await waitFor(() => answers.has(10) && answers.has(11)), 'both calls answered'))
    t.comment(stderr());
  t.match(
    answers.get(10)?.result?.content?.[0]?.text,
    /the client's answer is not valid JSON-RPC: its error's "code" is missing, not an integer \(it said: no model here\)/,
  );
  t.match(
    answers.get(11)?.result?.content?.[0]?.text,
    /the client's answer is not valid JSON-RPC: it has neither a "result" nor an "error"/,
  );
  await matchLogged(t, () => stderr(), /warn: the client's answer is not valid JSON-RPC/, 'logged');
  mcpmux.stdin.end();
  await mcpmux.exited;
  await assertNoLeaks(t);
});

t.test("the same over HTTP: the client's malformed answer, POSTed, fails the question", async (t) => {
  const mux = await startMcpmuxHttp(['--', 'asks', process.execPath, fixturePath('asks-client')]);
  t.teardown(() => mux.stop());
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const post = (body: object) => fetch(mux.url, { method: 'POST', headers, body: JSON.stringify(body) });
  const opened = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { sampling: {} },
      clientInfo: { name: 'raw', version: '1' },
    },
  });
  headers['mcp-session-id'] = opened.headers.get('mcp-session-id') ?? '';
  headers['mcp-protocol-version'] = '2025-11-25';
  await opened.text();
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
  // The call's answer comes on its own SSE stream, after the question the client answers malformed.
  const call = await post({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'asks__ask', arguments: { method: 'sampling/createMessage' } },
  });
  let pending = '';
  let answered: Record<string, any> | undefined;
  const decoder = new TextDecoder();
  for await (const chunk of call.body as AsyncIterable<Uint8Array>) {
    // Whole lines only: an event may come cut across chunks.
    const lines = (pending + decoder.decode(chunk, { stream: true })).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.startsWith('data: '))) {
      const message = JSON.parse(line.slice('data: '.length));
      if (message.method === 'sampling/createMessage') {
        const posted = await post({ jsonrpc: '2.0', id: message.id, error: { message: 'no model here' } });
        t.equal(posted.status, 202, 'the malformed answer is taken (it was refused 400)');
        await posted.text();
      } else if (message.id === 2) answered = message;
    }
    if (answered) break;
  }
  t.match(
    answered?.result?.content?.[0]?.text,
    /the client's answer is not valid JSON-RPC: its error's "code" is missing/,
  );
  await matchLogged(t, () => mux.stderr(), /warn: the client's answer is not valid JSON-RPC/, 'logged');
});

t.test('over stdio, a result whose bytes are not UTF-8 reaches the client as UTF-8', async (t) => {
  // Passed on as bytes, a Latin-1 é broke a strict client's whole connection (the Python SDK's
  // reader raises on it), every server's with it.
  let answered: Record<string, any> | undefined;
  const { mcpmux, send, output } = await rawMcpmux(SERVER, 'bad', (message) => {
    if (message.id === 7) answered = message;
  });
  send({ id: 7, method: 'tools/call', params: { name: 'bad__latin1', arguments: {} } });
  t.ok(await waitFor(() => answered !== undefined));
  t.same(answered?.result?.content, [{ type: 'text', text: 'caf\uFFFD' }], 'the bad byte as U+FFFD');
  t.ok(isUtf8(output()), 'every byte mcpmux wrote is UTF-8');
  mcpmux.stdin.end();
  await mcpmux.exited;
  await assertNoLeaks(t);
});
