// @ts-check
// Simulates: a published MCP server, by replaying the tool definitions captured from it
// (bench/data/real-tools.json, or the file in REPLAY_CATALOG). REPLAY_SERVER names the
// server; its tools are listed verbatim, and a call answers with the tool's name and
// arguments. Lets benchmarks and tests run real catalogs without the services behind them.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const file =
  process.env['REPLAY_CATALOG'] ??
  join(dirname(fileURLToPath(import.meta.url)), '../bench/data/real-tools.json');
const name = process.env['REPLAY_SERVER'];
/** @type {{servers: {server: string, tools: import('@modelcontextprotocol/sdk/types.js').Tool[]}[]}} */
const catalog = JSON.parse(readFileSync(file, 'utf8'));
const entry = catalog.servers.find((s) => s.server === name);
if (!entry) {
  process.stderr.write(
    `catalog-replay: no server '${name}' in ${file}; there are ${catalog.servers.map((s) => s.server).join(', ')}\n`,
  );
  process.exit(2);
}
const server = new Server({ name: `replay-${name}`, version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: entry.tools }));
server.setRequestHandler(CallToolRequestSchema, ({ params }) => ({
  content: [{ type: 'text', text: `${params.name} called with ${JSON.stringify(params.arguments ?? {})}` }],
}));
await server.connect(new StdioServerTransport());
