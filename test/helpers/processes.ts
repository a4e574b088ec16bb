// Finds processes this test file started, however deep (grandchildren that were reparented
// to init included): every child gets a tag in its environment, which its own children
// inherit. `assertNoLeaks` fails the test while any tagged process is still alive.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { findTagged } from '../../src/child/process/process-tags.js';

export const LEAK_TAG_VAR = 'MCPMUX_TEST_LEAK_TAG';
/** Unique per test process. */
export const LEAK_TAG = randomUUID();

/**
 * The environment a child of a test should get: ours plus the tag, and a state folder of its
 * own (XDG_STATE_HOME, inside the test file's, which test/loader/register.mjs removes), as a
 * fresh machine has: what one mcpmux approved or kept is not another's. A test that shares
 * state between processes gives XDG_STATE_HOME in `extra`, or sets it in its own environment.
 */
export function taggedEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  // A test that set XDG_STATE_HOME itself shares it with what it starts.
  const parent = process.env['MCPMUX_TEST_STATE'];
  const own = parent !== undefined && process.env['XDG_STATE_HOME'] === parent;
  const state = own ? { XDG_STATE_HOME: mkdtempSync(join(parent, 'process-')) } : {};
  return { ...env, [LEAK_TAG_VAR]: LEAK_TAG, ...state, ...extra };
}

/** Living (non-zombie) processes other than this one that carry our tag. */
export function taggedProcesses(): number[] {
  const needle = `${LEAK_TAG_VAR}=${LEAK_TAG}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle)) found.push(pid);
    } catch {
      // exited meanwhile, or not readable
    }
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * Polls `condition` every `every` ms until it holds or `timeout` ms pass. The default is
 * generous on purpose: it only delays a failure, and on a loaded two-core CI machine a
 * child's start or a process group's death has taken past 5 s (code-mode.test.ts failed so).
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeout = 15_000,
  every = 20,
): Promise<boolean> {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/**
 * A process's log once `pattern` is in it: the log comes on stderr, a pipe of its own, and may
 * arrive after the answer or the exit it explains.
 */
export async function logged(read: () => string, pattern: RegExp, timeout?: number): Promise<string> {
  await waitFor(() => pattern.test(read()), timeout);
  return read();
}

/** Asserts that `pattern` is in a process's log, waiting for it as `logged` does. */
export async function matchLogged(
  t: Test,
  read: () => string,
  pattern: RegExp,
  message = 'the log says so',
): Promise<void> {
  t.match(await logged(read, pattern), pattern, message);
}

/** Fails `t` when a tagged process is still alive `graceMs` after the call. */
export async function assertNoLeaks(t: Test, graceMs = 5000): Promise<void> {
  await waitFor(() => taggedProcesses().length === 0, graceMs);
  const left = taggedProcesses();
  t.same(left, [], 'no process started by this test is left running');
  killTaggedProcesses();
}

/** SIGKILLs every tagged process (cleanup after a failed test). */
export function killTaggedProcesses(): void {
  for (const pid of taggedProcesses()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** A process's resident memory in MB, from /proc. */
export const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The largest RSS the process has had (the kernel's high-water mark), in MB: since it started, or since resetPeakRss. */
export const peakRssMb = (pid: number): number =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Sets the process's high-water mark to its RSS now (Linux: 5 written to clear_refs). */
export const resetPeakRss = (pid: number): void => writeFileSync(`/proc/${pid}/clear_refs`, '5');

// A child that starts a daemon in a session of its own (out of its process group), which
// ignores SIGTERM and starts one more process of its own, and prints the daemon's pid.
const DAEMONIZING_CHILD = `
const { spawn } = require('node:child_process');
const daemon = spawn(process.execPath, ['-e', \`
  process.on('SIGTERM', () => {});
  require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  setInterval(() => {}, 1 << 30);
\`], { detached: true, stdio: 'ignore' });
daemon.unref();
process.stdout.write(daemon.pid + '\\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

/** Spawns that child; resolves once the three processes carry its tag. */
export const spawnDaemonizing = async (t: Test): Promise<{ child: ChildProcess; daemon: number }> => {
  const child = await ChildProcess.spawn({
    command: process.execPath,
    args: ['-e', DAEMONIZING_CHILD],
    env: taggedEnv(),
  });
  const daemon = await new Promise<number>((resolve) =>
    child.stdout.once('data', (d) => resolve(Number(String(d)))),
  );
  t.ok(
    await waitFor(async () => (await findTagged(child.tag)).length === 3),
    'the child, its daemon and its grandchild carry its tag',
  );
  return { child, daemon };
};
