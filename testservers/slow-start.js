// @ts-check
// Simulates: a server that takes SLOW_START_MS (default 2000) before it answers anything,
// like a cold `npx` download. Tool: ready.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

await new Promise((resolve) => setTimeout(resolve, Number(process.env.SLOW_START_MS ?? 2000)));
const server = new McpServer({ name: 'slow-start', version: '1.0.0' });
server.registerTool('ready', { description: 'Answer once started' }, () => ({ content: [{ type: 'text', text: 'ready' }] }));
await server.connect(new StdioServerTransport());
