// Newline-delimited JSON-RPC, the framing of MCP's stdio transport, for both sides of
// mcpmux (the client on our stdin/stdout, each child on its pipes). Reading frames bytes
// in linear time, skips lines that are not JSON-RPC, and hands messages over in order;
// writing coalesces the messages of one tick into one system call.
import type { Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface JsonLineReaderOptions {
  onMessage: (message: JSONRPCMessage) => void;
  /** A line that is not a JSON-RPC message (a stray log line, say). */
  onSkippedLine: (line: string) => void;
  /** A line longer than maxMessageBytes was dropped. */
  onOversize: (bytes: number) => void;
  /** Largest message accepted, in bytes. Default 256 MiB. */
  maxMessageBytes?: number;
}

const NEWLINE = 0x0a;
const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export class JsonLineReader {
  readonly #options: JsonLineReaderOptions;
  readonly #maxMessageBytes: number;
  /** The start of a line whose end has not arrived yet. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Messages parsed but not yet handed over, in arrival order. */
  readonly #queue: JSONRPCMessage[] = [];
  #draining = false;

  constructor(options: JsonLineReaderOptions) {
    this.#options = options;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  push(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      // Concatenating only once a line is complete keeps a large message linear in its size.
      const line = this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece]);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#onLine(line);
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.#pendingBytes += chunk.length - start;
      if (this.#pendingBytes > this.#maxMessageBytes) {
        const bytes = this.#pendingBytes;
        this.clear();
        this.#options.onOversize(bytes);
        return;
      }
      this.#pending.push(chunk.subarray(start));
    }
  }

  /** Drops a partial line (the stream ended or the transport closed). */
  clear(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  #onLine(bytes: Buffer): void {
    const raw = bytes.toString('utf8');
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#options.onSkippedLine(line);
      return;
    }
    if (!isJsonRpcMessage(message)) {
      this.#options.onSkippedLine(line);
      return;
    }
    // Only the envelope is checked: the SDK validates each body against its method's
    // schema where it is consumed, so a full schema check here would be paid twice.
    this.#queue.push(message);
    if (!this.#draining) void this.#drain();
  }

  /**
   * Hands messages over one microtask apart. The SDK handles a notification one microtask
   * after it arrives but a response at once, so a progress notification and the result
   * that follows it in the same chunk would otherwise be handled out of order (and the
   * progress dropped as belonging to an unknown request).
   */
  async #drain(): Promise<void> {
    this.#draining = true;
    let message: JSONRPCMessage | undefined;
    while ((message = this.#queue.shift()) !== undefined) {
      this.#options.onMessage(message);
      // Yield even when the queue is empty: the next line of this chunk is queued right after.
      await Promise.resolve();
    }
    this.#draining = false;
  }
}

/** A JSON-RPC 2.0 request, notification or response, judged by its envelope. */
export function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as { jsonrpc?: unknown; method?: unknown; id?: unknown };
  if (message.jsonrpc !== '2.0') return false;
  return typeof message.method === 'string' || 'id' in message;
}

/** Results sent many times unchanged, with their JSON once it has been made. */
const reusedResults = new WeakMap<object, string | null>();

/**
 * Marks a result that will be sent again unchanged (the aggregated tool list: 5,000 tools
 * are a megabyte of JSON), so it is serialized once. The caller must not mutate it.
 */
export function reuseSerialization<T extends object>(result: T): T {
  reusedResults.set(result, null);
  return result;
}

function serializeMessage(message: JSONRPCMessage): string {
  const result = (message as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null || !reusedResults.has(result)) return JSON.stringify(message);
  let json = reusedResults.get(result);
  if (json == null) {
    json = JSON.stringify(result);
    reusedResults.set(result, json);
  }
  const { id } = message as { id: string | number };
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}`;
}

/**
 * Writes messages as lines. Messages sent in the same tick go out in one write: a burst
 * of 200 responses costs one system call and one wake-up of the reader, not 200.
 */
export class JsonLineWriter {
  readonly #stream: Writable;
  /** Lines of this tick, written together once the tick's microtasks have run. */
  #batch: string[] = [];
  /** Settles when the current batch has been accepted by the stream. */
  #batchAccepted: Promise<void> | undefined;
  #settleBatch: ((error?: Error) => void) | undefined;
  /** Set while the stream is backed up: the next batch waits for 'drain'. */
  #drained: Promise<void> | undefined;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  /** Resolves once the stream accepted the line (at once unless it is backed up). */
  write(message: JSONRPCMessage): Promise<void> {
    this.#batch.push(serializeMessage(message) + '\n');
    if (this.#batchAccepted === undefined) {
      this.#batchAccepted = new Promise<void>((resolve, reject) => {
        this.#settleBatch = (error) => (error ? reject(error) : resolve());
      });
      // nextTick runs after the current microtasks, so every send of this tick is in.
      process.nextTick(() => void this.#flush());
    }
    return this.#batchAccepted;
  }

  async #flush(): Promise<void> {
    const settle = this.#settleBatch!;
    try {
      if (this.#drained) await this.#drained;
      const lines = this.#batch;
      this.#batch = [];
      this.#batchAccepted = undefined;
      // A failed write is reported by the stream's 'error' event, which the transports watch.
      const accepted = this.#stream.write(lines.length === 1 ? lines[0]! : lines.join(''));
      if (!accepted) {
        this.#drained = this.#waitForDrain();
        await this.#drained;
      }
      settle();
    } catch (error) {
      settle(error as Error);
    }
  }

  #waitForDrain(): Promise<void> {
    const stream = this.#stream;
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        stream.off('drain', onDrain);
        stream.off('close', onClose);
        this.#drained = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(new Error('the stream closed before it accepted the message'));
      stream.once('drain', onDrain);
      stream.once('close', onClose);
    });
  }
}
