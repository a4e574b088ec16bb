// The one module that spawns and kills processes.
// Every child leads its own process group, so a stop reaches its whole tree (an `npx`
// chain, a grandchild it forked), and death is confirmed, not assumed. What left the group
// (a daemon in a session of its own) is found by the child's tag and ended after it
// (process-tags.ts).
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { MuxError } from '../../common/errors.js';
import type { SandboxSummary } from '../sandbox-setting.js';
import { isGroupAlive, isProcessAlive } from './process-table.js';
import { findTagged, findTaggedSync, newProcessTag, withProcessTag } from './process-tags.js';

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
  /** How long the group (then what left it) may take to exit after SIGTERM. Default 2000 ms. */
  termGraceMs?: number;
  /** How long to wait for the kernel to reap the group (then what left it) after SIGKILL. Default 3000 ms. */
  killWaitMs?: number;
}

const DEFAULT_TIMINGS: Required<StopTimings> = { stdinGraceMs: 1000, termGraceMs: 2000, killWaitMs: 3000 };
const POLL_MS = 15;

/** Groups that may still have members; the exit hook kills these when mcpmux dies. */
const liveGroups = new Set<number>();
/** The tags of children not yet confirmed gone with all they started; the exit hook kills these too. */
const liveTags = new Set<string>();

/**
 * Told of each child (its group and its tag) as it is spawned, and once it and everything
 * that carries its tag are confirmed dead (the orphan reaper).
 */
export interface ProcessGroupObserver {
  added(pgid: number, tag: string): void;
  removed(pgid: number, tag: string): void;
  /** A tag carried by processes mcpmux did not spawn here (a library's helpers): ended when mcpmux is. */
  tagged(tag: string): void;
}

let groupObserver: ProcessGroupObserver | undefined;

export function setProcessGroupObserver(observer: ProcessGroupObserver | undefined): void {
  groupObserver = observer;
}

/**
 * SIGKILLs every group we spawned and every process that carries a live child's tag.
 * Synchronous, for `process.on('exit')` and fatal errors.
 */
export function killAllProcessGroupsSync(): number {
  let killed = 0;
  const targets = [...[...liveGroups].map((pgid) => -pgid), ...findTaggedSync([...liveTags])];
  for (const target of targets) {
    try {
      process.kill(target, 'SIGKILL');
      killed++;
    } catch {
      // already gone
    }
  }
  liveGroups.clear();
  liveTags.clear();
  return killed;
}

/**
 * Ends whatever carries `tag` when mcpmux ends, SIGKILL included (the reaper): for helper
 * processes a library starts with mcpmux's own environment, where the tag was put first.
 */
export function endWithMcpmux(tag: string): void {
  liveTags.add(tag);
  groupObserver?.tagged(tag);
}

/** Process groups spawned by this process that have not been confirmed dead. */
export const liveProcessGroups = (): readonly number[] => [...liveGroups];

export interface RunResult {
  exit: ExitInfo;
  /** stdout and stderr interleaved, the last `maxOutputBytes` of it. */
  output: string;
  timedOut: boolean;
  /** Stopped by `signal` before it ended. */
  aborted: boolean;
  ms: number;
}

/**
 * Runs a command to completion (a build) in its own process group, with its output kept;
 * after `timeoutMs`, or once `signal` aborts, the group is stopped like a child's. Rejects
 * only when it cannot start.
 */
export async function runToCompletion(
  spec: SpawnSpec,
  options: { timeoutMs: number; maxOutputBytes?: number; signal?: AbortSignal },
): Promise<RunResult> {
  const started = Date.now();
  const { signal } = options;
  if (signal?.aborted)
    return { exit: { code: null, signal: null }, output: '', timedOut: false, aborted: true, ms: 0 };
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
  const abort = () => void proc.stop({ stdinGraceMs: 0 });
  signal?.addEventListener('abort', abort, { once: true });
  const exit = await proc.exited;
  clearTimeout(timer);
  signal?.removeEventListener('abort', abort);
  // The last output may still be in the pipes when the exit is reported.
  const drained = Promise.all([
    new Promise((r) => proc.stdout.once('close', r)),
    new Promise((r) => proc.stderr.once('close', r)),
  ]);
  await Promise.race([drained, new Promise((r) => setTimeout(r, 1000).unref())]);
  // Reap the group (a build may leave watchers behind) and confirm it is gone.
  await proc.stop({ stdinGraceMs: 0, termGraceMs: 1000 });
  return {
    exit,
    output: output.slice(-max),
    timedOut,
    aborted: signal?.aborted === true && !timedOut,
    ms: Date.now() - started,
  };
}

export class ChildProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles when the direct child exits (never rejects). */
  readonly exited: Promise<ExitInfo>;
  /** In the environment of the child and of everything it starts (process-tags.ts). */
  readonly tag: string;
  /** Processes that had left the child's group and were ended by its stop. */
  escaped: readonly number[] = [];
  /** The OS sandbox it runs in, as list_servers shows it (set by the spawn policy). */
  sandbox: SandboxSummary | undefined;
  #exit: ExitInfo | undefined;
  #stopping: Promise<ExitInfo> | undefined;

  private constructor(
    pid: number,
    tag: string,
    streams: { stdin: Writable; stdout: Readable; stderr: Readable },
    exited: Promise<ExitInfo>,
  ) {
    this.pid = pid;
    this.tag = tag;
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
    // Node's own spawn: a new process group (detached), pipes, exactly this environment and the tag.
    const tag = newProcessTag();
    const subprocess = spawn(spec.command, [...spec.args], {
      detached: true,
      env: withProcessTag(spec.env, tag),
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
    liveTags.add(tag);
    groupObserver?.added(pid, tag);
    // Settle on 'exit' (not on the stdio streams closing: a grandchild may hold them open).
    const exited = new Promise<ExitInfo>((resolve) => {
      subprocess.once('exit', (code, signal) => resolve({ code, signal }));
    });
    return new ChildProcess(
      pid,
      tag,
      { stdin: subprocess.stdin, stdout: subprocess.stdout, stderr: subprocess.stderr },
      exited,
    );
  }

  /** The direct child's exit, once it has exited. */
  get exit(): ExitInfo | undefined {
    return this.#exit;
  }

  /**
   * Stops the whole group: close stdin → grace → SIGTERM and SIGCONT → grace → SIGKILL, then waits
   * until no member but zombies is left; then the same for what carries its tag outside the
   * group. Memoized: a second call joins the first.
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
      terminateGroup(pgid);
      await waitUntil(done, t.termGraceMs);
    }
    if (!done()) {
      signalGroup(pgid, 'SIGKILL');
      await waitUntil(done, t.killWaitMs);
    }
    const exit = await this.exited;
    const groupGone = !isGroupAlive(pgid);
    if (groupGone) liveGroups.delete(pgid);
    const { ended, left } = await endTagged(this.tag, t);
    this.escaped = ended;
    if (left.length === 0) liveTags.delete(this.tag);
    if (groupGone && left.length === 0) groupObserver?.removed(pgid, this.tag);
    this.stdout.destroy();
    this.stderr.destroy();
    return exit;
  }
}

/**
 * Ends the processes that carry `tag` (found once its group is gone, so only those that
 * left it): SIGTERM → grace → SIGKILL, looking again after each step for any they started.
 */
async function endTagged(
  tag: string,
  t: Required<StopTimings>,
): Promise<{ ended: number[]; left: number[] }> {
  const ended = new Set<number>();
  for (const [signal, waitMs] of [
    ['SIGTERM', t.termGraceMs],
    ['SIGKILL', t.killWaitMs],
  ] as const) {
    const found = await findTagged(tag);
    if (found.length === 0) return { ended: [...ended], left: [] };
    for (const pid of found) {
      ended.add(pid);
      try {
        process.kill(pid, signal);
        if (signal === 'SIGTERM') process.kill(pid, 'SIGCONT');
      } catch {
        // gone meanwhile
      }
    }
    await waitUntil(() => !found.some(isProcessAlive), waitMs);
  }
  const left = await findTagged(tag);
  return { ended: [...ended].filter((pid) => !left.includes(pid)), left };
}

/**
 * SIGTERM, then SIGCONT: a stopped process (SIGSTOP, a shell's Ctrl-Z, a debugger) holds
 * SIGTERM until it runs again, and would otherwise wait out the grace for SIGKILL. systemd
 * ends a unit the same way.
 */
function terminateGroup(pgid: number): void {
  signalGroup(pgid, 'SIGTERM');
  signalGroup(pgid, 'SIGCONT');
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
  const [program, ...words] = spec.command.trim().split(/\s+/);
  const reason =
    error.code === 'ENOENT' && words.length > 0
      ? // A whole command line given as the command, as a shell would take it.
        `command not found (ENOENT): the command is one program, its arguments go in args: {"command": ${JSON.stringify(program)}, "args": ${JSON.stringify([...words, ...spec.args])}}`
      : error.code === 'ENOENT'
        ? `command not found (ENOENT): check that '${spec.command}' is installed and on PATH, or give an absolute path`
        : error.code === 'EACCES'
          ? `permission denied (EACCES): '${spec.command}' is not executable`
          : `${error.code ?? 'error'}: ${error.message}`;
  return new MuxError('SPAWN_FAILED', `cannot start '${spec.command}': ${reason}`, { cause: error });
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
