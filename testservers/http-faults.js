// @ts-check
// Simulates: a remote streamable HTTP server (2025, with sessions) whose HTTP layer fails on
// demand. It listens on 127.0.0.1 (any port) and prints `listening on <url>` to stderr.
// `echo {message}` answers with the number of the session it ran in. `forget` forgets every
// session right after it answers, as a server restarted behind a load balancer, or one that
// expires sessions, does: a request under a forgotten session gets 404 "Session not found";
// `forget_always` also forgets each new session 300 ms after it opened (sessions that end at
// once). `fail_next {status, body, count}` answers the next `count` requests (default 1) with
// that HTTP status and body, as an expired token (401), a rate limit (429) or a gateway (502) would.
// `big {bytes}` answers with a text of that many bytes; `big_notice {bytes}` sends a log message
// of that size on the call's stream, then answers "done". `flood_next {bytes, as}` answers the
// next request with that many bytes of no JSON at all, as one SSE event (`as: "sse"`) or as an
// application/json body, written as the socket takes them, and prints on stderr how much went
// before the reader closed the connection. `malformed_next {as}` answers the
// next request with an error JSON-RPC does not allow (no code), as an SSE event or a JSON body.
// A session opened at `/mcp?json` answers with JSON bodies rather than SSE streams.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** @type {Map<string, StreamableHTTPServerTransport>} */
const sessions = new Map();
let opened = 0;
let forgetAlways = false;
/** @type {{ status: number, body: string, count: number } | undefined} */
let failing;
/** @type {{ bytes: number, as: 'sse' | 'json' } | undefined} */
let flooding;
/** @type {'sse' | 'json' | undefined} */
let malformed;

const forgetAll = (afterMs = 20) =>
  setTimeout(() => {
    for (const transport of sessions.values()) void transport.close();
    sessions.clear();
  }, afterMs);

function build(number) {
  const server = new McpServer({ name: 'http-faults', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: `${message} (session ${number})` }],
  }));
  server.registerTool('forget', { inputSchema: {} }, async () => {
    forgetAll();
    return { content: [{ type: 'text', text: 'forgetting every session' }] };
  });
  server.registerTool(
    'fail_next',
    { inputSchema: { status: z.number().int(), body: z.string(), count: z.number().int().optional() } },
    async ({ status, body, count }) => {
      failing = { status, body, count: count ?? 1 };
      return { content: [{ type: 'text', text: `the next ${failing.count} request(s) get HTTP ${status}` }] };
    },
  );
  server.registerTool('big', { inputSchema: { bytes: z.number().int() } }, async ({ bytes }) => ({
    content: [{ type: 'text', text: 'x'.repeat(bytes) }],
  }));
  server.registerTool(
    'big_notice',
    { inputSchema: { bytes: z.number().int() } },
    async ({ bytes }, extra) => {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: 'x'.repeat(bytes) },
      });
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  server.registerTool(
    'flood_next',
    { inputSchema: { bytes: z.number().int(), as: z.enum(['sse', 'json']) } },
    async ({ bytes, as }) => {
      flooding = { bytes, as };
      return { content: [{ type: 'text', text: `the next request gets ${bytes} bytes as ${as}` }] };
    },
  );
  server.registerTool('malformed_next', { inputSchema: { as: z.enum(['sse', 'json']) } }, async ({ as }) => {
    malformed = as;
    return { content: [{ type: 'text', text: `the next request gets a malformed answer as ${as}` }] };
  });
  server.registerTool('forget_always', { inputSchema: {} }, async () => {
    forgetAlways = true;
    forgetAll();
    return { content: [{ type: 'text', text: 'forgetting every session, now and from now on' }] };
  });
  return server;
}

const http = createServer(async (req, res) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  const body = text ? JSON.parse(text) : undefined;
  const id = req.headers['mcp-session-id'];
  if (failing && failing.count > 0 && body?.method !== 'notifications/cancelled') {
    failing.count--;
    res.writeHead(failing.status, { 'content-type': 'text/plain' });
    return res.end(failing.body);
  }
  if (flooding && body?.method && body.id !== undefined) {
    const { bytes, as } = flooding;
    flooding = undefined;
    return flood(res, bytes, as);
  }
  if (malformed && body?.method && body.id !== undefined) {
    const answer = JSON.stringify({
      jsonrpc: '2.0',
      id: body.id,
      error: { message: 'an error without a code' },
    });
    const sse = malformed === 'sse';
    malformed = undefined;
    res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
    return res.end(sse ? `event: message\ndata: ${answer}\n\n` : answer);
  }
  if (typeof id === 'string') {
    const transport = sessions.get(id);
    if (transport) return transport.handleRequest(req, res, body);
    res.writeHead(404, { 'content-type': 'application/json' });
    return res.end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
    );
  }
  if (req.method === 'POST' && body?.method === 'initialize') {
    const number = ++opened;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: new URL(req.url ?? '/', 'http://x').searchParams.has('json'),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport);
        process.stderr.write(`session ${number} opened\n`);
      },
    });
    await build(number).connect(transport);
    await transport.handleRequest(req, res, body);
    if (forgetAlways) forgetAll(300);
    return;
  }
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no session' }, id: null }));
});
/** Writes `bytes` of no JSON, as the socket takes them: a server answering with far too much. */
async function flood(res, bytes, as) {
  res.writeHead(200, { 'content-type': as === 'sse' ? 'text/event-stream' : 'application/json' });
  if (as === 'sse') res.write('event: message\ndata: ');
  const block = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  for (; sent < bytes && !res.destroyed; sent += block.length)
    if (!res.write(block))
      await new Promise((resolve) => {
        const go = () => resolve(res.off('drain', go).off('close', go));
        res.on('drain', go).on('close', go);
      });
  res.end(as === 'sse' ? '\n\n' : '');
  // What the reader took before it closed the connection (or all of it), for the tests to read.
  process.stderr.write(`flood of ${bytes} bytes ${res.destroyed ? `cut after ${sent}` : 'sent whole'}\n`);
}

http.listen(0, '127.0.0.1', () => {
  const address = /** @type {import('node:net').AddressInfo} */ (http.address());
  process.stderr.write(`listening on http://127.0.0.1:${address.port}/mcp\n`);
});
