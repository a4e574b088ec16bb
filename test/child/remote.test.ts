// Remote children: server-everything served over streamable HTTP and over the older
// HTTP+SSE on 127.0.0.1, added by URL. Header values stay secret; a server that goes away
// is reported crashed; reload_server reconnects.
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import t from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { npmServerPath } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { taggedEnv, waitFor } from '../helpers/processes.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** server-everything in an HTTP mode on `port`, resolved once it listens. */
async function httpEverything(mode: 'streamableHttp' | 'sse', port: number): Promise<ChildProcess> {
  const proc = await ChildProcess.spawn({
    command: process.execPath,
    args: [npmServerPath('@modelcontextprotocol/server-everything'), mode],
    env: taggedEnv({ PORT: String(port) }),
  });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  if (!(await waitFor(() => /listening|running on port/i.test(stderr), 20_000)))
    throw new Error(`server-everything ${mode} did not start: ${stderr}`);
  return proc;
}

t.test(
  'streamable HTTP: tools work, headers stay secret, a drop is a crash, reload reconnects',
  async (t) => {
    const port = await freePort();
    let server = await httpEverything('streamableHttp', port);
    const h = await startHarness(t);
    const url = `http://127.0.0.1:${port}/mcp`;
    const added = await h.callJson('add_server', {
      name: 'web',
      url,
      headers: { Authorization: 'Bearer sekrit-123' },
    });
    t.ok(added.tools.some((x: { name: string }) => x.name === 'web__echo'));
    t.match(textOf(await h.call('web__echo', { message: 'over http' })), /over http/);
    const [status] = (await h.callJson('list_servers')).servers;
    t.match(status, {
      name: 'web',
      status: 'running',
      transport: 'http',
      url,
      headers: ['Authorization'],
      http_transport: 'streamable-http',
    });
    t.notMatch(JSON.stringify(status) + h.logs.join('\n'), /sekrit/, 'the header value is never shown');

    await server.stop({ stdinGraceMs: 0 });
    const failed = await h.call('web__echo', { message: 'anyone?' });
    t.ok(failed.isError);
    // In flight when the crash is seen, or after it (a loaded machine): the same reason either way.
    t.match(
      textOf(failed),
      /server 'web' (is )?crashed \(connection to http:\/\/127\.0\.0\.1:\d+\/mcp lost \((ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET)\)\)/,
    );
    const crashed = (await h.callJson('list_servers')).servers[0];
    // Refused, or cut under a request sent as the server went (the ping sent on its stream's end).
    t.match(crashed, {
      status: 'crashed',
      last_error: /connection to .* lost \((ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET)\)/,
    });
    t.notOk((await h.toolNames()).includes('web__echo'), 'its tools are withdrawn');

    server = await httpEverything('streamableHttp', port);
    await h.callJson('reload_server', { name: 'web' });
    t.match(textOf(await h.call('web__echo', { message: 'back' })), /back/, 'reload_server reconnects');
    await h.callJson('remove_server', { name: 'web' });
    await server.stop({ stdinGraceMs: 0 });
    await h.close();
  },
);

t.test('an old HTTP+SSE server is reached by falling back from streamable HTTP', async (t) => {
  const port = await freePort();
  const server = await httpEverything('sse', port);
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'old', url: `http://127.0.0.1:${port}/sse` });
  t.match(textOf(await h.call('old__echo', { message: 'via sse' })), /via sse/);
  t.equal((await h.callJson('list_servers')).servers[0].http_transport, 'sse');
  await h.callJson('remove_server', { name: 'old' });
  await server.stop({ stdinGraceMs: 0 });
  await h.close();
});

t.test('a URL where nothing listens fails add_server with the reason, and registers nothing', async (t) => {
  const port = await freePort();
  const h = await startHarness(t);
  const result = await h.call('add_server', { name: 'gone', url: `http://127.0.0.1:${port}/mcp` });
  t.match(
    textOf(result),
    new RegExp(`server 'gone' could not be reached at http://127.0.0.1:${port}/mcp: ECONNREFUSED`),
  );
  t.notMatch(textOf(result), /stderr/, 'a remote server has no stderr to speak of');
  t.same((await h.callJson('list_servers')).servers, []);
  // A port fetch refuses to use: its innermost reason, not only 'fetch failed'.
  t.match(
    textOf(await h.call('add_server', { name: 'blocked', url: 'http://127.0.0.1:1/mcp' })),
    /could not be reached at http:\/\/127\.0\.0\.1:1\/mcp: .*fetch failed \(bad port\)/,
  );
  await h.close();
});

t.test('an address that answers but is not an MCP endpoint fails add_server saying what came', async (t) => {
  // A web server, not an MCP one: a page, a status object, and 404 elsewhere.
  const web = createHttpServer((req, res) => {
    if (req.url === '/page')
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>\n<h1>Welcome</h1></html>');
    else if (req.url === '/status')
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(web.address() as { port: number }).port}`;
  const h = await startHarness(t);
  const added = async (path: string) => textOf(await h.call('add_server', { name: 'web', url: base + path }));
  t.match(
    await added('/page'),
    /could not be reached at .*\/page: the server's answer is not JSON-RPC: it sent text\/html: <html> <h1>Welcome<\/h1><\/html> \[STARTUP_FAILED\]$/,
  );
  t.match(
    await added('/status'),
    /could not be reached at .*\/status: the server's answer is not JSON-RPC: it sent application\/json: \{"status":"ok"\} \[STARTUP_FAILED\]$/,
  );
  t.match(
    await added('/mcp'),
    /could not be reached at .*\/mcp: streamable HTTP's POST was answered HTTP 404 \(.*Not Found.*\), and HTTP\+SSE's GET HTTP 404 \(.*\); is it the server's MCP endpoint\? \[STARTUP_FAILED\]$/,
    'both ways of reaching it, each with its answer',
  );
  t.same((await h.callJson('list_servers')).servers, [], 'nothing registered');
  await h.close();
  await new Promise((resolve) => web.close(resolve));
});

for (const mode of ['streamableHttp', 'sse'] as const) {
  t.test(
    `${mode}: a call in flight when the server goes down ends at once with the crash, not at the next ping`,
    async (t) => {
      const port = await freePort();
      const server = await httpEverything(mode, port);
      // Pings an hour apart: only the transport's own error can tell mcpmux the server went down.
      const h = await startHarness(t, { connection: { pingIntervalMs: 3_600_000 } });
      const path = mode === 'sse' ? 'sse' : 'mcp';
      await h.callJson('add_server', { name: 'web', url: `http://127.0.0.1:${port}/${path}` });
      const inFlight = h.call('web__trigger-long-running-operation', { duration: 60, steps: 60 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await server.stop({ stdinGraceMs: 0 });
      const ended = await inFlight;
      t.ok(ended.isError);
      t.match(
        textOf(ended),
        /server 'web' crashed \(connection to .* lost \((ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET)\)\); call reload_server/,
      );
      t.match((await h.callJson('list_servers')).servers[0], { status: 'crashed' });
      await h.close();
    },
  );
}
