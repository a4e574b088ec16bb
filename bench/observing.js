#!/usr/bin/env node
// @ts-check
// What observing costs a forwarded call: mcpmux with nothing on, with OpenTelemetry on (traces
// and metrics exported over OTLP/HTTP to a receiver on 127.0.0.1 that discards them), and with
// --call-log, beside the bare byte relay. A raw-line client keeps 64 calls in flight to a
// server with no SDK (raw-echo-server.js), so each proxy's CPU time (/proc/PID/stat) is its own
// work. The flows alternate, round after round; medians and ratios are of one run. Run with
// `npm run bench:observing`; writes bench/results/observing.json.
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RAW_ECHO_SERVER, flow, median, round, rounds } from './raw-flow.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const server = RAW_ECHO_SERVER;
const CALLS = Number(process.env.BENCH_OBSERVING_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_OBSERVING_ROUNDS ?? 3);

// An OTLP/HTTP receiver that takes everything and keeps nothing.
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve(undefined)));
const receiverPort = /** @type {import('node:net').AddressInfo} */ (receiver.address()).port;
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-bench-observing-'));

const mcpmux = [join(root, 'dist/main.js'), '--log-level', 'error'];
const flows = [
  await flow('relay', [join(root, 'bench/byte-relay.js'), 'ev__', ...server]),
  await flow('mcpmux', mcpmux, { addServer: true }),
  await flow('mcpmux, OpenTelemetry on', mcpmux, {
    addServer: true,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
    },
  }),
  await flow('mcpmux, --call-log', [...mcpmux, '--call-log', join(scratch, 'calls.jsonl')], {
    addServer: true,
  }),
];
for (const f of flows) await rounds(f, 2000); // warm-up
for (let r = 0; r < ROUNDS; r++) for (const f of flows) f.runs.push(await rounds(f, CALLS));
for (const f of flows) f.proc.stdin.end();
receiver.close();
rmSync(scratch, { recursive: true, force: true });

const figures = flows.map((f) => ({
  name: f.name,
  cpu: median(f.runs.map((r) => r.cpu)),
  perSecond: median(f.runs.map((r) => r.perSecond)),
}));
const plain = figures[1];
if (!plain) throw new Error('unreachable');
const results = {
  date: new Date().toISOString(),
  node: process.version,
  calls_per_round: CALLS,
  rounds: ROUNDS,
  flows: figures.map((f) => ({
    name: f.name,
    cpu_us_per_call: round(f.cpu),
    calls_per_s: Math.round(f.perSecond),
    cpu_to_mcpmux: round(f.cpu / plain.cpu),
    cpu_to_relay: round(f.cpu / figures[0].cpu),
  })),
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/observing.json'), JSON.stringify(results, null, 2) + '\n');
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
