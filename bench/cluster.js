#!/usr/bin/env node
// @ts-check
// What a cluster costs on the call path, in one run: the built mcpmux as 1 and as 3 replicas on
// one Redis behind HAProxy running deploy/haproxy/haproxy.cfg, a 2026-07-28 client calling
// server-everything's echo (a server every replica runs): sequential latency through HAProxy
// and straight to one replica (the cost of the balancer's hop), throughput with 32 calls in
// flight, and the Redis commands the calls caused (the replicas' heartbeats and followers'
// reads, which go on whether or not anyone calls, are counted apart). On a machine with few
// cores the replicas, HAProxy, Redis and the client share them: the figures that carry over are
// the hop's cost and the Redis commands per call, not the throughput ratio.
// `npm run bench:cluster` (writes bench/results/cluster.json).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { haproxyConfig } from '../deploy/haproxy/with-addresses.mjs';
import { mcpmuxMain, npmServer, root } from './paths.js';
import { ms, sequential } from './sequential-calls.js';

const everything = npmServer('@modelcontextprotocol/server-everything');
const mcpmux = mcpmuxMain;
const STATE_KEY = 'the-state-key-of-the-cluster-bench-0123456789';
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 6000);

/** @param {number[]} xs @param {number} q */
const quantile = (xs, q) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
const round = (/** @type {number} */ x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** @type {import('node:child_process').ChildProcess[]} */
const started = [];
/** @param {string} command @param {string[]} args @param {RegExp} [readyOn] @param {Record<string, string>} [env] */
async function start(command, args, readyOn, env = {}) {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  started.push(proc);
  let output = '';
  proc.stdout?.on('data', (d) => (output += d));
  proc.stderr?.on('data', (d) => (output += d));
  if (readyOn)
    await until(
      () => readyOn.test(output),
      20_000,
      () => `${command} did not start: ${output}`,
    );
  return proc;
}

/** @param {() => boolean | Promise<boolean>} check @param {number} timeoutMs @param {() => string} problem */
async function until(check, timeoutMs, problem) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(problem());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One command to Redis over RESP, its reply as text (enough for INFO). @param {number} port @param {string[]} command */
function redis(port, command) {
  return new Promise((resolve, reject) => {
    const socket = createConnection(port, '127.0.0.1');
    let text = '';
    socket.on('connect', () =>
      socket.write(
        `*${command.length}\r\n${command.map((c) => `$${Buffer.byteLength(c)}\r\n${c}\r\n`).join('')}`,
      ),
    );
    socket.on('data', (d) => {
      text += d;
      const header = /^\$(\d+)\r\n/.exec(text);
      if (!header || text.length >= header[0].length + Number(header[1])) socket.end();
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** Commands Redis has processed so far, by name. @param {number} port */
async function commandCounts(port) {
  const text = String(await redis(port, ['INFO', 'commandstats']));
  return new Map([...text.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)].map((m) => [m[1], Number(m[2])]));
}

/** @param {Map<string, number>} before @param {Map<string, number>} after */
function delta(before, after) {
  return Object.fromEntries(
    [...after].map(([name, n]) => [name, n - (before.get(name) ?? 0)]).filter(([, n]) => Number(n) > 0),
  );
}

/** A 2026-07-28 client of `url`. @param {string} url */
async function modernClient(url) {
  const client = new Client(
    { name: 'bench-cluster', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** `total` calls with `concurrency` in flight; calls per second. @param {Client} client */
async function throughput(client, total = THROUGHPUT_CALLS, concurrency = 32) {
  let issued = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < total) {
        issued++;
        await client.callTool({ name: 'everything__echo', arguments: { message: 'x' } });
      }
    }),
  );
  return total / (ms(process.hrtime.bigint() - t0) / 1000);
}

/** A cluster of `count` replicas behind HAProxy, measured. @param {number} count @param {string} dir @param {number} redisPort */
async function measure(count, dir, redisPort) {
  const cluster = `bench-${count}`;
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const replicas = [];
  for (const [i, port] of ports.entries())
    replicas.push(
      await start(
        process.execPath,
        [
          mcpmux,
          '--http',
          String(port),
          '--redis',
          `redis://127.0.0.1:${redisPort}`,
          '--cluster',
          cluster,
          '--replica',
          `r${i + 1}`,
        ],
        /serving MCP over HTTP/,
        { MCPMUX_STATE_KEY: STATE_KEY },
      ),
    );
  for (const port of ports)
    await until(
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
      20_000,
      () => `replica on ${port} not ready`,
    );
  const bind = await freePort();
  const config = join(dir, `haproxy-${count}.cfg`);
  writeFileSync(
    config,
    haproxyConfig(
      bind,
      ports.map((p) => `127.0.0.1:${p}`),
    ),
  );
  const haproxy = await start('haproxy', ['-db', '-f', config]);
  const viaHaproxy = `http://127.0.0.1:${bind}/mcp`;
  await until(
    async () => (await fetch(viaHaproxy.replace('/mcp', '/readyz')).catch(() => undefined))?.status === 200,
    20_000,
    () => 'haproxy not up',
  );
  await new Promise((resolve) => setTimeout(resolve, 2500)); // every replica's check passed (inter 1s)

  const client = await modernClient(viaHaproxy);
  const added = await client.callTool({
    name: 'add_server',
    arguments: {
      name: 'everything',
      command: process.execPath,
      args: [everything, 'stdio'],
      placement: 'every',
    },
  });
  if (added.isError) throw new Error(`add_server: ${JSON.stringify(added.content)}`);
  const direct = await modernClient(`http://127.0.0.1:${ports[0]}/mcp`);
  await sequential(client, 'everything__echo', 200); // warm-up
  await sequential(direct, 'everything__echo', 200);

  // Redis: the background (heartbeats, followers' reads) over a quiet second, then the calls.
  const quiet0 = await commandCounts(redisPort);
  const quietStart = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const background = delta(quiet0, await commandCounts(redisPort));
  const backgroundPerSecond =
    Object.values(background).reduce((a, b) => a + b, 0) / ((Date.now() - quietStart) / 1000);
  const before = await commandCounts(redisPort);
  const callsStart = Date.now();
  const throughHaproxy = await sequential(client, 'everything__echo', CALLS);
  const straight = await sequential(direct, 'everything__echo', CALLS);
  const perSecond = await throughput(client);
  const during = delta(before, await commandCounts(redisPort));
  const seconds = (Date.now() - callsStart) / 1000;
  const total = Object.values(during).reduce((a, b) => a + b, 0);
  const calls = CALLS * 2 + THROUGHPUT_CALLS;

  const forwarding = count > 1 ? await forwardedCost(ports) : undefined;
  await client.close();
  await direct.close();
  haproxy.kill('SIGTERM');
  for (const replica of replicas) replica.kill('SIGTERM');
  await Promise.all(
    [haproxy, ...replicas].map(
      (p) => new Promise((resolve) => (p.exitCode !== null ? resolve(undefined) : p.once('exit', resolve))),
    ),
  );
  return {
    replicas: count,
    through_haproxy_ms: {
      median: round(quantile(throughHaproxy, 0.5)),
      p95: round(quantile(throughHaproxy, 0.95)),
    },
    straight_to_a_replica_ms: {
      median: round(quantile(straight, 0.5)),
      p95: round(quantile(straight, 0.95)),
    },
    hop_ms_median: round(quantile(throughHaproxy, 0.5) - quantile(straight, 0.5)),
    calls_per_second_at_32: Math.round(perSecond),
    ...(forwarding && { placement_one: forwarding }),
    redis: {
      commands_during_calls: during,
      background_per_second: round(backgroundPerSecond, 1),
      // What the calls themselves caused: all commands less the background's rate over the same time.
      per_call: round(Math.max(0, total - backgroundPerSecond * seconds) / calls, 4),
    },
  };
}

/**
 * A server placed on one replica (`placement: "one"`, added through r1, so run there): its
 * calls straight to r1 against the same calls straight to r2, which forwards them over its hop.
 * @param {number[]} ports
 */
async function forwardedCost(ports) {
  const owner = await modernClient(`http://127.0.0.1:${ports[0]}/mcp`);
  const other = await modernClient(`http://127.0.0.1:${ports[1]}/mcp`);
  const added = await owner.callTool({
    name: 'add_server',
    arguments: { name: 'one', command: process.execPath, args: [everything, 'stdio'], placement: 'one' },
  });
  if (added.isError) throw new Error(`add_server one: ${JSON.stringify(added.content)}`);
  await sequential(owner, 'one__echo', 200);
  await sequential(other, 'one__echo', 200);
  // In pairs, one call each way back to back (in turn which first), so that the machine's drift
  // falls on both: the hop is the median of the pairs' differences.
  /** @type {number[]} */ const onOwner = [];
  /** @type {number[]} */ const forwarded = [];
  /** @type {number[]} */ const differences = [];
  for (let i = 0; i < CALLS; i++) {
    const first = i % 2 === 0 ? owner : other;
    const [a = 0] = await sequential(first, 'one__echo', 1);
    const [b = 0] = await sequential(first === owner ? other : owner, 'one__echo', 1);
    const [own, hop] = first === owner ? [a, b] : [b, a];
    onOwner.push(own);
    forwarded.push(hop);
    differences.push(hop - own);
  }
  await owner.callTool({ name: 'remove_server', arguments: { name: 'one' } });
  await owner.close();
  await other.close();
  return {
    on_its_replica_ms: round(quantile(onOwner, 0.5)),
    forwarded_ms: round(quantile(forwarded, 0.5)),
    hop_ms_median: round(quantile(differences, 0.5)),
  };
}

export async function benchCluster() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-bench-cluster-'));
  const redisPort = await freePort();
  try {
    await start(
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      /Ready to accept connections/,
    );
    const one = await measure(1, dir, redisPort);
    const three = await measure(3, dir, redisPort);
    return {
      one,
      three,
      throughput_three_over_one: round(three.calls_per_second_at_32 / one.calls_per_second_at_32, 2),
    };
  } finally {
    for (const proc of started) if (proc.exitCode === null) proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchCluster();
  const line = (/** @type {any} */ r) =>
    `${r.replicas} replica(s): through HAProxy median ${r.through_haproxy_ms.median} ms (p95 ${r.through_haproxy_ms.p95}), ` +
    `straight to a replica ${r.straight_to_a_replica_ms.median} ms, the hop +${r.hop_ms_median} ms; ` +
    `${r.calls_per_second_at_32} calls/s at 32 in flight; Redis commands per call ${r.redis.per_call} ` +
    `(background ${r.redis.background_per_second}/s: ${JSON.stringify(r.redis.commands_during_calls)})`;
  console.log(line(results.one));
  console.log(line(results.three));
  const one = results.three.placement_one;
  if (one)
    console.log(
      `a "one" server's call: on its replica ${one.on_its_replica_ms} ms, forwarded by another ${one.forwarded_ms} ms: the hop +${one.hop_ms_median} ms (median of paired differences)`,
    );
  console.log(
    `throughput, 3 replicas ÷ 1: ×${results.throughput_three_over_one} (one machine, ${(await import('node:os')).availableParallelism()} cores)`,
  );
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(
    join(root, 'bench/results/cluster.json'),
    JSON.stringify({ date: new Date().toISOString().slice(0, 10), ...results }, null, 2) + '\n',
  );
}
