// @ts-check
// Simulates: a plain, well-behaved server, version 1. Tools: echo, add.
// Paired with echo-v2.js to show that reload_server picks up new code and reports the diff.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'echo', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Echo the message back', inputSchema: { message: z.string() } },
  ({ message }) => ({
    content: [{ type: 'text', text: message }],
  }),
);
server.registerTool(
  'add',
  { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
  ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }),
);
await server.connect(new StdioServerTransport());
