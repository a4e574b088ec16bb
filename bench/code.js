#!/usr/bin/env node
// @ts-check
// Code mode, measured. One task — "of the 200 people in the knowledge graph, which live in
// Berlin and joined in 2019?" — done with direct tool calls (what reaches the client is the
// tools' results) and with one execute_code (what reaches it is the answer): bytes, approximate
// tokens, round trips, wall time. Then the sandbox's own cost per run (p50, p99): in process
// (strip + a fresh QuickJS runtime in a warm worker) and end to end through mcpmux, and
// mcpmux's peak RSS. Writes bench/results/code.json. Run with `npm run bench:code`.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { SandboxPool, toSandboxScript, createLogger } from '../dist/internals.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const memoryServer = join(
  dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
  'dist/index.js',
);
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-bench-code-'));
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 200);
const results = /** @type {Record<string, any>} */ ({
  date: new Date().toISOString(),
  node: process.version,
});
const bytesOf = (/** @type {unknown} */ value) => Buffer.byteLength(JSON.stringify(value));
const tokens = (/** @type {number} */ bytes) => Math.ceil(bytes / 4);
const quantile = (/** @type {number[]} */ xs, /** @type {number} */ p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return (
    Math.round(1000 * (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN)) / 1000
  );
};

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(root, 'dist/main.js'), '--expose', 'code', '--log-level', 'error'],
  stderr: 'ignore',
});
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(transport);
const call = async (/** @type {string} */ name, /** @type {Record<string, unknown>} */ args = {}) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result;
};
await call('add_server', {
  name: 'memory',
  command: process.execPath,
  args: [memoryServer],
  env: { MEMORY_FILE_PATH: join(scratch, 'graph.jsonl') },
});

// 200 people; five live in Berlin and joined in 2019.
const cities = ['Berlin', 'Lisbon', 'Osaka', 'Lagos', 'Lima', 'Oslo', 'Austin', 'Pune'];
const people = Array.from({ length: 200 }, (_, i) => ({
  name: `Person ${String(i).padStart(3, '0')}`,
  entityType: 'person',
  observations: [
    `lives in ${cities[i % cities.length]}`,
    `joined ${i % 40 === 0 ? 2019 : 2015 + (i % 4)}`,
    `works on project ${i % 13}`,
    `email person${i}@example.com`,
  ],
}));
await call('call_tool', { name: 'memory__create_entities', arguments: { entities: people } });
const expected = people
  .filter((p) => p.observations.includes('lives in Berlin') && p.observations.includes('joined 2019'))
  .map((p) => p.name);

// Direct: the client reads the graph and filters it itself (the model reads every entity).
let started = performance.now();
const graph = await call('memory__read_graph');
const directMs = performance.now() - started;
const directBytes = bytesOf(graph);
// A narrower direct strategy: search for the city, then the model filters by year.
started = performance.now();
const searched = await call('memory__search_nodes', { query: 'Berlin' });
const searchMs = performance.now() - started;
const searchBytes = bytesOf(searched);

// Code mode: one program, one answer.
const program = `
  const { entities } = await tools.memory.read_graph();
  return entities
    .filter((e) => e.observations.includes('lives in Berlin') && e.observations.includes('joined 2019'))
    .map((e) => e.name);`;
started = performance.now();
const executed = await call('execute_code', { code: program });
const codeMs = performance.now() - started;
const codeBytes = bytesOf(executed);
const answer = /** @type {any} */ (executed.structuredContent).return_value;
if (JSON.stringify(answer) !== JSON.stringify(expected))
  throw new Error(`execute_code answered ${JSON.stringify(answer)}, expected ${JSON.stringify(expected)}`);

results['task'] = {
  question: 'Of 200 people in server-memory, which live in Berlin and joined in 2019?',
  answer: expected,
  direct_read_graph: {
    round_trips: 1,
    bytes_to_client: directBytes,
    approx_tokens: tokens(directBytes),
    wall_ms: Math.round(directMs * 10) / 10,
  },
  direct_search_nodes: {
    round_trips: 1,
    bytes_to_client: searchBytes,
    approx_tokens: tokens(searchBytes),
    wall_ms: Math.round(searchMs * 10) / 10,
  },
  execute_code: {
    round_trips: 1,
    bytes_to_client: codeBytes,
    approx_tokens: tokens(codeBytes),
    wall_ms: Math.round(codeMs * 10) / 10,
  },
  token_reduction_vs_read_graph_percent: Math.round(1000 * (1 - codeBytes / directBytes)) / 10,
  token_reduction_vs_search_nodes_percent: Math.round(1000 * (1 - codeBytes / searchBytes)) / 10,
};

// The sandbox's own cost: a trivial program, end to end, against a trivial tool call.
const timed = async (/** @type {() => Promise<unknown>} */ f) => {
  const times = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  return times;
};
await timed(() => call('execute_code', { code: 'return 1' })); // warm both workers
const trivialProgram = await timed(() => call('execute_code', { code: 'return 1' }));
const directCall = await timed(() => call('memory__open_nodes', { names: ['Person 000'] }));
const programWithCall = await timed(() =>
  call('execute_code', { code: "return await tools.memory.open_nodes({ names: ['Person 000'] })" }),
);
results['end_to_end_ms'] = {
  rounds: ROUNDS,
  execute_code_return_1: { p50: quantile(trivialProgram, 0.5), p99: quantile(trivialProgram, 0.99) },
  direct_tool_call: { p50: quantile(directCall, 0.5), p99: quantile(directCall, 0.99) },
  execute_code_one_tool_call: { p50: quantile(programWithCall, 0.5), p99: quantile(programWithCall, 0.99) },
  sandbox_overhead_p50:
    Math.round(1000 * (quantile(programWithCall, 0.5) - quantile(directCall, 0.5))) / 1000,
};
const status = readFileSync(`/proc/${transport.pid}/status`, 'utf8');
const kb = (/** @type {string} */ field) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
results['mcpmux_memory_mb'] = {
  rss_now: Math.round(kb('VmRSS') / 1024),
  rss_peak: Math.round(kb('VmHWM') / 1024),
};
await client.close();

// In process: strip + run on a warm worker, no MCP around it.
const pool = new SandboxPool({
  logger: createLogger({ level: 'error', sink: () => {} }),
  memoryBytes: 128 * 1024 * 1024,
  concurrency: 1,
});
const limits = { timeoutMs: 30_000, memoryBytes: 128 * 1024 * 1024, maxToolCalls: 200, maxLogBytes: 1 << 20 };
const noTools = async () => ({ ok: /** @type {const} */ (false), error: 'none' });
const inProcess = await timed(async () =>
  pool.run({ script: await toSandboxScript('return 1'), catalog: {}, limits, callTool: noTools }),
);
await pool.close();
results['sandbox_in_process_ms'] = {
  rounds: ROUNDS,
  p50: quantile(inProcess.slice(5), 0.5),
  p99: quantile(inProcess.slice(5), 0.99),
};
rmSync(scratch, { recursive: true, force: true });

mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/code.json'), JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
