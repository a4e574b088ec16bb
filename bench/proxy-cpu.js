#!/usr/bin/env node
// @ts-check
// The proxy's own CPU per forwarded call, measured finely: a client that writes raw JSON-RPC
// lines (64 calls in flight) and a server with no SDK (raw-echo-server.js) leave the proxy as
// the only process with real work, so its CPU time (/proc/PID/stat, user + system) over
// 200,000 calls resolves to a few hundredths of a µs. The bare byte relay and mcpmux
// alternate, five rounds each. Run with `npm run bench:cpu`; writes bench/results/proxy-cpu.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RAW_ECHO_SERVER, flow, median, round, rounds } from './raw-flow.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const server = RAW_ECHO_SERVER;
const CALLS = Number(process.env.BENCH_CPU_CALLS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 5);

const flows = [
  await flow('relay', [join(root, 'bench/byte-relay.js'), 'ev__', ...server]),
  await flow('mcpmux', [join(root, 'dist/main.js'), '--log-level', 'error'], { addServer: true }),
];
for (const f of flows) await rounds(f, 5000); // warm-up
for (let r = 0; r < ROUNDS; r++) for (const f of flows) f.runs.push(await rounds(f, CALLS));
for (const f of flows) f.proc.stdin.end();

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
