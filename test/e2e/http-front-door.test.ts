// The HTTP front door of the built mcpmux: a foreign Host or Origin (DNS rebinding) never
// reaches a handler; the bearer token; idle sessions end and give back what they held; the
// session cap; bodies past --max-message-bytes (1,000 abandoned sessions: http-session-churn).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startMcpmuxHttp, type HttpMcpmux } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { INITIALIZE, PROTOCOL, callTool, inSession, openSession, post } from '../helpers/raw-http.js';

t.teardown(() => killTaggedProcesses());

async function stop(t: Test, served: HttpMcpmux): Promise<void> {
  await served.stop();
  await assertNoLeaks(t);
}

t.test('DNS rebinding: a foreign Host or Origin gets 403 and reaches no handler', async (t) => {
  const served = await startMcpmuxHttp([]);
  const { url } = served;
  const port = new URL(url).port;
  const foreign = await post(url, INITIALIZE, {
    Host: `evil.example.com:${port}`,
    Origin: `http://evil.example.com:${port}`,
  });
  t.equal(foreign.status, 403);
  t.match(JSON.parse(foreign.text), {
    error: {
      message: /Invalid Host: evil\.example\.com: mcpmux answers only to localhost, 127\.0\.0\.1, \[::1\]/,
    },
  });
  t.equal(
    (await post(url, INITIALIZE, { Origin: 'http://evil.example.com' })).status,
    403,
    'a loopback Host with a foreign Origin',
  );
  t.equal((await post(url, INITIALIZE, { Origin: 'null' })).status, 403, "an opaque origin ('null')");
  t.notMatch(served.stderr(), /HTTP session .* opened/, 'no session was opened');
  t.ok(
    await waitFor(() =>
      /refused HTTP POST \/mcp from 127\.0\.0\.1: Invalid Host: evil\.example\.com/.test(served.stderr()),
    ),
    'logged',
  );

  // An open session, reached from a foreign page: the call that would spawn a program is refused before any handler.
  const id = await openSession(url);
  const attack = await post(
    url,
    callTool('add_server', { name: 'pwn', ...fixture('echo-v1') }),
    inSession(id, { Origin: 'http://evil.example.com' }),
  );
  t.equal(attack.status, 403);
  const listed = await post(url, callTool('list_servers', {}, 3), inSession(id));
  t.match(listed.text, /"structuredContent":\{"servers":\[\],/, 'nothing was added');
  t.notMatch(served.stderr(), /audit: spawn/, 'nothing was spawned');

  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'localhost']) {
    t.equal(
      (await post(url, INITIALIZE, { Host: host, Origin: `http://${host}` })).status,
      200,
      `Host ${host} is accepted`,
    );
  }
  await stop(t, served);
});

t.test('--allowed-host and --allowed-origin widen the door for a reverse proxy', async (t) => {
  const served = await startMcpmuxHttp([
    '--allowed-host',
    'mux.example.com',
    '--allowed-origin',
    'https://app.example.com',
  ]);
  const { url } = served;
  t.equal((await post(url, INITIALIZE, { Host: 'mux.example.com' })).status, 200);
  t.equal((await post(url, INITIALIZE, { Host: 'other.example.com' })).status, 403);
  t.equal((await post(url, INITIALIZE, { Origin: 'https://app.example.com' })).status, 200);
  t.equal(
    (await post(url, INITIALIZE, { Origin: 'http://app.example.com:8080' })).status,
    403,
    'a full origin must match scheme and port too',
  );
  t.equal(
    (await post(url, INITIALIZE, { Origin: 'https://mux.example.com' })).status,
    200,
    'an allowed host is an allowed origin',
  );
  await stop(t, served);
});

t.test('the bearer token: 401 with WWW-Authenticate, logged without the token', async (t) => {
  const served = await startMcpmuxHttp(['--auth-token', 'tok-12345']);
  const missing = await post(served.url, INITIALIZE);
  t.equal(missing.status, 401);
  t.equal(missing.headers['www-authenticate'], 'Bearer realm="mcpmux"');
  const wrong = await post(served.url, INITIALIZE, { Authorization: 'Bearer tok-1234' });
  t.equal(wrong.status, 401);
  t.match(JSON.parse(wrong.text), { error: { message: 'wrong bearer token' } });
  t.equal((await post(served.url, INITIALIZE, { Authorization: 'Bearer tok-12345' })).status, 200);
  t.ok(
    await waitFor(() =>
      /refused HTTP POST \/mcp from 127\.0\.0\.1: missing bearer token/.test(served.stderr()),
    ),
    'logged',
  );
  t.notMatch(served.stderr(), /tok-1234/, 'no token in the log');
  await stop(t, served);
});

t.test(
  'an idle session ends; a connected client with its stream open does not; DELETE ends one at once',
  async (t) => {
    const served = await startMcpmuxHttp(['--session-idle-timeout', '1']);
    const { url } = served;
    const abandoned = await openSession(url);
    t.ok(
      await waitFor(() => served.stderr().includes(`HTTP session ${abandoned} expired after`), 10_000),
      'the abandoned session expired',
    );
    const late = await post(url, callTool('list_servers'), inSession(abandoned));
    t.equal(late.status, 404);
    t.match(late.text, /unknown session \(it was closed or expired\); initialize a new one/);

    const client = new Client({ name: 'live', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    const live = transport.sessionId!;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    t.notMatch(served.stderr(), new RegExp(`session ${live} expired`), 'its open stream keeps it');
    const result = (await client.callTool({ name: 'list_servers', arguments: {} })) as CallToolResult;
    t.notOk(result.isError, 'it still works after more than the idle timeout');
    await client.close(); // sends no DELETE: the session must end by itself
    t.ok(
      await waitFor(() => served.stderr().includes(`HTTP session ${live} expired after`), 10_000),
      'once the client went away, it expired',
    );

    const deleted = await openSession(url);
    const response = await fetch(url, { method: 'DELETE', headers: inSession(deleted) });
    t.equal(response.status, 200);
    t.ok(await waitFor(() => served.stderr().includes(`HTTP session ${deleted} closed`)), 'DELETE closes it');
    await stop(t, served);
  },
);

t.test('--max-sessions: past the cap a clear 503; a closed session frees its place', async (t) => {
  const served = await startMcpmuxHttp(['--max-sessions', '2']);
  const { url } = served;
  const first = await openSession(url);
  await openSession(url);
  const refused = await post(url, INITIALIZE);
  t.equal(refused.status, 503);
  t.equal(refused.headers['retry-after'], '60');
  t.match(JSON.parse(refused.text), {
    error: { message: /mcpmux has 2 HTTP sessions open, its limit \(--max-sessions\)/ },
  });
  t.ok(await waitFor(() => /refused a new HTTP session from 127\.0\.0\.1/.test(served.stderr())), 'logged');
  await fetch(url, { method: 'DELETE', headers: inSession(first) });
  t.ok(await waitFor(async () => (await post(url, INITIALIZE)).status === 200), 'a place is free again');
  await stop(t, served);
});

t.test('an initialize with a wrong or missing field is told which, and takes no place', async (t) => {
  const served = await startMcpmuxHttp(['--max-sessions', '1']);
  const { url } = served;
  const params = INITIALIZE.params;
  const cases: [string, unknown, RegExp][] = [
    [
      'a number for protocolVersion',
      { ...params, protocolVersion: 20250618 },
      /expected string.*params\.protocolVersion/,
    ],
    ['no clientInfo', { protocolVersion: PROTOCOL, capabilities: {} }, /params\.clientInfo/],
    ['a clientInfo without version', { ...params, clientInfo: { name: 'x' } }, /params\.clientInfo\.version/],
    ['no params', undefined, /at params/],
  ];
  for (const [what, wrong, names] of cases) {
    const answer = await post(url, { ...INITIALIZE, id: 7, params: wrong });
    t.equal(answer.status, 400, what);
    t.equal(answer.headers['mcp-session-id'], undefined, `${what}: no session`);
    const { error, id } = JSON.parse(answer.text);
    t.equal(id, 7, `${what}: the answer carries its id`);
    t.equal(error.code, -32602);
    t.match(error.message, /^invalid initialize request: /);
    t.match(error.message, names, `${what}: says which field`);
  }
  t.match(
    JSON.parse((await post(url, callTool('list_servers'))).text),
    {
      error: { message: 'no session: the first request must be initialize' },
    },
    'another request without a session is still told to initialize first',
  );
  t.equal((await post(url, INITIALIZE)).status, 200, 'the one place was kept for a good initialize');
  await stop(t, served);
});

t.test('a client whose session ended takes no place by reopening its stream without one', async (t) => {
  const served = await startMcpmuxHttp(['--max-sessions', '1']);
  const { url } = served;
  // The SDK's client, once it has ended its session (DELETE), reopens its event stream with
  // no session id; old HTTP+SSE clients GET the one URL the same way, but name no version.
  const sessionless: Promise<number>[] = [];
  const client = new Client({ name: 'leaver', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: async (input, init) => {
        const answer = fetch(input, init);
        const headers = new Headers(init?.headers);
        if (init?.method === 'GET' && !headers.has('mcp-session-id'))
          sessionless.push(answer.then((r) => r.status));
        return answer;
      },
    }),
  );
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  t.ok(await waitFor(() => sessionless.length > 0), 'the client reopens its stream with no session');
  t.equal(await sessionless[0], 400, 'and is told it needs one');
  t.equal((await post(url, INITIALIZE)).status, 200, 'the one place is free for a new session');
  const old = await new Promise<number>((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      resolve(res.statusCode!);
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
  t.equal(old, 503, "an old client's GET still asks for a session (none free now)");
  await client.close();
  await stop(t, served);
});

t.test('a call in flight when its session ends is answered with why, at once', async (t) => {
  const { command, args } = fixture('slow-call');
  const served = await startMcpmuxHttp(['--', 'slow', command, ...args]);
  const connect = async () => {
    const client = new Client({ name: 'caller', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(served.url));
    await client.connect(transport);
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    // Bounded below the SDK's own 60 s, so that a call left waiting fails this test soon.
    const call = client.callTool(
      { name: 'slow__wait', arguments: { steps: 200, interval_ms: 100 } },
      { timeout: 15_000, onprogress: () => running() },
    );
    await started; // its first progress: it runs at the server
    return {
      client,
      transport,
      outcome: call.then(
        () => 'answered',
        (error: Error) => error.message,
      ),
    };
  };

  // The client ends its session (DELETE) with a call out.
  const leaving = await connect();
  await leaving.transport.terminateSession();
  t.match(await leaving.outcome, /the session ended before this request was answered \[SESSION_ENDED\]/);
  await leaving.client.close();

  // mcpmux shuts down with a call out.
  const staying = await connect();
  await served.stop();
  t.match(await staying.outcome, /mcpmux is shutting down \[SESSION_ENDED\]/);
  await staying.client.close();
  await assertNoLeaks(t);
});

t.test(
  'a session that ends gives back its subscriptions; children log at the level the remaining sessions asked for',
  async (t) => {
    const served = await startMcpmuxHttp(['--session-idle-timeout', '1']);
    const { url } = served;
    const keeper = new Client({ name: 'keeper', version: '1' });
    await keeper.connect(new StreamableHTTPClientTransport(new URL(url)));
    await keeper.callTool({
      name: 'add_server',
      arguments: { name: 'subs', ...fixture('tracks-subscriptions') },
    });
    await keeper.setLoggingLevel('error');
    const state = async () =>
      JSON.parse(
        ((await keeper.callTool({ name: 'subs__state', arguments: {} })) as CallToolResult).content
          .map((c) => (c.type === 'text' ? c.text : ''))
          .join(''),
      );

    const leaver = await openSession(url);
    const headers = inSession(leaver);
    t.equal(
      (
        await post(
          url,
          { jsonrpc: '2.0', id: 5, method: 'resources/subscribe', params: { uri: 'memo://note' } },
          headers,
        )
      ).status,
      200,
    );
    t.equal(
      (
        await post(
          url,
          { jsonrpc: '2.0', id: 6, method: 'logging/setLevel', params: { level: 'debug' } },
          headers,
        )
      ).status,
      200,
    );
    t.same(
      await state(),
      { subscribed: ['memo://note'], level: 'debug' },
      'the most verbose level asked for',
    );

    await keeper.subscribeResource({ uri: 'memo://note' });
    const other = await openSession(url);
    await post(
      url,
      { jsonrpc: '2.0', id: 7, method: 'resources/subscribe', params: { uri: 'memo://note' } },
      inSession(other),
    );
    await post(
      url,
      { jsonrpc: '2.0', id: 8, method: 'resources/unsubscribe', params: { uri: 'memo://note' } },
      inSession(other),
    );
    t.same(
      (await state()).subscribed,
      ['memo://note'],
      "one session's unsubscribe leaves the others' subscription",
    );

    t.ok(await waitFor(() => served.stderr().includes(`HTTP session ${leaver} expired`), 10_000));
    t.ok(
      await waitFor(async () => (await state()).level === 'error'),
      "the child is back at the remaining session's level",
    );
    t.same((await state()).subscribed, ['memo://note'], 'still subscribed for the session that is left');
    await keeper.unsubscribeResource({ uri: 'memo://note' });
    t.same((await state()).subscribed, [], 'the last one out ends it at the child');
    await keeper.close();
    await stop(t, served);
  },
);

t.test("an expired session's spilled results are deleted with it", async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'mcpmux-spill-'));
  t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
  const served = await startMcpmuxHttp(['--session-idle-timeout', '1', '--max-result-bytes', '1024'], {
    env: { TMPDIR: tmp },
  });
  const id = await openSession(served.url);
  t.equal(
    (await post(served.url, callTool('add_server', { name: 'big', ...fixture('big-result') }), inSession(id)))
      .status,
    200,
  );
  const spilled = await post(served.url, callTool('big__lines', { bytes: 50_000 }, 3), inSession(id));
  t.match(spilled.text, /read_result/, 'the result was cut and kept');
  t.equal(
    readdirSync(tmp).filter((name) => name.startsWith('mcpmux-results-')).length,
    1,
    'kept in a private directory',
  );
  t.ok(await waitFor(() => served.stderr().includes(`HTTP session ${id} expired`), 10_000));
  t.ok(
    await waitFor(() => readdirSync(tmp).filter((name) => name.startsWith('mcpmux-results-')).length === 0),
    'gone with the session',
  );
  await stop(t, served);
});

t.test('a body past --max-message-bytes gets 413, and the session goes on', async (t) => {
  const served = await startMcpmuxHttp(['--max-message-bytes', '65536']);
  const id = await openSession(served.url);
  const big = await post(
    served.url,
    callTool('call_tool', { name: 'x', arguments: { s: 'y'.repeat(100_000) } }),
    inSession(id),
  );
  t.equal(big.status, 413);
  t.match(JSON.parse(big.text), {
    error: { message: 'request body over 65536 bytes, the limit (--max-message-bytes)' },
  });
  t.equal((await post(served.url, callTool('list_servers'), inSession(id))).status, 200);
  await stop(t, served);
});

t.test(
  "a body that is not JSON gets 400 with JSON-RPC's parse error (-32700), and the session goes on",
  async (t) => {
    const served = await startMcpmuxHttp([]);
    const id = await openSession(served.url);
    const broken = await post(
      served.url,
      Buffer.from('{"jsonrpc": "2.0", "id": 3, "method": "tools/list"'),
      inSession(id),
    );
    t.equal(broken.status, 400);
    t.match(JSON.parse(broken.text), {
      id: null,
      error: { code: -32700, message: /^request body is not JSON: / },
    });
    t.equal((await post(served.url, callTool('list_servers'), inSession(id))).status, 200);
    await stop(t, served);
  },
);
