// @ts-check
// Simulates: the same server after a rebuild, version 2: `reverse` is new and `add` has a
// new description, so a reload reports added: [reverse], changed: [add].
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'echo', version: '2.0.0' });
server.registerTool(
  'echo',
  { description: 'Echo the message back', inputSchema: { message: z.string() } },
  ({ message }) => ({
    content: [{ type: 'text', text: message }],
  }),
);
server.registerTool(
  'add',
  { description: 'Add two numbers (v2: exact for integers)', inputSchema: { a: z.number(), b: z.number() } },
  ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }),
);
server.registerTool(
  'reverse',
  { description: 'Reverse a string', inputSchema: { text: z.string() } },
  ({ text }) => ({
    content: [{ type: 'text', text: [...text].reverse().join('') }],
  }),
);
await server.connect(new StdioServerTransport());
