// @ts-check
// Simulates: a server that prints log lines on stdout (which belongs to the protocol)
// at start-up and before every answer. Tool: echo.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

process.stdout.write('noisy-stdout: starting up (this is not JSON)\n');
process.stdout.write('{"not": "json-rpc"}\n');
const server = new McpServer({ name: 'noisy-stdout', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Echo the message back', inputSchema: { message: z.string() } },
  ({ message }) => {
    process.stdout.write(`noisy-stdout: handling echo of ${message}\n`);
    return { content: [{ type: 'text', text: message }] };
  },
);
await server.connect(new StdioServerTransport());
