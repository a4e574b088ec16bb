// A sandbox worker: runs programs in QuickJS compiled to WebAssembly, one fresh runtime per
// program. The program's world is what this file puts into it: `tools` (each call is a
// message to mcpmux, which routes it), `console`, and `ToolError`. There is no `process`,
// `require`, `import()`, `fetch` or timer in QuickJS, and nothing of Node is passed in, so
// the only way out is a tool call. The interpreter stops itself at the deadline and at its
// memory limit; mcpmux terminates the whole worker if it ever fails to.
import { parentPort, workerData } from 'node:worker_threads';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import releaseSync from '@jitl/quickjs-wasmfile-release-sync';
import type { DoneMessage, FromWorker, RunMessage, SandboxError, ToWorker } from './sandbox-protocol.js';

const port = parentPort;
if (!port) throw new Error('sandbox-worker.js runs only as a worker thread');

// QuickJS's own memory limit counts live allocations, but the WebAssembly allocator can
// fragment the heap far past it (a loop growing arrays took 1.8 GB for a 32 MB limit), and
// growing the memory step by step is slow. A WebAssembly.Memory with a maximum is the hard
// cap: reserved up front, grown in place, and never past the limit plus room for the engine.
const { maxHeapBytes } = workerData as { maxHeapBytes: number };
const PAGE = 64 * 1024;
// (Node has WebAssembly; the TypeScript lib without DOM declares only its types.)
const { Memory } = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (size: { initial: number; maximum: number }) => { buffer: ArrayBuffer } };
  }
).WebAssembly;
const memory = new Memory({ initial: 256, maximum: Math.ceil(maxHeapBytes / PAGE) });
// The variant's .d.ts reads as CommonJS under NodeNext; at run time the ESM default is the variant.
const quickjs = await newQuickJSWASMModuleFromVariant(
  newVariant(releaseSync as unknown as QuickJSSyncVariant, { wasmMemory: memory as never }),
);
const send = (message: FromWorker) => port.postMessage(message);

/** Waiting tool calls of the current run, by call id. */
const waiting = new Map<number, QuickJSDeferredPromise>();
/** Wakes the run loop when an answer arrived. */
let wake: (() => void) | undefined;
let current: { runId: number; context: QuickJSContext } | undefined;

port.on('message', (message: ToWorker) => {
  if (message.type === 'run') {
    void run(message).then(send, (error: unknown) =>
      send(failure(message.runId, { name: 'InternalError', message: String(error) }, [])),
    );
    return;
  }
  const deferred = waiting.get(message.callId);
  if (!current || message.runId !== current.runId || !deferred) return;
  waiting.delete(message.callId);
  const value = current.context.newString(message.outcome);
  deferred.resolve(value);
  value.dispose();
  wake?.();
});
send({ type: 'ready' });

// The program's world, built inside QuickJS from two host functions that are then hidden.
const PRELUDE = `(() => {
  const call = globalThis.__mcpmux_call, log = globalThis.__mcpmux_log;
  const catalog = JSON.parse(globalThis.__mcpmux_catalog);
  delete globalThis.__mcpmux_call; delete globalThis.__mcpmux_log; delete globalThis.__mcpmux_catalog;
  class ToolError extends Error {
    constructor(message, tool) { super(message); this.name = 'ToolError'; this.tool = tool; }
  }
  const names = Object.keys(catalog);
  const strict = (target, what, known) => new Proxy(target, {
    get(object, key) {
      if (typeof key === 'symbol' || key in object) return object[key];
      if (key === 'then' || key === 'toJSON') return undefined;
      throw new TypeError(what(String(key)) + known);
    },
  });
  const server = (name) => strict(
    Object.freeze(Object.fromEntries(catalog[name].map((tool) => [tool, (args) =>
      call(name, tool, JSON.stringify(args === undefined ? {} : args)).then((answer) => {
        const outcome = JSON.parse(answer);
        if (!outcome.ok) throw new ToolError(outcome.error, name + '.' + tool);
        return outcome.value;
      })]))),
    (key) => "server '" + name + "' has no tool '" + key + "'",
    '; read_module {"server": "' + name + '"} lists its tools',
  );
  const tools = strict(Object.freeze(Object.fromEntries(names.map((name) => [name, server(name)]))),
    (key) => "no server '" + key + "' in this run",
    '; servers: ' + (names.join(', ') || '(none)'));
  const show = (value) => typeof value === 'string' ? value : (() => {
    if (value instanceof Error) return value.name + ': ' + value.message;
    try { const json = JSON.stringify(value); return json === undefined ? String(value) : json; } catch { return String(value); }
  })();
  const print = (level) => (...values) => log(level, values.map(show).join(' '));
  const console = { log: print('log'), info: print('info'), warn: print('warn'), error: print('error'), debug: print('debug') };
  for (const [key, value] of Object.entries({ tools, console, ToolError })) {
    Object.defineProperty(globalThis, key, { value, enumerable: false, writable: false, configurable: false });
  }
})();`;

async function run(message: RunMessage): Promise<DoneMessage> {
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(message.memoryBytes);
  runtime.setMaxStackSize(1024 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(message.deadline));
  const context = runtime.newContext();
  current = { runId: message.runId, context };
  const logs: string[] = [];
  let logBytes = 0;
  let callId = 0;
  try {
    const callFn = context.newFunction('call', (server, tool, args) => {
      const deferred = context.newPromise();
      const id = ++callId;
      waiting.set(id, deferred);
      send({
        type: 'call',
        runId: message.runId,
        callId: id,
        server: context.getString(server),
        tool: context.getString(tool),
        args: context.getString(args),
      });
      return deferred.handle;
    });
    const logFn = context.newFunction('log', (level, text) => {
      if (logBytes > message.maxLogBytes) return;
      const line = `${context.getString(level)}: ${context.getString(text)}`;
      logBytes += line.length;
      logs.push(
        logBytes > message.maxLogBytes
          ? `[mcpmux: console output past ${message.maxLogBytes} bytes was dropped]`
          : line,
      );
    });
    context.setProp(context.global, '__mcpmux_call', callFn);
    context.setProp(context.global, '__mcpmux_log', logFn);
    callFn.dispose();
    logFn.dispose();
    const catalog = context.newString(JSON.stringify(message.catalog));
    context.setProp(context.global, '__mcpmux_catalog', catalog);
    catalog.dispose();
    context.unwrapResult(context.evalCode(PRELUDE, 'mcpmux-prelude.js')).dispose();

    const evaluated = context.evalCode(message.script, 'program.ts');
    if (evaluated.error) return failure(message.runId, describe(context, evaluated.error), logs);
    const promise = evaluated.value;
    try {
      return await settle(context, promise, message, logs);
    } finally {
      promise.dispose();
    }
  } finally {
    for (const deferred of waiting.values()) deferred.dispose();
    waiting.clear();
    current = undefined;
    context.dispose();
    runtime.dispose();
  }
}

/** Runs the program's jobs until its promise settles, waiting for tool answers in between. */
async function settle(
  context: QuickJSContext,
  promise: QuickJSHandle,
  message: RunMessage,
  logs: string[],
): Promise<DoneMessage> {
  for (;;) {
    const jobs = context.runtime.executePendingJobs();
    if (jobs.error) return failure(message.runId, describe(context, jobs.error), logs);
    const state = context.getPromiseState(promise);
    if (state.type === 'fulfilled') {
      const value = context.getString(state.value);
      state.value.dispose();
      return {
        type: 'done',
        runId: message.runId,
        ok: true,
        value,
        logs,
        heapBytes: memory.buffer.byteLength,
      };
    }
    if (state.type === 'rejected') return failure(message.runId, describe(context, state.error), logs);
    if (waiting.size === 0) {
      // No tool call is out and no timer exists: nothing can ever settle this promise.
      return failure(
        message.runId,
        {
          name: 'Deadlock',
          message:
            'the program is waiting on a promise that nothing will ever settle (no tool call is pending)',
        },
        logs,
      );
    }
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
}

function describe(context: QuickJSContext, handle: QuickJSHandle): SandboxError {
  try {
    const dumped = context.dump(handle) as unknown;
    if (dumped && typeof dumped === 'object' && 'message' in dumped) {
      const { name, message, stack } = dumped as { name?: unknown; message?: unknown; stack?: unknown };
      const error: SandboxError = {
        name: typeof name === 'string' ? name : 'Error',
        message: String(message),
      };
      if (typeof stack === 'string' && stack.trim() !== '') error.stack = stack;
      if (error.name === 'InternalError' && error.message === 'interrupted')
        return { name: 'Timeout', message: 'the program ran past its time limit' };
      return error;
    }
    // Out of memory while making the error leaves no Error to throw; a small allocation tells.
    if (outOfMemory(context)) return { name: 'InternalError', message: 'out of memory' };
    return { name: 'Error', message: `the program threw ${JSON.stringify(dumped) ?? String(dumped)}` };
  } finally {
    handle.dispose();
  }
}

function outOfMemory(context: QuickJSContext): boolean {
  const probe = context.evalCode('new Array(4096).fill(0).map((x, i) => i + 0.5).length');
  if (probe.error) {
    probe.error.dispose();
    return true;
  }
  probe.value.dispose();
  return false;
}

const failure = (runId: number, error: SandboxError, logs: string[]): DoneMessage => ({
  type: 'done',
  runId,
  ok: false,
  error,
  logs,
  heapBytes: memory.buffer.byteLength,
});
