#!/usr/bin/env node
// @ts-check
// Context economy, measured: the tokens of tools/list with ten servers behind mcpmux in
// --expose all and --expose search mode (as list_servers reports them), and tool search at
// 5,000 tools: index build time, heap, and query latency (p50, p99). Writes
// bench/results/search.json. Run with `npm run build && node bench/search.js`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolIndex } from '../dist/catalog/tool-index.js';
import { createLogger } from '../dist/log.js';
import { CatalogRouter } from '../dist/router/catalog-router.js';
import { EMPTY_CATALOG } from '../dist/router/capabilities.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const pkg = (/** @type {string} */ name) => join(dirname(require.resolve(`${name}/package.json`)), 'dist/index.js');
const results = /** @type {Record<string, unknown>} */ ({ date: new Date().toISOString(), node: process.version });

// 1. tools/list tokens with ten servers, all vs search.
const servers = [
  { name: 'everything', command: process.execPath, args: [pkg('@modelcontextprotocol/server-everything'), 'stdio'] },
  { name: 'memory', command: process.execPath, args: [pkg('@modelcontextprotocol/server-memory')] },
  ...Array.from({ length: 8 }, (_, i) => ({ name: `svc${i}`, command: process.execPath, args: [join(root, 'testservers/many-tools.js')], env: { TOOL_COUNT: '15' } })),
];
for (const mode of ['all', 'search']) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(root, 'dist/main.js'), '--log-level', 'error', '--expose', mode], stderr: 'ignore' }));
  for (const server of servers) await client.callTool({ name: 'add_server', arguments: server });
  const listed = (await client.listTools()).tools.length;
  const { stats } = /** @type {any} */ ((await client.callTool({ name: 'list_servers', arguments: {} })).structuredContent);
  results[`tools_list_${mode}`] = { tools_listed: listed, tokens: stats.tools_list_tokens, all_tools_tokens: stats.all_tools_tokens };
  await client.close();
}
const all = /** @type {any} */ (results['tools_list_all']);
const search = /** @type {any} */ (results['tools_list_search']);
results['search_vs_all_tokens_percent'] = Math.round((1000 * search.tokens) / all.tokens) / 10;

// 2. Search at 5,000 tools (in process).
const words = 'read write list create delete update search find get set file directory issue pull request repository branch commit user team project task note calendar event email message channel image video audio database table query row column index cache queue job log metric alert deploy build test release'.split(' ');
const pick = (/** @type {number} */ i, /** @type {number} */ k) => words[(i * 7 + k * 13) % words.length];
/** @type {Record<string, any[]>} */
const catalog = {};
for (let s = 0; s < 50; s++) {
  catalog[`server${s}`] = Array.from({ length: 100 }, (_, i) => ({
    name: `${pick(i, s)}_${pick(i + 1, s + 3)}_${i}`,
    description: `${pick(i, 1)} the ${pick(i, 2)} of a ${pick(i, 3)} and return its ${pick(i, 4)} (${s}/${i})`,
    inputSchema: { type: 'object', properties: { [pick(i, 5)]: { type: 'string', description: `the ${pick(i, 6)} to use` }, limit: { type: 'number' } } },
  }));
}
const snapshot = {
  version: 1,
  servers: new Map(Object.entries(catalog).map(([name, tools]) => [name, { name, tools, catalog: { ...EMPTY_CATALOG, tools }, connection: /** @type {any} */ ({ name }) }])),
};
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const index = new ToolIndex({ router: new CatalogRouter({ logger: createLogger({ level: 'error', sink: () => {} }) }) });
let t0 = performance.now();
index.search(/** @type {any} */ (snapshot), 'warm up');
const buildMs = performance.now() - t0;
global.gc?.();
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
const queries = Array.from({ length: 300 }, (_, i) => `${pick(i, 1)} a ${pick(i, 3)} ${i % 3 === 0 ? 'quickly' : ''}`);
const times = [];
for (const q of queries) {
  t0 = performance.now();
  index.search(/** @type {any} */ (snapshot), q, { limit: 5 });
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const q = (/** @type {number} */ p) => Math.round(1000 * (times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? NaN)) / 1000;
results['search_5000_tools'] = { tools: 5000, index_build_ms: Math.round(buildMs), index_heap_mb: Math.round(heapMb * 10) / 10, query_p50_ms: q(0.5), query_p99_ms: q(0.99) };

mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/search.json'), JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
