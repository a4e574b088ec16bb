// @ts-check
// Simulates: a server that declares more than it serves, as many published servers do. It
// declares tools, prompts and resources; it serves tools/list, has no prompts/list or
// resources/templates/list at all (Method not found), and its resources/list fails (as
// server-postgres's does when its database is down). Its tools must still be usable.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const server = new Server(
  { name: 'partial-catalog', version: '1.0.0' },
  { capabilities: { tools: {}, prompts: {}, resources: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'ping', description: 'Answer pong', inputSchema: { type: 'object', properties: {} } }],
}));
server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'pong' }] }));
server.setRequestHandler(ListResourcesRequestSchema, () => {
  throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
});
await server.connect(new StdioServerTransport());
