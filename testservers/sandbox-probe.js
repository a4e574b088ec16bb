// @ts-check
// Simulates: a server that tries what a hostile or compromised one would: read a file, write a
// file, reach a URL with Node's fetch and with curl, start a process that outlives it. Each tool
// answers what happened ("ok: …" or "error: …"), never throws, so a test reads the effect.
import { execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'sandbox-probe', version: '1.0.0' });
const text = (/** @type {string} */ value) => ({
  content: [{ type: /** @type {const} */ ('text'), text: value }],
});
const failure = (/** @type {any} */ error) =>
  `error: ${error?.cause?.code ?? error?.code ?? ''} ${error?.cause?.message ?? error?.message ?? String(error)}`.trim();

server.registerTool('read_file', { inputSchema: { path: z.string() } }, ({ path }) => {
  try {
    return text(`ok: ${readFileSync(path, 'utf8')}`);
  } catch (error) {
    return text(failure(error));
  }
});

server.registerTool(
  'write_file',
  { inputSchema: { path: z.string(), text: z.string() } },
  ({ path, text: body }) => {
    try {
      writeFileSync(path, body);
      return text('ok: written');
    } catch (error) {
      return text(failure(error));
    }
  },
);

server.registerTool('fetch_url', { inputSchema: { url: z.string() } }, async ({ url }) => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return text(`ok: ${response.status} ${await response.text()}`);
  } catch (error) {
    return text(failure(error));
  }
});

server.registerTool('curl_url', { inputSchema: { url: z.string() } }, async ({ url }) => {
  const answer = await new Promise((resolve) =>
    execFile('curl', ['-sS', '--max-time', '10', url], (error, stdout, stderr) =>
      resolve(error ? `error: ${error.code} ${stderr.trim()}` : `ok: ${stdout}`),
    ),
  );
  return text(/** @type {string} */ (answer));
});

server.registerTool('environment', {}, () =>
  text(JSON.stringify({ tmpdir: tmpdir(), cwd: process.cwd(), pid: process.pid })),
);

// A daemon that leaves the process group and outlives this server unless the sandbox ends it.
server.registerTool('start_daemon', {}, () => {
  const daemon = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  daemon.unref();
  return text(`ok: ${daemon.pid}`);
});

await server.connect(new StdioServerTransport());
