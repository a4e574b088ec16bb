#!/usr/bin/env node
// @ts-check
// What mcpmux adds, measured side by side in one run: server-everything's `echo` called
// directly and through the built mcpmux (median, p99, a 200-call burst), add_server against
// a direct connect, tools/list with 50 children × 100 tools, and mcpmux's RSS with them.
// Prints a table and writes bench/results/core.json. Run with `npm run bench`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const everything = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const manyTools = join(root, 'testservers/many-tools.js');
const mcpmux = join(root, 'dist/main.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS_PER_ROUND = Number(process.env.BENCH_CALLS ?? 200);

/** @param {string[]} args */
async function connect(args) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  await client.connect(transport);
  return { client, transport };
}

/** @param {number[]} xs @param {number} q */
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const ms = (/** @type {bigint} */ ns) => Number(ns) / 1e6;
const round = (/** @type {number} */ x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** @param {Client} client @param {string} tool */
async function sequential(client, tool, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await client.callTool({ name: tool, arguments: { message: `m${i}` } });
    times.push(ms(process.hrtime.bigint() - t0));
  }
  return times;
}

/** @param {Client} client @param {string} tool */
async function burst(client, tool, n) {
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: n }, (_, i) => client.callTool({ name: tool, arguments: { message: `b${i}` } })));
  return ms(process.hrtime.bigint() - t0);
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

const results = { date: new Date().toISOString(), node: process.version, rounds: ROUNDS, calls_per_round: CALLS_PER_ROUND };

// 1. Latency and burst: direct and proxied, alternating rounds so both see the same machine load.
{
  const direct = await connect([everything, 'stdio']);
  const proxied = await connect([mcpmux, '--log-level', 'error']);
  await proxied.client.callTool({ name: 'add_server', arguments: { name: 'everything', command: process.execPath, args: [everything, 'stdio'] } });
  // Warm up both paths (JIT, caches).
  await sequential(direct.client, 'echo', 100);
  await sequential(proxied.client, 'everything__echo', 100);
  const d = [], p = [], db = [], pb = [];
  for (let r = 0; r < ROUNDS; r++) {
    d.push(...(await sequential(direct.client, 'echo', CALLS_PER_ROUND)));
    p.push(...(await sequential(proxied.client, 'everything__echo', CALLS_PER_ROUND)));
    db.push(await burst(direct.client, 'echo', 200));
    pb.push(await burst(proxied.client, 'everything__echo', 200));
  }
  results.latency = {
    direct_median_ms: round(quantile(d, 0.5)),
    proxied_median_ms: round(quantile(p, 0.5)),
    median_ratio: round(quantile(p, 0.5) / quantile(d, 0.5), 2),
    direct_p99_ms: round(quantile(d, 0.99)),
    proxied_p99_ms: round(quantile(p, 0.99)),
    p99_ratio: round(quantile(p, 0.99) / quantile(d, 0.99), 2),
  };
  results.burst_200 = {
    direct_median_ms: round(quantile(db, 0.5), 1),
    proxied_median_ms: round(quantile(pb, 0.5), 1),
    ratio: round(quantile(pb, 0.5) / quantile(db, 0.5), 2),
  };
  await direct.client.close();

  // 2. add_server (spawn, initialize, tools/list) against a direct connect of the same server.
  const adds = [], connects = [];
  for (let r = 0; r < ROUNDS * 2; r++) {
    let t0 = process.hrtime.bigint();
    const c = await connect([everything, 'stdio']);
    await c.client.listTools();
    connects.push(ms(process.hrtime.bigint() - t0));
    await c.client.close();
    t0 = process.hrtime.bigint();
    await proxied.client.callTool({ name: 'add_server', arguments: { name: `ev${r}`, command: process.execPath, args: [everything, 'stdio'] } });
    adds.push(ms(process.hrtime.bigint() - t0));
    await proxied.client.callTool({ name: 'remove_server', arguments: { name: `ev${r}` } });
  }
  results.add_server = {
    direct_connect_median_ms: round(quantile(connects, 0.5), 1),
    add_server_median_ms: round(quantile(adds, 0.5), 1),
    overhead_ms: round(quantile(adds, 0.5) - quantile(connects, 0.5), 1),
  };
  await proxied.client.close();
}

// 3. tools/list at scale and memory: 50 children × 100 tools.
{
  const proxied = await connect([mcpmux, '--log-level', 'error']);
  const pid = proxied.transport.pid;
  const rssEmpty = pid ? rssMb(pid) : NaN;
  for (let i = 0; i < 50; i++) {
    await proxied.client.callTool({ name: 'add_server', arguments: { name: `many${i}`, command: process.execPath, args: [manyTools], env: { TOOL_COUNT: '100' } } });
  }
  const lists = [];
  let count = 0;
  for (let r = 0; r < 20; r++) {
    const t0 = process.hrtime.bigint();
    count = (await proxied.client.listTools()).tools.length;
    lists.push(ms(process.hrtime.bigint() - t0));
  }
  results.tools_list = { tools: count, median_ms: round(quantile(lists, 0.5), 2), p99_ms: round(quantile(lists, 0.99), 2) };
  results.memory = { rss_empty_mb: round(rssEmpty, 1), rss_50_children_mb: pid ? round(rssMb(pid), 1) : NaN };
  await proxied.client.close();
}

mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/core.json'), JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
