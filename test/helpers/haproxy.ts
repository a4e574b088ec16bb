// A real HAProxy in front of a test's replicas, run from deploy/haproxy/haproxy.cfg as shipped:
// only its addresses are the test's (the bind on a free port, one server line per replica),
// and a stats socket is added so that the test knows when every replica is up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { haproxyConfig } from '../../deploy/haproxy/with-addresses.mjs';
import { taggedEnv, waitFor } from './processes.js';
import { freePort } from './redis-server.js';

export interface Haproxy {
  /** The MCP endpoint through HAProxy. */
  readonly url: string;
  /** Each server's state by name (mcpmux-1…): UP, DOWN, … */
  states(): Promise<Map<string, string>>;
}

/** Starts HAProxy before `replicas` (host:port each) and waits until every one is UP. */
export async function startHaproxy(t: Test, replicas: readonly string[]): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-haproxy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const socket = join(dir, 'stats.sock');
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(port, replicas, [`stats socket ${socket} level user`]));
  // -db: in the foreground, so that it is this test's child and stops with it.
  const proc = await ChildProcess.spawn({
    command: 'haproxy',
    args: ['-db', '-f', config],
    env: taggedEnv(),
  });
  let output = '';
  proc.stdout.on('data', (d: Buffer) => (output += d));
  proc.stderr.on('data', (d: Buffer) => (output += d));
  t.teardown(() => proc.stop({ stdinGraceMs: 0 }));
  const states = async () => {
    const csv = await statsOf(socket).catch(() => '');
    const byName = new Map<string, string>();
    for (const line of csv.split('\n')) {
      const [backend, server, ...rest] = line.split(',');
      if (backend === 'mcpmux' && server && server !== 'BACKEND') byName.set(server, rest[15] ?? '');
    }
    return byName;
  };
  const allUp = async () => {
    const now = await states();
    return now.size === replicas.length && [...now.values()].every((state) => state === 'UP');
  };
  if (!(await waitFor(allUp, 15_000))) throw new Error(`HAProxy's servers did not all come up: ${output}`);
  return { url: `http://127.0.0.1:${port}/mcp`, states };
}

/** `show stat` over HAProxy's stats socket: one CSV line per frontend, backend and server. */
function statsOf(socket: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = createConnection(socket);
    let text = '';
    connection.on('connect', () => connection.end('show stat\n'));
    connection.on('data', (d) => (text += d));
    connection.on('end', () => resolve(text));
    connection.on('error', reject);
  });
}
