// @ts-check
// Simulates: a server under development, whose tools come from its build output. At start
// it reads build/tools.json (in its cwd): a list of tool names, each answering its own name.
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

/** @type {string[]} */
const names = JSON.parse(readFileSync('build/tools.json', 'utf8'));
const server = new McpServer({ name: 'tools-from-file', version: '1.0.0' });
for (const name of names)
  server.registerTool(name, { description: `Tool ${name}` }, () => ({
    content: [{ type: 'text', text: name }],
  }));
await server.connect(new StdioServerTransport());
