#!/usr/bin/env node
// @ts-check
// What observing costs a forwarded call: mcpmux with nothing on, with OpenTelemetry on (traces
// and metrics exported over OTLP/HTTP to a receiver on 127.0.0.1 that discards them), and with
// --call-log, beside the bare byte relay. A raw-line client keeps 64 calls in flight to a
// server with no SDK (raw-echo-server.js), so each proxy's CPU time (/proc/PID/stat) is its own
// work. The flows alternate, round after round; medians and ratios are of one run. Run with
// `npm run bench:observing`; writes bench/results/observing.json.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const server = [process.execPath, join(root, 'bench/raw-echo-server.js')];
const CALLS = Number(process.env.BENCH_OBSERVING_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_OBSERVING_ROUNDS ?? 3);
const CONCURRENCY = 64;
const CLOCK_TICKS = 100;

/** CPU time (user + system) of a process so far, in µs. */
function cpuMicros(/** @type {number} */ pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

// An OTLP/HTTP receiver that takes everything and keeps nothing.
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve(undefined)));
const receiverPort = /** @type {import('node:net').AddressInfo} */ (receiver.address()).port;
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-bench-observing-'));

/** A proxy process driven by raw lines. */
function open(/** @type {string[]} */ args, /** @type {Record<string, string>} */ env = {}) {
  const proc = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, ...env },
  });
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

async function flow(
  /** @type {string} */ name,
  /** @type {string[]} */ args,
  /** @type {{ addServer?: boolean, env?: Record<string, string> }} */ { addServer = true, env = {} } = {},
) {
  const f = open(args, env);
  await f.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench-observing', version: '1.0.0' },
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

const mcpmux = [join(root, 'dist/main.js'), '--log-level', 'error'];
const flows = [
  await flow('relay', [join(root, 'bench/byte-relay.js'), 'ev__', ...server], { addServer: false }),
  await flow('mcpmux', mcpmux),
  await flow('mcpmux, OpenTelemetry on', mcpmux, {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiverPort}`,
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
    },
  }),
  await flow('mcpmux, --call-log', [...mcpmux, '--call-log', join(scratch, 'calls.jsonl')]),
];
for (const f of flows) await rounds(f, 2000); // warm-up
for (let r = 0; r < ROUNDS; r++) for (const f of flows) f.runs.push(await rounds(f, CALLS));
for (const f of flows) f.proc.stdin.end();
receiver.close();
rmSync(scratch, { recursive: true, force: true });

const median = (/** @type {number[]} */ xs) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (/** @type {number} */ x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
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
