// @ts-check
// Simulates: a server that will not stop: it ignores stdin EOF and SIGTERM, so only the
// SIGKILL step of the stop ladder ends it. Tool: ping.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

process.on('SIGTERM', () => process.stderr.write('hang-on-shutdown: ignoring SIGTERM\n'));
process.stdin.on('end', () => process.stderr.write('hang-on-shutdown: ignoring stdin EOF\n'));
process.stderr.write('hang-on-shutdown: ready\n');
setInterval(() => {}, 1 << 30);
const server = new McpServer({ name: 'hang-on-shutdown', version: '1.0.0' });
server.registerTool('ping', { description: 'Answer pong' }, () => ({
  content: [{ type: 'text', text: 'pong' }],
}));
await server.connect(new StdioServerTransport());
