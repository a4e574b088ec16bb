// @ts-check
// Simulates: a long tool call that reports progress and honours cancellation. `wait`
// sends a progress notification every interval_ms for `steps` steps; `last_wait` says how
// the previous wait ended (completed or cancelled); `request_id` names the call's JSON-RPC id.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

let lastWait = 'none';
const server = new McpServer({ name: 'slow-call', version: '1.0.0' });
server.registerTool(
  'wait',
  {
    description: 'Wait, reporting progress',
    inputSchema: { steps: z.number().int(), interval_ms: z.number().int() },
  },
  async ({ steps, interval_ms }, extra) => {
    lastWait = 'running';
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, interval_ms));
      if (extra.signal.aborted) {
        lastWait = 'cancelled';
        return { content: [{ type: 'text', text: 'cancelled' }] };
      }
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps },
        });
      }
    }
    lastWait = 'completed';
    return { content: [{ type: 'text', text: `waited ${steps} steps` }] };
  },
);
server.registerTool('last_wait', { description: 'How the last wait ended' }, () => ({
  content: [{ type: 'text', text: lastWait }],
}));
// Which id the call came under: mcpmux's fast path gives each forwarded call one of its own.
server.registerTool('request_id', { description: 'The JSON-RPC id this call came under' }, (extra) => ({
  content: [{ type: 'text', text: String(extra.requestId) }],
}));
await server.connect(new StdioServerTransport());
