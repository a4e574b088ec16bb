// @ts-check
// What the CPU benchmarks (proxy-cpu.js, observing.js) share: a proxy process driven by raw
// JSON-RPC lines, its CPU time read from /proc, and rounds of calls with 64 in flight, so that
// the proxy is the only process with real work besides a server with no SDK.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** A server with no SDK behind the proxy: it answers `echo` and nothing else costs. */
export const RAW_ECHO_SERVER = [process.execPath, join(root, 'bench/raw-echo-server.js')];
const CONCURRENCY = 64;
const CLOCK_TICKS = 100;

/** CPU time (user + system) of a process so far, in µs. */
export function cpuMicros(/** @type {number} */ pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}

/** A proxy process driven by raw lines; `request` resolves with the response to it. */
function open(/** @type {string[]} */ args, /** @type {Record<string, string>} */ env) {
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

/** A proxy initialized, with the raw echo server added as `ev` when it is mcpmux (`addServer`). */
export async function flow(
  /** @type {string} */ name,
  /** @type {string[]} */ args,
  /** @type {{ addServer?: boolean, env?: Record<string, string> }} */ { addServer = false, env = {} } = {},
) {
  const f = open(args, env);
  await f.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1.0.0' },
  });
  f.notify('notifications/initialized');
  if (addServer) {
    const added = await f.request('tools/call', {
      name: 'add_server',
      arguments: { name: 'ev', command: RAW_ECHO_SERVER[0], args: [RAW_ECHO_SERVER[1]] },
    });
    if (!added.result || added.result.isError) throw new Error(`add_server: ${JSON.stringify(added)}`);
  }
  return { name, ...f, /** @type {{perSecond: number, cpu: number}[]} */ runs: [] };
}

/** `total` calls of ev__echo, 64 in flight; calls per second and the proxy's CPU µs per call. */
export async function rounds(/** @type {Awaited<ReturnType<typeof flow>>} */ f, /** @type {number} */ total) {
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

export const median = (/** @type {number[]} */ xs) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
export const round = (/** @type {number} */ x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
