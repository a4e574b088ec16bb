#!/usr/bin/env node
// @ts-check
// `npm run bench` five times (BENCH_RUNS), one after another, and the range and median of
// each figure that has a target: ratios measured within one run, never across runs.
// Writes bench/results/core-ranges.json. Run with `npm run bench:ranges`.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** The figures kept from each run: a name and where it is in core.json. */
const FIGURES = {
  'sequential median, mcpmux ÷ relay': (/** @type {any} */ r) => r.latency.mcpmux_to_relay,
  'sequential median, mcpmux ÷ direct': (/** @type {any} */ r) => r.latency.median_ratio,
  'sequential median, relay ÷ direct': (/** @type {any} */ r) => r.latency.relay_median_ratio,
  'sequential p99, mcpmux ÷ relay': (/** @type {any} */ r) => r.latency.mcpmux_p99_to_relay,
  'sequential, proxy CPU per call, relay µs': (/** @type {any} */ r) => r.latency.relay_cpu_per_call_us,
  'sequential, proxy CPU per call, mcpmux µs': (/** @type {any} */ r) => r.latency.mcpmux_cpu_per_call_us,
  'sequential, proxy CPU per call, mcpmux ÷ relay': (/** @type {any} */ r) => r.latency.mcpmux_cpu_to_relay,
  '200-call burst, mcpmux ÷ relay': (/** @type {any} */ r) => r.burst_200.mcpmux_to_relay,
  'throughput at concurrency 64, mcpmux ÷ relay': (/** @type {any} */ r) => r.throughput_64.mcpmux_to_relay,
  'throughput at concurrency 64, relay calls/s': (/** @type {any} */ r) => r.throughput_64.relay_calls_per_s,
  'throughput at 64, first 10,000 calls, mcpmux ÷ relay': (/** @type {any} */ r) =>
    r.throughput_64.first_round_mcpmux_to_relay,
  'proxy CPU per call, relay µs': (/** @type {any} */ r) => r.proxy_cpu_per_call.relay_us,
  'proxy CPU per call, mcpmux µs': (/** @type {any} */ r) => r.proxy_cpu_per_call.mcpmux_us,
  'proxy CPU per call, mcpmux ÷ relay': (/** @type {any} */ r) => r.proxy_cpu_per_call.mcpmux_to_relay,
  '2026-07-28 both sides, ÷ direct': (/** @type {any} */ r) =>
    r.eras.modern_client_modern_server.ratio_to_direct,
  '2026-07-28 client, 2025 server, ÷ direct': (/** @type {any} */ r) =>
    r.eras.modern_client_legacy_server.ratio_to_direct,
  'cold start, plain server ms': (/** @type {any} */ r) => r.cold_start.plain_server_ms,
  'cold start, empty mcpmux − plain ms': (/** @type {any} */ r) => r.cold_start.mcpmux_empty_minus_plain_ms,
  'cold start, with server-memory − plain ms': (/** @type {any} */ r) =>
    r.cold_start.with_server_memory_minus_plain_ms,
  'cold start, bare relay in front of it − plain ms': (/** @type {any} */ r) =>
    r.cold_start.relay_floor_minus_plain_ms,
  'cold start, with server-memory − bare relay ms': (/** @type {any} */ r) =>
    r.cold_start.with_server_memory_minus_relay_floor_ms,
  'RSS 0.3 s after first answer, plain MB': (/** @type {any} */ r) => r.memory.rss_idle_plain_server_mb,
  'RSS 0.3 s after first answer, mcpmux MB': (/** @type {any} */ r) => r.memory.rss_idle_mcpmux_mb,
  'RSS idle 10 s, plain server MB': (/** @type {any} */ r) => r.memory.rss_idle_10s_plain_server_mb,
  'RSS idle 10 s, mcpmux MB': (/** @type {any} */ r) => r.memory.rss_idle_10s_mcpmux_mb,
  'RSS with 50 children MB': (/** @type {any} */ r) => r.memory.rss_50_children_mb,
  'RSS with 50 children, 2 s quiet MB': (/** @type {any} */ r) => r.memory.rss_50_children_quiet_2s_mb,
};

/** @type {Record<string, number[]>} */
const values = Object.fromEntries(Object.keys(FIGURES).map((k) => [k, []]));
for (let run = 1; run <= RUNS; run++) {
  process.stderr.write(`run ${run} of ${RUNS}…\n`);
  const done = spawnSync(process.execPath, [join(root, 'bench/run.js')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (done.status !== 0) throw new Error(`bench/run.js failed (exit ${done.status})`);
  const result = JSON.parse(readFileSync(join(root, 'bench/results/core.json'), 'utf8'));
  for (const [name, pick] of Object.entries(FIGURES)) values[name]?.push(pick(result));
}
const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = Object.fromEntries(
  Object.entries(values).map(([name, xs]) => [
    name,
    { min: Math.min(...xs), median: median(xs), max: Math.max(...xs), runs: xs },
  ]),
);
writeFileSync(
  join(root, 'bench/results/core-ranges.json'),
  JSON.stringify(
    { date: new Date().toISOString(), node: process.version, runs: RUNS, figures: summary },
    null,
    2,
  ) + '\n',
);
for (const [name, s] of Object.entries(summary))
  process.stdout.write(
    `${name.padEnd(48)} ${String(s.min).padStart(8)} – ${String(s.max).padEnd(8)} median ${s.median}\n`,
  );
