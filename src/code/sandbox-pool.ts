// Runs programs in sandbox workers: a few warm workers (one per core; a fresh QuickJS runtime
// per program costs about a millisecond, a fresh worker tens), a bounded queue in front of
// them, and a deadline that terminates a worker whose interpreter did not stop by itself.
// Nothing a program does can block mcpmux's own event loop: it runs on another thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import PQueue from 'p-queue';
import { MuxError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type {
  DoneMessage,
  FromWorker,
  SandboxCatalog,
  SandboxError,
  ToolCallMessage,
  ToWorker,
} from './sandbox-protocol.js';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
  maxToolCalls: number;
  maxLogBytes: number;
}

export interface ToolCallRecord {
  name: string;
  ms: number;
  ok: boolean;
}

export interface RunOutcome {
  ok: boolean;
  /** The program's return value, parsed (when ok). */
  value?: unknown;
  error?: SandboxError;
  logs: string[];
  toolCalls: ToolCallRecord[];
  durationMs: number;
}

/** What a program's tool call does on the host: routed like call_tool; a failure is `{ok: false, error}`. */
export type SandboxToolCall = (
  server: string,
  tool: string,
  args: unknown,
  signal: AbortSignal,
) => Promise<{ ok: true; value: unknown } | { ok: false; error: string }>;

export interface RunRequest {
  script: string;
  catalog: SandboxCatalog;
  limits: SandboxLimits;
  callTool: SandboxToolCall;
  signal?: AbortSignal | undefined;
}

/** How long past its deadline a worker may take to stop by itself before it is terminated. */
const TERMINATE_GRACE_MS = 500;
/** Room on top of a program's memory limit for QuickJS itself and the allocator. */
const ENGINE_HEAP_BYTES = 64 * 1024 * 1024;
/** A worker whose heap grew past this is replaced after its run, to give the memory back. */
const RECYCLE_HEAP_BYTES = 64 * 1024 * 1024;

// The worker is the .js next to this file once built, the .ts when run from source (tests).
const WORKER_URL = new URL(
  `./sandbox-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

export class SandboxPool {
  readonly #queue: PQueue;
  readonly #maxQueued: number;
  readonly #idle: SandboxWorker[] = [];
  readonly #all = new Set<SandboxWorker>();
  readonly #log: Logger;
  #nextRunId = 0;
  #closed = false;

  readonly #heapBytes: number;

  constructor(options: { logger: Logger; memoryBytes: number; concurrency?: number; maxQueued?: number }) {
    this.#queue = new PQueue({ concurrency: options.concurrency ?? availableParallelism() });
    this.#heapBytes = options.memoryBytes + ENGINE_HEAP_BYTES;
    this.#maxQueued = options.maxQueued ?? 50;
    this.#log = options.logger;
  }

  /** Runs a program when a worker is free; refuses at once when the queue is full. */
  run(request: RunRequest): Promise<RunOutcome> {
    if (this.#closed)
      return Promise.reject(new MuxError('CODE_BUSY', 'mcpmux is shutting down; the program was not run'));
    if (this.#queue.size >= this.#maxQueued) {
      return Promise.reject(
        new MuxError(
          'CODE_BUSY',
          `${this.#queue.pending} programs are running and ${this.#queue.size} are waiting (the most mcpmux queues); try again when one has finished`,
        ),
      );
    }
    return this.#queue.add(() => this.#runOnWorker(request)) as Promise<RunOutcome>;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#all].map((w) => w.terminate()));
  }

  async #runOnWorker(request: RunRequest): Promise<RunOutcome> {
    // Programs still waiting when mcpmux shuts down are refused, not left hanging.
    if (this.#closed) throw new MuxError('CODE_BUSY', 'mcpmux is shutting down; the program was not run');
    const worker = this.#idle.pop() ?? this.#spawn();
    try {
      const { outcome, heapBytes } = await worker.run(++this.#nextRunId, request);
      if (heapBytes > RECYCLE_HEAP_BYTES) void worker.terminate();
      else if (worker.alive) this.#idle.push(worker);
      return outcome;
    } catch (error) {
      void worker.terminate();
      throw error;
    }
  }

  #spawn(): SandboxWorker {
    const worker = new SandboxWorker(this.#log, this.#heapBytes, () => {
      this.#all.delete(worker);
      const at = this.#idle.indexOf(worker);
      if (at >= 0) this.#idle.splice(at, 1);
    });
    this.#all.add(worker);
    return worker;
  }
}

/** One worker thread; runs one program at a time. */
class SandboxWorker {
  readonly #worker: Worker;
  readonly #ready: Promise<void>;
  readonly #onGone: () => void;
  #alive = true;
  #onMessage: ((message: FromWorker) => void) | undefined;
  #onExit: ((why: string) => void) | undefined;

  constructor(log: Logger, heapBytes: number, onGone: () => void) {
    this.#onGone = onGone;
    // The worker gets nothing of this process: no argv, no environment, no stdio.
    this.#worker = new Worker(WORKER_URL, {
      workerData: { maxHeapBytes: heapBytes },
      env: {},
      argv: [],
      stdin: false,
      stdout: false,
      stderr: false,
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    this.#worker.unref();
    this.#ready = new Promise((resolve, reject) => {
      this.#onMessage = (message) => (message.type === 'ready' ? resolve() : undefined);
      this.#onExit = (why) => reject(new MuxError('CODE_FAILED', `the sandbox worker did not start: ${why}`));
    });
    this.#ready.catch(() => {});
    this.#worker.on('message', (message: FromWorker) => this.#onMessage?.(message));
    this.#worker.on('error', (error) => {
      log.warn(`sandbox worker failed: ${messageOf(error)}`);
      this.#gone(messageOf(error));
    });
    this.#worker.on('exit', (code) => this.#gone(`exit ${code}`));
  }

  #gone(why: string): void {
    if (!this.#alive) return;
    this.#alive = false;
    this.#onGone();
    this.#onExit?.(why);
  }

  get alive(): boolean {
    return this.#alive;
  }

  terminate(): Promise<number> {
    this.#gone('terminated');
    return this.#worker.terminate();
  }

  async run(
    runId: number,
    { script, catalog, limits, callTool, signal }: RunRequest,
  ): Promise<{ outcome: RunOutcome; heapBytes: number }> {
    await this.#ready;
    const started = performance.now();
    const toolCalls: ToolCallRecord[] = [];
    const post = (message: ToWorker) => this.#worker.postMessage(message);
    return new Promise((resolve) => {
      let logs: string[] = [];
      let settled = false;
      let heapBytes = 0;
      // Tool calls still out when the program ends (time limit, cancel, return) are cancelled.
      const running = new AbortController();
      const end = (outcome: Ended, kill: boolean) => {
        if (settled) return;
        settled = true;
        running.abort(new MuxError('CODE_FAILED', 'the program that made this call has ended'));
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#onMessage = undefined;
        this.#onExit = undefined;
        if (kill) void this.terminate();
        resolve({
          outcome: { ...outcome, toolCalls, durationMs: Math.round(performance.now() - started) },
          heapBytes,
        });
      };
      // The interpreter stops itself at the deadline; a worker still busy after the grace is killed.
      const timer = setTimeout(() => {
        const why = `the program ran past its time limit of ${limits.timeoutMs / 1000} s and was stopped`;
        end(failure('Timeout', why, logs), true);
      }, limits.timeoutMs + TERMINATE_GRACE_MS);
      const onAbort = () =>
        end(failure('Cancelled', 'the client cancelled the call; the program was stopped', logs), true);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#onExit = (why) => end(failure('InternalError', `the sandbox worker ended (${why})`, logs), false);
      this.#onMessage = (message) => {
        if (message.type === 'done' && message.runId === runId) {
          logs = message.logs;
          heapBytes = message.heapBytes;
          end(fromDone(message), false);
        } else if (message.type === 'call' && message.runId === runId) {
          const answer = (outcome: unknown) => {
            if (!settled)
              post({ type: 'answer', runId, callId: message.callId, outcome: JSON.stringify(outcome) });
          };
          runToolCall(message, { limits, callTool, toolCalls, signal: running.signal }, answer);
        }
      };
      const deadline = Date.now() + limits.timeoutMs;
      const { memoryBytes, maxLogBytes } = limits;
      post({ type: 'run', runId, script, catalog, deadline, memoryBytes, maxLogBytes });
    });
  }
}

/** How a run ended, before its tool calls and duration are added. */
type Ended = Omit<RunOutcome, 'toolCalls' | 'durationMs'>;

function failure(name: string, message: string, logs: string[]): Ended {
  return { ok: false, error: { name, message }, logs };
}

/** A program's tool call, within the run's limit, recorded, and answered with its outcome. */
function runToolCall(
  message: ToolCallMessage,
  run: { limits: SandboxLimits; callTool: SandboxToolCall; toolCalls: ToolCallRecord[]; signal: AbortSignal },
  answer: (outcome: unknown) => void,
): void {
  const { limits, toolCalls } = run;
  if (toolCalls.length >= limits.maxToolCalls) {
    const error = `this program made more than ${limits.maxToolCalls} tool calls, the most one run may make`;
    return answer({ ok: false, error });
  }
  const record: ToolCallRecord = { name: `${message.server}.${message.tool}`, ms: 0, ok: false };
  toolCalls.push(record);
  const callStarted = performance.now();
  let args: unknown;
  try {
    args = JSON.parse(message.args);
  } catch {
    args = undefined;
  }
  run.callTool(message.server, message.tool, args, run.signal).then(
    (outcome) => {
      record.ms = Math.round(performance.now() - callStarted);
      record.ok = outcome.ok;
      answer(outcome);
    },
    (error: unknown) => {
      record.ms = Math.round(performance.now() - callStarted);
      answer({ ok: false, error: messageOf(error) });
    },
  );
}

function fromDone(message: DoneMessage): Ended {
  if (!message.ok)
    return {
      ok: false,
      error: message.error ?? { name: 'Error', message: 'the program failed' },
      logs: message.logs,
    };
  try {
    return { ok: true, value: JSON.parse(message.value ?? 'null'), logs: message.logs };
  } catch {
    return failure('Error', 'the return value could not be read as JSON', message.logs);
  }
}
