// The one module that spawns and kills processes.
// Every child leads its own process group, so a stop reaches its whole tree (an `npx`
// chain, a grandchild it forked), and death is confirmed, not assumed.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { MuxError } from '../errors.js';
import { isGroupAlive } from './process-table.js';

export interface SpawnSpec {
  command: string;
  args: readonly string[];
  /** The complete environment of the child (nothing is inherited implicitly). */
  env: Readonly<Record<string, string>>;
  cwd?: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StopTimings {
  /** How long a child may take to exit after its stdin closes. Default 1000 ms. */
  stdinGraceMs?: number;
  /** How long the group may take to exit after SIGTERM. Default 2000 ms. */
  termGraceMs?: number;
  /** How long to wait for the kernel to reap the group after SIGKILL. Default 3000 ms. */
  killWaitMs?: number;
}

const DEFAULT_TIMINGS: Required<StopTimings> = { stdinGraceMs: 1000, termGraceMs: 2000, killWaitMs: 3000 };
const POLL_MS = 15;

/** Groups that may still have members; the exit hook kills these when mcpmux dies. */
const liveGroups = new Set<number>();

/** Told of each group as it is created and once it is confirmed dead (the orphan reaper). */
export interface ProcessGroupObserver {
  added(pgid: number): void;
  removed(pgid: number): void;
}

let groupObserver: ProcessGroupObserver | undefined;

export function setProcessGroupObserver(observer: ProcessGroupObserver | undefined): void {
  groupObserver = observer;
}

/** SIGKILLs every group we spawned. Synchronous, for `process.on('exit')` and fatal errors. */
export function killAllProcessGroupsSync(): number {
  let killed = 0;
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
      killed++;
    } catch {
      // already gone
    }
  }
  liveGroups.clear();
  return killed;
}

/** Process groups spawned by this process that have not been confirmed dead. */
export const liveProcessGroups = (): readonly number[] => [...liveGroups];

export interface RunResult {
  exit: ExitInfo;
  /** stdout and stderr interleaved, the last `maxOutputBytes` of it. */
  output: string;
  timedOut: boolean;
  ms: number;
}

/**
 * Runs a command to completion (a build) in its own process group, with its output kept;
 * after `timeoutMs` the group is stopped like a child's. Rejects only when it cannot start.
 */
export async function runToCompletion(
  spec: SpawnSpec,
  options: { timeoutMs: number; maxOutputBytes?: number },
): Promise<RunResult> {
  const started = Date.now();
  const proc = await ChildProcess.spawn(spec);
  proc.stdin.end();
  const max = options.maxOutputBytes ?? 64 * 1024;
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 2 * max) output = output.slice(-max);
  };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void proc.stop({ stdinGraceMs: 0 });
  }, options.timeoutMs);
  const exit = await proc.exited;
  clearTimeout(timer);
  // The last output may still be in the pipes when the exit is reported.
  const drained = Promise.all([
    new Promise((r) => proc.stdout.once('close', r)),
    new Promise((r) => proc.stderr.once('close', r)),
  ]);
  await Promise.race([drained, new Promise((r) => setTimeout(r, 1000).unref())]);
  // Reap the group (a build may leave watchers behind) and confirm it is gone.
  await proc.stop({ stdinGraceMs: 0, termGraceMs: 1000 });
  return { exit, output: output.slice(-max), timedOut, ms: Date.now() - started };
}

export class ChildProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles when the direct child exits (never rejects). */
  readonly exited: Promise<ExitInfo>;
  #exit: ExitInfo | undefined;
  #stopping: Promise<ExitInfo> | undefined;

  private constructor(
    pid: number,
    streams: { stdin: Writable; stdout: Readable; stderr: Readable },
    exited: Promise<ExitInfo>,
  ) {
    this.pid = pid;
    this.stdin = streams.stdin;
    this.stdout = streams.stdout;
    this.stderr = streams.stderr;
    this.exited = exited.then((exit) => (this.#exit = exit));
  }

  /** Spawns `spec` as the leader of a new process group; rejects with SPAWN_FAILED. */
  static async spawn(spec: SpawnSpec): Promise<ChildProcess> {
    if (spec.cwd !== undefined && !isDirectory(spec.cwd)) {
      throw new MuxError(
        'SPAWN_FAILED',
        `cannot start '${spec.command}': cwd '${spec.cwd}' is not an existing directory`,
      );
    }
    // Node's own spawn: a new process group (detached), pipes, exactly this environment.
    const subprocess = spawn(spec.command, [...spec.args], {
      detached: true,
      env: spec.env,
      ...(spec.cwd !== undefined && { cwd: spec.cwd }),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    // A failed spawn (ENOENT, EACCES) emits 'error' instead of 'spawn'.
    await new Promise<void>((resolve, reject) => {
      subprocess.once('spawn', () => resolve());
      subprocess.once('error', (error: NodeJS.ErrnoException) => reject(spawnError(spec, error)));
    });
    const pid = subprocess.pid;
    if (pid === undefined)
      throw new MuxError('SPAWN_FAILED', `cannot start '${spec.command}': no pid was assigned`);
    liveGroups.add(pid);
    groupObserver?.added(pid);
    // Settle on 'exit' (not on the stdio streams closing: a grandchild may hold them open).
    const exited = new Promise<ExitInfo>((resolve) => {
      subprocess.once('exit', (code, signal) => resolve({ code, signal }));
    });
    return new ChildProcess(
      pid,
      { stdin: subprocess.stdin, stdout: subprocess.stdout, stderr: subprocess.stderr },
      exited,
    );
  }

  /** The direct child's exit, once it has exited. */
  get exit(): ExitInfo | undefined {
    return this.#exit;
  }

  /**
   * Stops the whole group: close stdin → grace → SIGTERM → grace → SIGKILL, then waits
   * until no member but zombies is left. Memoized: a second call joins the first.
   */
  stop(timings: StopTimings = {}): Promise<ExitInfo> {
    this.#stopping ??= this.#stopLadder({ ...DEFAULT_TIMINGS, ...definedOnly(timings) });
    return this.#stopping;
  }

  async #stopLadder(t: Required<StopTimings>): Promise<ExitInfo> {
    const pgid = this.pid;
    const done = () => this.#exit !== undefined && !isGroupAlive(pgid);
    if (this.#exit === undefined) {
      this.stdin.end();
      await waitUntil(() => this.#exit !== undefined, t.stdinGraceMs);
    }
    if (!done()) {
      signalGroup(pgid, 'SIGTERM');
      await waitUntil(done, t.termGraceMs);
    }
    if (!done()) {
      signalGroup(pgid, 'SIGKILL');
      await waitUntil(done, t.killWaitMs);
    }
    const exit = await this.exited;
    if (!isGroupAlive(pgid)) {
      liveGroups.delete(pgid);
      groupObserver?.removed(pgid);
    }
    this.stdout.destroy();
    this.stderr.destroy();
    return exit;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

async function waitUntil(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function spawnError(spec: SpawnSpec, error: NodeJS.ErrnoException): MuxError {
  const reason =
    error.code === 'ENOENT'
      ? `command not found (ENOENT): check that '${spec.command}' is installed and on PATH, or give an absolute path`
      : error.code === 'EACCES'
        ? `permission denied (EACCES): '${spec.command}' is not executable`
        : `${error.code ?? 'error'}: ${error.message}`;
  return new MuxError('SPAWN_FAILED', `cannot start '${spec.command}': ${reason}`, { cause: error });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
