// @ts-check
// Simulates: a server that dies in the middle of a call. Tool `crash` writes a line on
// stderr and exits with CRASH_EXIT_CODE (default 1) without answering; `ok` answers. With
// CRASH_MARKER set, `crash` first creates that file, and while it exists the server refuses
// to start (a server that dies at start after its first crash).
import { existsSync, writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const code = Number(process.env.CRASH_EXIT_CODE ?? 1);
const marker = process.env.CRASH_MARKER;
if (marker && existsSync(marker)) {
  process.stderr.write(`crash-on-call: ${marker} exists, refusing to start\n`);
  process.exit(2);
}
const server = new McpServer({ name: 'crash-on-call', version: '1.0.0' });
server.registerTool('crash', { description: 'Exit the process without answering' }, () => {
  if (marker) writeFileSync(marker, 'crashed');
  process.stderr.write('crash-on-call: exiting on purpose\n');
  process.exit(code);
});
server.registerTool('ok', { description: 'Answer normally' }, () => ({
  content: [{ type: 'text', text: 'ok' }],
}));
await server.connect(new StdioServerTransport());
