// The client's side on stdio: a request whose id MCP does not allow (null, a fraction, an
// object) is answered with JSON-RPC's Invalid Request at once, where the SDK would have
// dropped it and left the client waiting; a request with a string or integer id goes on.
// So is a request whose envelope is wrong ("jsonrpc" not "2.0", a method that is not a string,
// params that are not an object) but whose id can be read. An initialize with a wrong or
// missing field is answered Invalid Params, saying which. When the client closes its input,
// what it asked is still owed, and what it was asked fails.
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import t from 'tap';
import {
  StdioServerTransport,
  type StdioServerTransportOptions,
} from '../../src/transport/stdio-server-transport.js';
import { waitFor } from '../helpers/processes.js';

/** A started transport on two pipes: what it wrote to the client, and what it handed over. */
async function piped(options: StdioServerTransportOptions = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const written: Record<string, unknown>[] = [];
  stdout.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line) written.push(JSON.parse(line));
  });
  const transport = new StdioServerTransport({ stdin, stdout, ...options });
  const handed: JSONRPCMessage[] = [];
  transport.onmessage = (message) => void handed.push(message);
  await transport.start();
  return { stdin, transport, written, handed };
}

t.test('a request with an id MCP does not allow is answered Invalid Request; others go on', async (t) => {
  const dropped: string[] = [];
  const { stdin, transport, written, handed } = await piped({ onDropped: (why) => dropped.push(why) });
  for (const id of [null, 8.5, { a: 1 }, true, 1e21, 'ok', 7, -3, Number.MAX_SAFE_INTEGER])
    stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n');
  // A response of the client with a null id is the SDK's to judge.
  stdin.write(
    JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }) + '\n',
  );
  t.ok(await waitFor(() => written.length === 5 && handed.length === 5), 'five answered, five handed over');
  t.same(
    written.map((m) => m['id']),
    [null, 8.5, null, null, 1e21],
    'under the id as sent when it is a number, else null',
  );
  t.ok(
    written.every((m) => (m['error'] as { code: number }).code === -32600),
    'each an Invalid Request error',
  );
  t.match(
    (written[2]!['error'] as { message: string }).message,
    /must be a string or an integer \(MCP\) within ±\(2\^53 − 1\), not \{"a":1\}/,
  );
  t.match((written[4]!['error'] as { message: string }).message, /not 1e\+21/);
  t.same(
    handed.map((m) => ('id' in m ? m.id : undefined)),
    ['ok', 7, -3, Number.MAX_SAFE_INTEGER, null],
    'valid requests, and the response, go on',
  );
  t.equal(dropped.length, 5, 'each refusal is logged');
  t.match(dropped[0], /refused a ping request from the client: its id null/);
  await transport.close();
});

t.test('a request whose envelope is wrong but whose id can be read is answered, not dropped', async (t) => {
  const dropped: string[] = [];
  const skipped: string[] = [];
  const { stdin, transport, written, handed } = await piped({
    onDropped: (why) => dropped.push(why),
    onSkippedLine: (line) => skipped.push(line),
  });
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: null },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: [1] },
    { jsonrpc: '2.0', id: 4, method: 7 },
    { id: 5, method: 'ping' },
    { jsonrpc: '1.0', id: 'six', method: 'ping' },
    // Nothing to answer under: a notification, and a request without an id, are skipped or the SDK's.
    { jsonrpc: '2.0', method: 'notifications/progress', params: 'x' },
    { method: 'ping' },
    { jsonrpc: '2.0', id: 7, method: 'ping', params: {} },
    { jsonrpc: '2.0', id: 8, method: 'ping' },
  ];
  for (const line of lines) stdin.write(JSON.stringify(line) + '\n');
  t.ok(await waitFor(() => written.length === 6 && handed.length === 3), 'six answered, three handed over');
  t.match(written, [
    {
      id: 1,
      error: { code: -32600, message: 'Invalid Request: "params" must be an object when present, not "x"' },
    },
    { id: 2, error: { code: -32600, message: /not null$/ } },
    {
      id: 3,
      error: { code: -32602, message: /^Invalid params: "params" must be an object .* not an array$/ },
    },
    { id: 4, error: { code: -32600, message: 'Invalid Request: "method" must be a string, not 7' } },
    { id: 5, error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0", not missing' } },
    { id: 'six', error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0", not "1.0"' } },
  ]);
  t.match(handed, [{ method: 'notifications/progress' }, { id: 7 }, { id: 8 }]);
  t.same(skipped, ['{"method":"ping"}'], 'a line with no id to answer under is skipped, as before');
  t.match(dropped, [
    /^refused a ping request from the client: "params"/,
    /tools\/list/,
    /tools\/call/,
    /refused a request/,
  ]);
  await transport.close();
});

t.test('an initialize with a wrong or missing field is answered Invalid Params, saying which', async (t) => {
  const dropped: string[] = [];
  const { stdin, transport, written, handed } = await piped({ onDropped: (why) => dropped.push(why) });
  const clientInfo = { name: 'c', version: '1' };
  const initialize = (id: number, params: unknown) =>
    stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params }) + '\n');
  initialize(1, { protocolVersion: 20250618, capabilities: {}, clientInfo });
  initialize(2, { protocolVersion: '2025-06-18', capabilities: {} });
  initialize(3, { protocolVersion: '2025-06-18', capabilities: {}, clientInfo });
  // Sent as a notification, it is not answered (nothing answers a notification): the SDK's to ignore.
  stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'initialize', params: {} }) + '\n');
  t.ok(await waitFor(() => written.length === 2 && handed.length === 2), 'two answered, two handed over');
  t.match(written, [
    {
      id: 1,
      error: { code: -32602, message: /^invalid initialize request: .*string.*at params\.protocolVersion$/ },
    },
    { id: 2, error: { code: -32602, message: /at params\.clientInfo$/ } },
  ]);
  t.match(
    handed,
    [{ id: 3, method: 'initialize' }, { method: 'initialize' }],
    "a well-formed one is the SDK's",
  );
  t.equal(written.length, 2, 'the notification got no answer');
  t.match(dropped, [/^refused the client's initialize: invalid initialize request/, /clientInfo/]);
  await transport.close();
});

t.test('what is open when the client closes its input', async (t) => {
  const { stdin, transport, written, handed } = await piped();
  const line = (message: object) => stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  line({ id: 1, method: 'tools/list' });
  line({ id: 2, method: 'tools/call', params: { name: 'slow' } });
  line({ id: 3, method: 'subscriptions/listen', params: {} }); // answered only when it ends
  line({ id: 4, method: 'ping' });
  line({ method: 'notifications/cancelled', params: { requestId: 4 } }); // gets no answer
  t.ok(await waitFor(() => handed.length === 5));
  t.equal(transport.unanswered, 2, 'the list and the call are owed');
  await transport.send({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
  t.equal(transport.unanswered, 1, 'an answer settles its request');
  // mcpmux asks the client (a child's sampling, say): it answers the first, not the second.
  await transport.send({ jsonrpc: '2.0', id: 'ask-1', method: 'sampling/createMessage', params: {} });
  await transport.send({ jsonrpc: '2.0', id: 'ask-2', method: 'roots/list' });
  line({ id: 'ask-1', result: { role: 'assistant', content: { type: 'text', text: 'hi' } } });
  t.ok(await waitFor(() => handed.length === 6), 'its answer is handed over');
  stdin.end();
  t.ok(await waitFor(() => handed.length === 7), 'at the end of its input…');
  t.match(
    handed[6],
    { id: 'ask-2', error: { code: -32000, message: /closed its input/ } },
    '…the open question fails',
  );
  await transport.send({ jsonrpc: '2.0', id: 'ask-3', method: 'roots/list' });
  t.ok(await waitFor(() => handed.length === 8), 'and a later one at once');
  t.match(handed[7], { id: 'ask-3', error: { message: /closed its input/ } });
  t.notOk(
    written.some((m) => m['id'] === 'ask-3'),
    'without being written',
  );
  t.equal(transport.unanswered, 1, 'the call is still owed');
  await transport.send({ jsonrpc: '2.0', id: 2, result: { content: [] } });
  t.equal(transport.unanswered, 0);
  t.ok(await waitFor(() => transport.flushed), 'and written');
  t.match(written.at(-1), { id: 2 }, 'its answer went out after the end of the input');
  await transport.close();
});
