// mcpmux served to clients of MCP's first HTTP transport (2024-11-05, HTTP+SSE): a GET opens
// the session's event stream, whose first event says where to POST. Driven with the SDK's own
// SSE client and by hand: the same servers and notifications as streamable HTTP, the same
// front door (Host, Origin, token, session cap), and a session that ends with its stream.
import { request, type IncomingHttpHeaders } from 'node:http';
import { Client, SSEClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import t from 'tap';
import { assertEverythingInstructions, recordWireProgress } from '../helpers/client-calls.js';
import { fixture, fixturePath, npmServerPath } from '../helpers/fixtures.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, matchLogged, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const text = (r: unknown) =>
  (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** The session stream of an HTTP+SSE client, read by hand: its events as they come. */
interface RawStream {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  events: () => { event: string; data: string }[];
  close: () => void;
  pause: () => void;
  resume: () => void;
}

function openStream(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const stream: RawStream = {
        status: res.statusCode!,
        headers: res.headers,
        body: '',
        events: () =>
          stream.body
            .split('\n\n')
            .filter((block) => block.startsWith('event: '))
            .map((block) => {
              const [event, data] = block.split('\n');
              return { event: event!.slice('event: '.length), data: data!.slice('data: '.length) };
            }),
        close: () => req.destroy(),
        pause: () => res.pause(),
        resume: () => res.resume(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (stream.body += chunk));
      res.on('error', () => {});
      // An error answer ends at once; a stream is handed over once its first event is in.
      if (res.statusCode !== 200) res.on('end', () => resolve(stream));
      else res.once('data', () => resolve(stream));
    });
    req.on('error', reject);
    req.end();
  });
}

function post(url: string, body: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const base = (url: string) => url.replace(/\/mcp$/, '');
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw-sse', version: '1' } },
};

t.test("the SDK's HTTP+SSE client: tools, a server added at runtime, list_changed, progress", async (t) => {
  const served = await startMcpmuxHttp([]);
  const client = new Client({ name: 'sse-client', version: '1.0.0' });
  let listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
  await client.connect(new SSEClientTransport(new URL(`${base(served.url)}/sse`)));
  await matchLogged(
    t,
    () => served.stderr(),
    /HTTP\+SSE session \S+ opened \(1 open\)/,
    'logged as an HTTP+SSE session',
  );

  t.match(
    text(await client.callTool({ name: 'add_server', arguments: { name: 'slow', ...fixture('slow-call') } })),
    /"status": "running"/,
  );
  t.ok(await waitFor(() => listChanged > 0), 'list_changed reaches the stream');
  t.ok((await client.listTools()).tools.some((tool) => tool.name === 'slow__wait'));
  const progress: number[] = [];
  const wire = recordWireProgress(client);
  const waited = await client.callTool(
    { name: 'slow__wait', arguments: { steps: 3, interval_ms: 20 } },
    { onprogress: (p) => void progress.push(p.progress) },
  );
  t.equal(text(waited), 'waited 3 steps', 'a call through the fast path is answered on the stream');
  t.same(wire, { values: [1, 2, 3], late: 0 }, 'with its progress, all of it before the answer');
  t.same(progress, [1, 2, 3].slice(0, progress.length), 'what the SDK handed on (see recordWireProgress)');

  await client.close();
  t.ok(
    await waitFor(() => /HTTP session \S+ closed \(0 open\)/.test(served.stderr())),
    'the session ends with its stream',
  );
  await served.stop();
  await assertNoLeaks(t);
});

t.test(
  'by hand: the endpoint event, 202 for each message, batches, and a session that ends with its stream',
  async (t) => {
    const served = await startMcpmuxHttp([]);
    // A client given the one URL falls back to GET it for events (the spec's rule for old clients).
    for (const path of ['/sse', '/mcp']) {
      const stream = await openStream(`${base(served.url)}${path}`);
      t.equal(stream.status, 200, `GET ${path}`);
      t.match(stream.headers['content-type'], /^text\/event-stream/);
      const endpoint = stream.events()[0]!;
      t.equal(endpoint.event, 'endpoint');
      t.match(endpoint.data, /^\/messages\?sessionId=[0-9a-f-]{36}$/);
      const messages = `${base(served.url)}${endpoint.data}`;

      const accepted = await post(messages, JSON.stringify(INITIALIZE));
      t.same(accepted, { status: 202, text: 'Accepted' });
      t.ok(
        await waitFor(() => stream.events().some((e) => e.event === 'message')),
        'the answer comes on the stream',
      );
      t.match(JSON.parse(stream.events()[1]!.data), { id: 1, result: { protocolVersion: '2024-11-05' } });
      await post(messages, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      const batch = [
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_servers', arguments: {} } },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ];
      t.equal((await post(messages, JSON.stringify(batch))).status, 202, 'a batch');
      t.ok(await waitFor(() => stream.events().length >= 4), 'each of its messages is answered');
      t.same(
        stream
          .events()
          .slice(2)
          .map((e) => JSON.parse(e.data).id)
          .sort(),
        [2, 3],
      );

      // An id MCP does not allow is refused on the stream, not dropped (the SDK drops it).
      await post(messages, '{"jsonrpc":"2.0","id":1e21,"method":"ping"}');
      t.ok(
        await waitFor(() => stream.events().some((e) => /Invalid Request: the id/.test(e.data))),
        'an id past 2^53 is answered with an Invalid Request error',
      );

      // So is an initialize with a wrong field (the SDK answers it as an internal error, in raw JSON).
      await post(
        messages,
        JSON.stringify({ ...INITIALIZE, id: 9, params: { ...INITIALIZE.params, clientInfo: {} } }),
      );
      t.ok(
        await waitFor(() =>
          stream
            .events()
            .some((e) =>
              /"id":9,"error":\{"code":-32602,"message":"invalid initialize request: .*at params\.clientInfo\.name/.test(
                e.data,
              ),
            ),
        ),
        'a malformed initialize is answered Invalid Params, naming the field',
      );

      const notRpc = await post(messages, JSON.stringify({ hello: 'world' }));
      t.equal(notRpc.status, 400);
      t.match(JSON.parse(notRpc.text), { error: { message: /not a JSON-RPC 2\.0 message/ } });
      t.equal((await post(messages, '{"jsonrpc":')).status, 400, 'a body that is not JSON');

      stream.close();
      t.ok(
        await waitFor(
          async () =>
            (await post(messages, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }))).status === 404,
        ),
        'once its stream is closed, the session is gone',
      );
    }
    const unknown = await post(`${base(served.url)}/messages?sessionId=nope`, JSON.stringify(INITIALIZE));
    t.equal(unknown.status, 404);
    t.match(JSON.parse(unknown.text), { error: { message: /unknown session .* GET \/sse/ } });
    t.equal((await post(`${base(served.url)}/sse`, '{}')).status, 405, 'POST /sse');
    const getMessages = await fetch(`${base(served.url)}/messages?sessionId=nope`);
    t.equal(getMessages.status, 405, 'GET /messages');
    t.equal(getMessages.headers.get('allow'), 'POST');
    t.match(await getMessages.json(), { error: { message: /post messages to \/messages\?sessionId=/ } });
    await served.stop();
    await assertNoLeaks(t);
  },
);

t.test("a session opened as mcpmux starts is given the configured server's instructions", async (t) => {
  const everything = npmServerPath('@modelcontextprotocol/server-everything');
  const served = await startMcpmuxHttp(['--', 'ev', process.execPath, everything, 'stdio']);
  // Its stream opens (the endpoint event) once the server has started, up to 5 s.
  const client = new Client({ name: 'legacy', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`${base(served.url)}/sse`)));
  assertEverythingInstructions(t, client.getInstructions());
  t.ok(
    (await client.listTools()).tools.some((tool) => tool.name === 'ev__echo'),
    'ev runs',
  );
  await client.close();
  await served.stop();
  await assertNoLeaks(t);
});

t.test('the same front door: Host and Origin, the token, the session cap', async (t) => {
  const served = await startMcpmuxHttp(['--auth-token', 'sesame', '--max-sessions', '1']);
  const sse = `${base(served.url)}/sse`;
  const port = new URL(served.url).port;
  const auth = { authorization: 'Bearer sesame' };
  t.equal((await openStream(sse)).status, 401, 'no token');
  t.equal(
    (await openStream(sse, { ...auth, host: `evil.example.com:${port}` })).status,
    403,
    'a foreign Host',
  );
  t.equal(
    (await openStream(sse, { ...auth, origin: 'http://evil.example.com' })).status,
    403,
    'a foreign Origin',
  );

  const first = await openStream(sse, auth);
  t.equal(first.status, 200);
  const messages = `${base(served.url)}${first.events()[0]!.data}`;
  t.equal((await post(messages, JSON.stringify(INITIALIZE))).status, 401, 'each POST needs the token too');
  t.equal(
    (await post(messages, JSON.stringify(INITIALIZE), { ...auth, origin: 'http://evil.example.com' })).status,
    403,
    'and a POST from a foreign page is refused before it reaches the session',
  );
  const second = await openStream(sse, auth);
  t.equal(second.status, 503, 'an HTTP+SSE session counts against --max-sessions');
  t.match(second.body, /--max-sessions/);
  first.close();
  t.ok(
    await waitFor(async () => {
      const next = await openStream(sse, auth);
      next.close();
      return next.status === 200;
    }),
    'its place is free once its stream closes',
  );
  await served.stop();
  await assertNoLeaks(t);
});

t.test(
  'a client that stops reading its stream loses log messages past 1 MB, never its answer, and is told',
  async (t) => {
    const COUNT = 20_000; // ~5 MB of log messages of 250 bytes
    const served = await startMcpmuxHttp(['--', 'flood', process.execPath, fixturePath('log-flood')]);
    t.ok(await waitFor(() => served.stderr().includes("server 'flood' is running"), 15_000), 'started');
    const stream = await openStream(`${base(served.url)}/sse`);
    const messages = `${base(served.url)}${stream.events()[0]!.data}`;
    await post(messages, JSON.stringify(INITIALIZE));
    await post(messages, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await post(
      messages,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'info' } }),
    );
    stream.pause();
    const call = { name: 'flood__flood', arguments: { count: COUNT, bytes: 250 } };
    t.equal(
      (await post(messages, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: call })))
        .status,
      202,
    );
    t.ok(
      await waitFor(() => new RegExp(`flood: sent ${COUNT}\\b`).test(served.stderr()), 60_000),
      'the child was not held back while the client read nothing',
    );
    await matchLogged(t, () => served.stderr(), /its log messages and progress are dropped until it does/);
    stream.resume();
    const told = () => /mcpmux: (\d+) log and progress message\(s\) were dropped/.exec(stream.body);
    t.ok(
      await waitFor(() => told() !== null && /"id":3,/.test(stream.body), 20_000),
      'the answer, and how many were dropped',
    );
    const delivered = stream.body.match(/"logger":"flood"/g)?.length ?? 0;
    t.equal(delivered + Number(told()![1]), COUNT, 'every message delivered or counted');
    stream.close();
    await served.stop();
    await assertNoLeaks(t);
  },
);
