// The messages between mcpmux and a sandbox worker. A worker runs one program at a time;
// every message names its run, so a late answer to a run that has ended is recognised and
// dropped.

/** Which tools a program may call: server → the server's own tool names. */
export type SandboxCatalog = Record<string, string[]>;

export interface RunMessage {
  type: 'run';
  runId: number;
  /** JavaScript (already stripped of types) that evaluates to the program's promise. */
  script: string;
  catalog: SandboxCatalog;
  /** Wall-clock time (Date.now()) after which the interpreter stops. */
  deadline: number;
  memoryBytes: number;
  /** Most bytes of console output kept; the rest is dropped with a notice. */
  maxLogBytes: number;
}

export interface CallAnswer {
  type: 'answer';
  runId: number;
  callId: number;
  /** JSON of `{ok: true, value}` or `{ok: false, error}`. */
  outcome: string;
}

export type ToWorker = RunMessage | CallAnswer;

export interface ToolCallMessage {
  type: 'call';
  runId: number;
  callId: number;
  server: string;
  tool: string;
  /** The arguments as the program gave them, in JSON. */
  args: string;
}

export interface SandboxError {
  /** SyntaxError, TypeError, ToolError, InternalError (out of memory), Timeout, … */
  name: string;
  message: string;
  /** The program's stack, when it has one (lines of the stripped program). */
  stack?: string;
}

export interface DoneMessage {
  type: 'done';
  runId: number;
  ok: boolean;
  /** JSON of the program's return value (when ok). */
  value?: string;
  error?: SandboxError;
  logs: string[];
  /** How large the worker's WebAssembly heap has grown (it never shrinks). */
  heapBytes: number;
}

export interface ReadyMessage {
  type: 'ready';
}

export type FromWorker = ToolCallMessage | DoneMessage | ReadyMessage;
