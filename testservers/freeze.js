// @ts-check
// Simulates: a server that hangs for a while and then recovers. `freeze {ms}` blocks its
// event loop (no message is read or answered meanwhile, pings included); `ping_me` answers.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'freeze', version: '1.0.0' });
server.registerTool(
  'freeze',
  { description: 'Block the event loop for ms milliseconds', inputSchema: { ms: z.number() } },
  ({ ms }) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // busy: nothing else runs
    }
    return { content: [{ type: 'text', text: `froze ${ms} ms` }] };
  },
);
server.registerTool('ping_me', { description: 'Answer at once' }, () => ({
  content: [{ type: 'text', text: 'here' }],
}));
await server.connect(new StdioServerTransport());
