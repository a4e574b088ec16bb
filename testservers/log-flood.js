// @ts-check
// Simulates: a server that logs faster than a client reads. `flood {count, bytes}` sends
// `count` notifications/message of about `bytes` each, each as soon as its transport takes
// it, reports its progress on stderr every 100 ("flood: sent N"), and answers once all
// are sent. `progress_flood {count, bytes}` does the same with notifications/progress of the
// call's progress token.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'log-flood', version: '1.0.0' }, { capabilities: { logging: {} } });
server.registerTool(
  'flood',
  {
    description: 'Send many log messages, then answer',
    inputSchema: { count: z.number().int(), bytes: z.number().int() },
  },
  async ({ count, bytes }) => {
    const pad = 'x'.repeat(bytes);
    for (let i = 1; i <= count; i++) {
      await server.server.sendLoggingMessage({ level: 'info', data: `${i} ${pad}` });
      if (i % 100 === 0) process.stderr.write(`flood: sent ${i}\n`);
    }
    return { content: [{ type: 'text', text: `sent ${count}` }] };
  },
);
server.registerTool(
  'progress_flood',
  {
    description: 'Send many progress notifications for this call, then answer',
    inputSchema: { count: z.number().int(), bytes: z.number().int() },
  },
  async ({ count, bytes }, extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken === undefined) throw new Error('call progress_flood with a progress token');
    const message = 'x'.repeat(bytes);
    for (let progress = 1; progress <= count; progress++) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress, total: count, message },
      });
      if (progress % 100 === 0) process.stderr.write(`flood: sent ${progress}\n`);
    }
    return { content: [{ type: 'text', text: `sent ${count}` }] };
  },
);
await server.connect(new StdioServerTransport());
