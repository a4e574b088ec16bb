#!/usr/bin/env node
// @ts-check
// The proxy's own CPU per forwarded call, measured finely: a client that writes raw JSON-RPC
// lines (64 calls in flight) and a server with no SDK (raw-echo-server.js) leave the proxy as
// the only process with real work, so its CPU time (/proc/PID/stat, user + system) over
// 200,000 calls resolves to a few hundredths of a µs. The bare byte relay and mcpmux
// alternate, five rounds each. Run with `npm run bench:cpu`; writes bench/results/proxy-cpu.json.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const server = [process.execPath, join(root, 'bench/raw-echo-server.js')];
const CALLS = Number(process.env.BENCH_CPU_CALLS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 5);
const CONCURRENCY = 64;
const CLOCK_TICKS = 100;

/** CPU time (user + system) of a process so far, in µs. */
function cpuMicros(/** @type {number} */ pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

/** A proxy process driven by raw lines; `request` resolves with the response to it. */
function open(/** @type {string[]} */ args) {
  const proc = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  /** @type {Map<number, (message: any) => void>} */
  const waiting = new Map();
  let pending = '';
  proc.stdout.setEncoding('utf8').on('data', (/** @type {string} */ chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let id = 0;
  return {
    proc,
    /** @param {string} method @param {object} [params] @returns {Promise<any>} */
    request: (method, params) =>
      new Promise((resolve) => {
        waiting.set(++id, resolve);
        proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      }),
    /** @param {string} method */
    notify: (method) => proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n'),
  };
}

async function flow(/** @type {string} */ name, /** @type {string[]} */ args, addServer = false) {
  const f = open(args);
  await f.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'proxy-cpu', version: '1.0.0' },
  });
  f.notify('notifications/initialized');
  if (addServer) {
    const added = await f.request('tools/call', {
      name: 'add_server',
      arguments: { name: 'ev', command: server[0], args: [server[1]] },
    });
    if (!added.result || added.result.isError) throw new Error(`add_server: ${JSON.stringify(added)}`);
  }
  return { name, ...f, /** @type {{perSecond: number, cpu: number}[]} */ runs: [] };
}

/** `total` calls of ev__echo, CONCURRENCY in flight; calls per second and the proxy's CPU µs per call. */
async function rounds(/** @type {Awaited<ReturnType<typeof flow>>} */ f, /** @type {number} */ total) {
  let issued = 0;
  const cpu0 = cpuMicros(/** @type {number} */ (f.proc.pid));
  const t0 = performance.now();
  const worker = async () => {
    while (issued < total) {
      issued++;
      const answer = await f.request('tools/call', {
        name: 'ev__echo',
        arguments: { message: `m${issued}` },
      });
      if (!answer.result) throw new Error(`call failed: ${JSON.stringify(answer)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return {
    perSecond: (total / (performance.now() - t0)) * 1000,
    cpu: (cpuMicros(/** @type {number} */ (f.proc.pid)) - cpu0) / total,
  };
}

const flows = [
  await flow('relay', [join(root, 'bench/byte-relay.js'), 'ev__', ...server]),
  await flow('mcpmux', [join(root, 'dist/main.js'), '--log-level', 'error'], true),
];
for (const f of flows) await rounds(f, 5000); // warm-up
for (let r = 0; r < ROUNDS; r++) for (const f of flows) f.runs.push(await rounds(f, CALLS));
for (const f of flows) f.proc.stdin.end();

const median = (/** @type {number[]} */ xs) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (/** @type {number} */ x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const [relay, mux] = flows.map((f) => ({
  cpu: median(f.runs.map((r) => r.cpu)),
  perSecond: median(f.runs.map((r) => r.perSecond)),
  cpuRuns: f.runs.map((r) => round(r.cpu)),
}));
if (!relay || !mux) throw new Error('unreachable');
const results = {
  date: new Date().toISOString(),
  node: process.version,
  calls_per_round: CALLS,
  rounds: ROUNDS,
  relay_cpu_us_per_call: round(relay.cpu),
  mcpmux_cpu_us_per_call: round(mux.cpu),
  mcpmux_to_relay_cpu: round(mux.cpu / relay.cpu),
  relay_calls_per_s: Math.round(relay.perSecond),
  mcpmux_calls_per_s: Math.round(mux.perSecond),
  relay_cpu_runs: relay.cpuRuns,
  mcpmux_cpu_runs: mux.cpuRuns,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/proxy-cpu.json'), JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
