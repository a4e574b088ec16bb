// @ts-check
// Simulates: a 2025 server that dies on any method it does not know before initialize, such
// as the 2026-07-28 probe (server/discover), saying so on stderr (with EXIT_QUIETLY=1, without
// a word). Started with initialize, it works: tool `echo`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

process.stdin.on('data', (chunk) => {
  if (String(chunk).includes('"server/discover"')) {
    if (process.env.EXIT_QUIETLY !== '1')
      process.stderr.write('unknown method before initialize: server/discover\n');
    process.exit(3);
  }
});
const server = new McpServer({ name: 'exit-on-discover', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Echo the message back', inputSchema: { message: z.string() } },
  ({ message }) => ({ content: [{ type: 'text', text: message }] }),
);
await server.connect(new StdioServerTransport());
