// @ts-check
// Simulates: a server that announces each change on its own, many in a burst (as McpServer
// does for every tool registered after connect). `storm {count, interval_ms}` adds `count`
// tools `interval_ms` apart, each with its own tools/list_changed, and answers once all are
// added; `touch` sends tools/list_changed without changing anything.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'list-storm', version: '1.0.0' });
server.registerTool(
  'storm',
  {
    description: 'Add tools one after another, each with its own list_changed',
    inputSchema: { count: z.number().int(), interval_ms: z.number().int() },
  },
  async ({ count, interval_ms }) => {
    for (let i = 1; i <= count; i++) {
      server.registerTool(`storm_${i}`, { description: `Storm tool ${i}` }, () => ({
        content: [{ type: 'text', text: `storm ${i}` }],
      }));
      await new Promise((resolve) => setTimeout(resolve, interval_ms));
    }
    return { content: [{ type: 'text', text: `added ${count}` }] };
  },
);
server.registerTool('touch', { description: 'Send list_changed without a change' }, () => {
  server.sendToolListChanged();
  return { content: [{ type: 'text', text: 'touched' }] };
});
await server.connect(new StdioServerTransport());
