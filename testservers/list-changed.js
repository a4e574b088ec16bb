// @ts-check
// Simulates: a server whose tools change at run time and that sends its own
// notifications/tools/list_changed. `add_tool {name}` adds a tool; `touch` sends
// list_changed without changing anything.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'list-changed', version: '1.0.0' });
server.registerTool('add_tool', { description: 'Register a new tool', inputSchema: { name: z.string() } }, ({ name }) => {
  server.registerTool(name, { description: `Tool ${name}, added at run time` }, () => ({ content: [{ type: 'text', text: name }] }));
  return { content: [{ type: 'text', text: `added ${name}` }] };
});
server.registerTool('touch', { description: 'Send list_changed without a change' }, () => {
  server.sendToolListChanged();
  return { content: [{ type: 'text', text: 'touched' }] };
});
await server.connect(new StdioServerTransport());
