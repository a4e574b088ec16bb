// @ts-check
// Simulates: a server that takes long before it answers anything, like a cold `npx`
// download: it waits SLOW_START_MS (default 2000), or, when SLOW_START_GATE names a file,
// until that file exists (so a test decides when start-up ends). Tool: ready.
import { existsSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const gate = process.env.SLOW_START_GATE;
if (gate) {
  while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 20));
} else {
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.SLOW_START_MS ?? 2000)));
}
const server = new McpServer({ name: 'slow-start', version: '1.0.0' });
server.registerTool('ready', { description: 'Answer once started' }, () => ({
  content: [{ type: 'text', text: 'ready' }],
}));
await server.connect(new StdioServerTransport());
