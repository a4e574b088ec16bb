// A 2025 HTTP session whose client stops reading its GET stream while a child logs a flood,
// through the built mcpmux: the child is not held back (the flood runs to its end, and the
// call is answered), past 1 MB unread the session's log messages are dropped rather than
// kept, and once the client reads again it is told how many it lost: every message is
// either delivered or counted. The same for a 2026-07-28 client's request stream, which has
// no session: a call whose progress it stops reading.
import http from 'node:http';
import t from 'tap';
import { fixturePath } from '../helpers/fixtures.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const COUNT = 40_000; // of ~330 bytes as SSE: 13 MB

t.test(
  'a client that stops reading its stream loses log messages past 1 MB, and is told how many',
  async (t) => {
    const served = await startMcpmuxHttp(['--', 'flood', process.execPath, fixturePath('log-flood')]);
    t.ok(await waitFor(() => served.stderr().includes("server 'flood' is running"), 15_000), 'started');
    const url = new URL(served.url);
    let session: string | undefined;
    const headers = () => ({
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...(session && { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
    });
    const post = (body: object) =>
      new Promise<string>((resolve, reject) => {
        const req = http.request(url, { method: 'POST', headers: headers() }, (res) => {
          session ??= res.headers['mcp-session-id'] as string | undefined;
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', ...body }));
      });
    await post({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'idle-reader', version: '1' },
      },
    });
    await post({ method: 'notifications/initialized' });
    await post({ id: 2, method: 'logging/setLevel', params: { level: 'info' } });

    // The session's own stream, which the client opens and then stops reading.
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http
        .get(url, { headers: { ...headers(), accept: 'text/event-stream' } }, (res) => {
          res.pause();
          resolve(res);
        })
        .on('error', reject),
    );
    const answer = await post({
      id: 3,
      method: 'tools/call',
      params: { name: 'flood__flood', arguments: { count: COUNT, bytes: 250 } },
    });
    t.match(
      answer,
      `sent ${COUNT}`,
      'the child was not held back: the flood ran to its end and was answered',
    );
    t.match(
      served.stderr(),
      /its log messages and progress are dropped until it does/,
      'mcpmux says it sheds',
    );

    // The client reads again: what waited, then the count of what was dropped.
    let text = '';
    stream.on('data', (d) => (text += d));
    stream.resume();
    const told = () => /mcpmux: (\d+) log and progress message\(s\) were dropped/.exec(text);
    t.ok(await waitFor(() => told() !== null, 20_000), 'told how many were dropped');
    const dropped = Number(told()![1]);
    const delivered = text.match(/"logger":"flood"/g)?.length ?? 0;
    t.ok(dropped > 0 && delivered > 0, `${delivered} delivered, ${dropped} dropped`);
    t.equal(delivered + dropped, COUNT, 'every message delivered or counted');
    stream.destroy();
    await served.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "a 2026-07-28 client that stops reading a call's stream loses progress past 1 MB, and is told before the answer",
  async (t) => {
    const served = await startMcpmuxHttp(['--', 'flood', process.execPath, fixturePath('log-flood')]);
    t.ok(await waitFor(() => served.stderr().includes("server 'flood' is running"), 15_000), 'started');
    const sentAll = new RegExp(`flood: sent ${COUNT}\\b`);
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(
        new URL(served.url),
        {
          method: 'POST',
          headers: {
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'flood__progress_flood',
          },
        },
        (res) => {
          res.pause();
          resolve(res);
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'flood__progress_flood',
            arguments: { count: COUNT, bytes: 250 },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'idle-reader', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
              progressToken: 'p1',
            },
          },
        }),
      );
    });
    t.equal(stream.headers['content-type'], 'text/event-stream', 'the call is answered as a stream');
    t.ok(
      await waitFor(() => sentAll.test(served.stderr()), 60_000),
      'the child was not held back: its flood ran to its end while the client read nothing',
    );
    t.match(
      served.stderr(),
      /a request's client has not read [\d.]+ MB of its stream/,
      'mcpmux says it sheds',
    );

    let text = '';
    stream.on('data', (d) => (text += d));
    stream.resume();
    await new Promise((resolve) => stream.once('end', resolve));
    const told = /mcpmux: (\d+) log and progress message\(s\) were dropped/.exec(text);
    t.ok(told, 'told how many were dropped');
    const dropped = Number(told?.[1]);
    const delivered = text.match(/"notifications\/progress"/g)?.length ?? 0;
    t.ok(dropped > 0 && delivered > 0, `${delivered} delivered, ${dropped} dropped`);
    t.equal(delivered + dropped, COUNT, 'every progress message delivered or counted');
    t.ok(
      text.indexOf('were dropped') < text.indexOf(`sent ${COUNT}`),
      'the count comes before the answer, which ends the stream',
    );
    await served.stop();
    await assertNoLeaks(t);
  },
);
