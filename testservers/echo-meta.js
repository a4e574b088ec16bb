// @ts-check
// Simulates: a server whose tools show what a request carried beside its arguments, as an
// instrumented server reads a trace context: `meta` answers the request's params._meta as
// JSON; `fail` answers a tool error (isError) with its message.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'echo-meta', version: '1.0.0' });
server.registerTool('meta', { description: "The request's _meta, as JSON" }, (extra) => ({
  content: [{ type: 'text', text: JSON.stringify(extra._meta ?? {}) }],
}));
server.registerTool(
  'fail',
  { description: 'Fails with the message given', inputSchema: { message: z.string() } },
  ({ message }) => ({ content: [{ type: 'text', text: message }], isError: true }),
);
await server.connect(new StdioServerTransport());
