// @ts-check
// Simulates: a remote streamable HTTP server (2025, with sessions) whose HTTP layer fails on
// demand. It listens on 127.0.0.1 (any port) and prints `listening on <url>` to stderr.
// `echo {message}` answers with the number of the session it ran in. `forget` forgets every
// session right after it answers, as a server restarted behind a load balancer, or one that
// expires sessions, does: a request under a forgotten session gets 404 "Session not found";
// `forget_always` also forgets each new session 300 ms after it opened (sessions that end at
// once). `fail_next {status, body, count}` answers the next `count` requests (default 1) with
// that HTTP status and body, as an expired token (401), a rate limit (429) or a gateway (502) would.
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

const forgetAll = (afterMs = 20) =>
  setTimeout(() => {
    for (const transport of sessions.values()) void transport.close();
    sessions.clear();
  }, afterMs);

function build(number) {
  const server = new McpServer({ name: 'http-faults', version: '1.0.0' });
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
http.listen(0, '127.0.0.1', () => {
  const address = /** @type {import('node:net').AddressInfo} */ (http.address());
  process.stderr.write(`listening on http://127.0.0.1:${address.port}/mcp\n`);
});
