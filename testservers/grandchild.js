// @ts-check
// Simulates: a server that starts a long-lived process of its own (like an `npx` chain or
// a language server). Tool `grandchild_pid` returns that process's pid, so a test can
// check it dies with the server. With `--detached` the process is a daemon: it starts a
// session of its own (setsid), so it leaves the server's process group, and it ignores
// SIGTERM.
import { spawn } from 'node:child_process';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const detached = process.argv.includes('--detached');
const grandchild = spawn(
  process.execPath,
  ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1 << 30)'],
  { stdio: 'ignore', detached },
);
if (detached) grandchild.unref();
const server = new McpServer({ name: 'grandchild', version: '1.0.0' });
server.registerTool('grandchild_pid', { description: 'The pid of the long-lived child process' }, () => ({
  content: [{ type: 'text', text: String(grandchild.pid) }],
  structuredContent: { pid: grandchild.pid },
}));
await server.connect(new StdioServerTransport());
