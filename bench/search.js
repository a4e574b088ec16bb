#!/usr/bin/env node
// @ts-check
// Context economy, measured: the tokens of tools/list with ten servers behind mcpmux in
// --expose all and --expose search mode (as list_servers reports them), the bytes of both at
// 70 servers with a client that can sample, and tool search at
// 5,000 tools: index build time, heap, and query latency (p50, p99). Writes
// bench/results/search.json. Run with `npm run compile && node bench/search.js`.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { ToolIndex, toolTokens, createLogger, CatalogRouter, EMPTY_CATALOG } from '../dist/internals.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const results = /** @type {Record<string, unknown>} */ ({
  date: new Date().toISOString(),
  node: process.version,
});

// 1. tools/list tokens with ten servers, all vs search. The servers replay tool definitions
// captured from real npm servers (bench/data/real-tools.json): a coding agent's ten.
const TEN = [
  'github',
  'filesystem',
  'playwright',
  'memory',
  'context7',
  'sentry',
  'slack',
  'kubernetes',
  'notion',
  'tavily',
];
const replay = (/** @type {string} */ name) => ({
  name,
  command: process.execPath,
  args: [join(root, 'testservers/catalog-replay.js')],
  env: { REPLAY_SERVER: name },
});
for (const mode of ['all', 'search']) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'dist/main.js'), '--log-level', 'error', '--expose', mode],
      stderr: 'ignore',
    }),
  );
  for (const name of TEN) await client.callTool({ name: 'add_server', arguments: replay(name) });
  const listed = (await client.listTools()).tools;
  const { stats } = /** @type {any} */ (
    (await client.callTool({ name: 'list_servers', arguments: {} })).structuredContent
  );
  results[`tools_list_${mode}`] = {
    servers: TEN,
    tools_listed: listed.length,
    tokens: stats.tools_list_tokens,
    all_tools_tokens: stats.all_tools_tokens,
  };
  if (mode === 'search') results['search_mode_surface'] = listed.map((t) => t.name);
  await client.close();
}
const all = /** @type {any} */ (results['tools_list_all']);
const search = /** @type {any} */ (results['tools_list_search']);
results['search_vs_all_tokens_percent'] = Math.round((1000 * search.tokens) / all.tokens) / 10;

// The share depends on which ten servers: over 10,000 random sets of ten of the 24 captured
// servers, how the search-mode surface compares with listing everything.
const real = JSON.parse(readFileSync(join(root, 'bench/data/real-tools.json'), 'utf8'));
const serverTokens = real.servers.map((/** @type {any} */ s) =>
  toolTokens(s.tools.map((/** @type {any} */ t) => ({ ...t, name: `${s.server}__${t.name}` }))),
);
const managementTokens =
  all.all_tools_tokens -
  TEN.reduce(
    (sum, name) => sum + serverTokens[real.servers.findIndex((/** @type {any} */ s) => s.server === name)],
    0,
  );
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const shares = Array.from({ length: 10_000 }, () => {
  const order = serverTokens.map((tokens) => ({ tokens, key: random() })).sort((a, b) => a.key - b.key);
  const allTokens = managementTokens + order.slice(0, 10).reduce((sum, s) => sum + s.tokens, 0);
  return (100 * search.tokens) / allTokens;
}).sort((a, b) => a - b);
const pct = (/** @type {number} */ p) =>
  Math.round(10 * (shares[Math.floor(p * (shares.length - 1))] ?? NaN)) / 10;
results['search_share_over_random_ten_server_sets'] = {
  sets: shares.length,
  captured_servers: real.servers.length,
  percent_p10: pct(0.1),
  percent_median: pct(0.5),
  percent_p90: pct(0.9),
  sets_under_3_percent: Math.round((1000 * shares.filter((x) => x < 3).length) / shares.length) / 10,
};

// 2. The listed surface at 70 servers, as bytes of tools/list, with a client that declares
// sampling, elicitation and roots (so agent and output are listed too): search mode against
// listing every tool, for three catalogs replayed from real servers (the captured ones and
// MCP-Bench's cycled to 70, MSC-Bench's first 70). The goal is under 3% for each.
const SEVENTY = 70;
/** A config of 70 replayed servers from `file`, as `replayed` names them. */
function seventyServers(/** @type {string} */ file) {
  const catalog = JSON.parse(readFileSync(file, 'utf8'));
  /** @type {Record<string, unknown>} */
  const mcpServers = {};
  for (let i = 0; i < SEVENTY; i++) {
    const server = catalog.servers[i % catalog.servers.length].server;
    const round = Math.floor(i / catalog.servers.length);
    // Server names of the benchmarks' catalogs may hold characters a server name may not.
    const name = `${server
      .replace(/[^a-zA-Z0-9_-]/g, '-')
      .replace(/_+$/, '')
      .replace(/__+/g, '_')}${round ? `-${round + 1}` : ''}`;
    mcpServers[name] = {
      command: process.execPath,
      args: [join(root, 'testservers/catalog-replay.js')],
      env: { REPLAY_SERVER: server, REPLAY_CATALOG: file },
    };
  }
  return mcpServers;
}
const listedBytes = async (/** @type {string} */ config, /** @type {string} */ mode) => {
  const client = new Client(
    { name: 'bench', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } } },
  );
  client.setRequestHandler('roots/list', () => ({ roots: [] }));
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'dist/main.js'), '--log-level', 'error', '--expose', mode, '--config', config],
      stderr: 'ignore',
    }),
  );
  const tools = (await client.listTools()).tools;
  await client.close();
  return { tools: tools.length, bytes: Buffer.byteLength(JSON.stringify(tools)) };
};
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-bench-search-'));
/** @type {Record<string, unknown>} */
const seventy = {};
for (const [label, file] of [
  ['captured', join(root, 'bench/data/real-tools.json')],
  ['mcp_bench', join(root, 'bench/data/mcp-bench.json')],
  ['msc_bench', join(root, 'bench/data/msc-bench.json')],
]) {
  const config = join(scratch, `${label}.json`);
  writeFileSync(config, JSON.stringify({ mcpServers: seventyServers(file) }));
  const everything = await listedBytes(config, 'all');
  const searched = await listedBytes(config, 'search');
  seventy[label] = {
    all_bytes: everything.bytes,
    all_tools: everything.tools,
    search_bytes: searched.bytes,
    search_tools: searched.tools,
    search_percent: Math.round((1000 * searched.bytes) / everything.bytes) / 10,
  };
}
rmSync(scratch, { recursive: true, force: true });
results['search_mode_share_at_70_servers_sampling_client'] = seventy;

// 3. Search at 5,000 tools (in process).
const words =
  'read write list create delete update search find get set file directory issue pull request repository branch commit user team project task note calendar event email message channel image video audio database table query row column index cache queue job log metric alert deploy build test release'.split(
    ' ',
  );
const pick = (/** @type {number} */ i, /** @type {number} */ k) => words[(i * 7 + k * 13) % words.length];
/** @type {Record<string, any[]>} */
const catalog = {};
for (let s = 0; s < 50; s++) {
  catalog[`server${s}`] = Array.from({ length: 100 }, (_, i) => ({
    name: `${pick(i, s)}_${pick(i + 1, s + 3)}_${i}`,
    description: `${pick(i, 1)} the ${pick(i, 2)} of a ${pick(i, 3)} and return its ${pick(i, 4)} (${s}/${i})`,
    inputSchema: {
      type: 'object',
      properties: {
        [pick(i, 5)]: { type: 'string', description: `the ${pick(i, 6)} to use` },
        limit: { type: 'number' },
      },
    },
  }));
}
const snapshot = {
  version: 1,
  servers: new Map(
    Object.entries(catalog).map(([name, tools]) => [
      name,
      { name, tools, catalog: { ...EMPTY_CATALOG, tools }, connection: /** @type {any} */ ({ name }) },
    ]),
  ),
};
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const index = new ToolIndex({
  router: new CatalogRouter({ logger: createLogger({ level: 'error', sink: () => {} }) }),
});
let t0 = performance.now();
// The first search loads the ranker and builds the index.
await index.search(/** @type {any} */ (snapshot), 'warm up');
const buildMs = performance.now() - t0;
global.gc?.();
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
const queries = Array.from(
  { length: 300 },
  (_, i) => `${pick(i, 1)} a ${pick(i, 3)} ${i % 3 === 0 ? 'quickly' : ''}`,
);
const times = [];
for (const q of queries) {
  t0 = performance.now();
  await index.search(/** @type {any} */ (snapshot), q, { limit: 5 });
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const q = (/** @type {number} */ p) =>
  Math.round(1000 * (times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? NaN)) / 1000;
results['search_5000_tools'] = {
  tools: 5000,
  index_build_ms: Math.round(buildMs),
  index_heap_mb: Math.round(heapMb * 10) / 10,
  query_p50_ms: q(0.5),
  query_p99_ms: q(0.99),
};

mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/search.json'), JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
