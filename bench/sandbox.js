#!/usr/bin/env node
// @ts-check
// What the OS sandbox costs, measured in one run against the same child unsandboxed: the start of
// server-memory through the built mcpmux (add_server: spawn to its answered tools/list), the
// first sandboxed start of a mcpmux apart (it loads the library, starts the proxy and tries the
// sandbox once), and the latency of server-everything's echo through mcpmux, sandboxed and not,
// in alternating rounds so both see the same machine. `npm run bench` runs it as its last part;
// `npm run bench:sandbox` alone (writes bench/results/sandbox.json).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { mcpmuxMain, npmServer, root } from './paths.js';
import { ms, sequential } from './sequential-calls.js';

const memory = npmServer('@modelcontextprotocol/server-memory');
const everything = npmServer('@modelcontextprotocol/server-everything');
const mcpmux = mcpmuxMain;

const median = (/** @type {number[]} */ xs) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (/** @type {number} */ x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** mcpmux with its servers' private folders (XDG_CACHE_HOME) in `work`, removed after. */
async function startMcpmux(/** @type {string} */ work, /** @type {string[]} */ flags = []) {
  const client = new Client({ name: 'bench-sandbox', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [mcpmux, '--log-level', 'error', ...flags],
      env: { ...getDefaultEnvironment(), XDG_CACHE_HOME: join(work, 'cache') },
      stderr: 'ignore',
    }),
  );
  return client;
}

/** @param {Client} client @param {Record<string, unknown>} args */
async function timedAdd(client, args) {
  const t0 = process.hrtime.bigint();
  const result = await client.callTool({ name: 'add_server', arguments: args });
  const elapsed = ms(process.hrtime.bigint() - t0);
  if (result.isError)
    throw new Error(`add_server ${String(args['name'])}: ${JSON.stringify(result.content)}`);
  return elapsed;
}

/** @param {{ rounds?: number, calls?: number }} [options] */
export async function benchSandbox({ rounds = 5, calls = 500 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'mcpmux-bench-sandbox-'));
  try {
    const memoryServer = (/** @type {string} */ name, /** @type {boolean} */ sandbox) => ({
      name,
      command: process.execPath,
      args: [memory],
      cwd: work,
      ...(sandbox && { sandbox: true }),
    });
    // Starts: in each round a fresh mcpmux, its first sandboxed server (the sandbox's own start),
    // then plain and sandboxed starts of the same server, alternating; and a mcpmux under
    // --sandbox (which starts the sandbox as it starts), its first server added a second on.
    const first = [];
    const firstWarmed = [];
    const plain = [];
    const sandboxed = [];
    for (let r = 0; r < rounds; r++) {
      const client = await startMcpmux(work);
      first.push(await timedAdd(client, memoryServer(`first${r}`, true)));
      for (let i = 0; i < 3; i++) {
        plain.push(await timedAdd(client, memoryServer(`plain${i}`, false)));
        sandboxed.push(await timedAdd(client, memoryServer(`sandboxed${i}`, true)));
      }
      await client.close();
      const warmed = await startMcpmux(work, ['--sandbox']);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      firstWarmed.push(await timedAdd(warmed, memoryServer(`warmed${r}`, true)));
      await warmed.close();
    }
    // Calls: server-everything's echo, sandboxed and not, in one mcpmux, alternating rounds.
    const client = await startMcpmux(work);
    const echo = (/** @type {string} */ name, /** @type {boolean} */ sandbox) => ({
      name,
      command: process.execPath,
      args: [everything, 'stdio'],
      cwd: work,
      ...(sandbox && { sandbox: true }),
    });
    await timedAdd(client, echo('plain', false));
    await timedAdd(client, echo('sandboxed', true));
    /** @type {Record<string, number[]>} */
    const times = { plain: [], sandboxed: [] };
    for (const path of ['plain', 'sandboxed']) await sequential(client, `${path}__echo`, 100);
    for (let r = 0; r < rounds; r++)
      for (const path of ['plain', 'sandboxed'])
        times[path]?.push(...(await sequential(client, `${path}__echo`, calls)));
    await client.close();
    const callPlain = median(times['plain'] ?? []);
    const callSandboxed = median(times['sandboxed'] ?? []);
    return {
      date: new Date().toISOString(),
      node: process.version,
      rounds,
      calls_per_round: calls,
      start_plain_median_ms: round(median(plain), 1),
      start_sandboxed_median_ms: round(median(sandboxed), 1),
      start_sandboxed_minus_plain_ms: round(median(sandboxed) - median(plain), 1),
      first_sandboxed_start_median_ms: round(median(first), 1),
      first_sandboxed_minus_plain_ms: round(median(first) - median(plain), 1),
      first_under_sandbox_flag_minus_plain_ms: round(median(firstWarmed) - median(plain), 1),
      call_plain_median_ms: round(callPlain, 3),
      call_sandboxed_median_ms: round(callSandboxed, 3),
      call_sandboxed_over_plain: round(callSandboxed / callPlain, 3),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await benchSandbox({
    rounds: Number(process.env.BENCH_ROUNDS ?? 5),
    calls: Number(process.env.BENCH_CALLS ?? 500),
  });
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/sandbox.json'), JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(JSON.stringify(results, null, 2) + '\n');
}
