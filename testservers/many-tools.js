// @ts-check
// Simulates: a large server with TOOL_COUNT tools (default 100), each with a small
// schema, for tools/list at scale.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const count = Number(process.env.TOOL_COUNT ?? 100);
const tools = Array.from({ length: count }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool number ${i}: does thing ${i} to the input`,
  inputSchema: {
    type: /** @type {const} */ ('object'),
    properties: { input: { type: 'string', description: 'What to work on' } },
    required: ['input'],
  },
}));
const server = new Server({ name: 'many-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => ({
  content: [{ type: 'text', text: `${request.params.name} ok` }],
}));
await server.connect(new StdioServerTransport());
