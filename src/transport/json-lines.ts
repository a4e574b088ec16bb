// Newline-delimited JSON-RPC, the framing of MCP's stdio transport, for both sides of
// mcpmux (the client on our stdin/stdout, each child on its pipes). Reading frames bytes
// in linear time, skips lines that are not JSON-RPC, drops a line past the size bound
// without holding more than the bound (an endless line costs no more memory than that),
// and hands messages over in order; writing coalesces the messages of one tick into one
// system call.
import type { Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { peekEnvelope, type EnvelopeHead } from './envelope-peek.js';

export interface JsonLineReaderOptions {
  /**
   * A message, with the length in bytes of the line it came on. Returning true says it was
   * dealt with at once (the forwarding fast path took it): the next one need not wait.
   */
  onMessage: (message: JSONRPCMessage, bytes: number) => boolean | void;
  /** A line that is not a JSON-RPC message (a stray log line, say). */
  onSkippedLine: (line: string) => void;
  /**
   * Offered each complete line before it is parsed, when no message is waiting to be handed
   * over (so order holds): returning true says it was dealt with as it is, unparsed.
   */
  takeLine?: (line: string, bytes: number) => boolean;
  /**
   * The same, earlier: the line as bytes (`bytes[start, end)`, no newline), before it is even
   * decoded. The bytes stay valid after the call (each read has its own buffer).
   */
  takeBytes?: (bytes: Buffer, start: number, end: number) => boolean;
  /** A line longer than maxMessageBytes is being dropped (bytes seen so far); once per line, as soon as it is known. */
  onOversize: (bytes: number) => void;
  /**
   * The dropped message's id became known, from its first bytes or (once the line ended)
   * its last ones, so that whoever waits for it can be told: once per line at most.
   */
  onOversizeId?: (dropped: DroppedMessage) => void;
  /** Largest message accepted, in bytes. Default 16 MiB. */
  maxMessageBytes?: number;
}

export interface DroppedMessage {
  id: string | number;
  /** A request (it has a method), or else a response. */
  isRequest: boolean;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OPEN_BRACE = 0x7b;
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How much of a dropped line's beginning is read for its id and method. */
const HEAD_BYTES = 64 * 1024;
/** How much of its end is kept: the SDK writes a response's id after its result. */
const TAIL_BYTES = 1024;

export class JsonLineReader {
  readonly #options: JsonLineReaderOptions;
  readonly #maxMessageBytes: number;
  /** The start of a line whose end has not arrived yet. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The rest of an oversize line being skipped up to its newline, with what is known of it. */
  #dropping: { head: EnvelopeHead; tail: Buffer } | undefined;
  /** Messages parsed but not yet handed over, in arrival order, with their lines' lengths. */
  readonly #queue: { message: JSONRPCMessage; bytes: number }[] = [];
  #draining = false;

  constructor(options: JsonLineReaderOptions) {
    this.#options = options;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  push(chunk: Buffer): void {
    chunksBeingRead++;
    try {
      this.#push(chunk);
    } finally {
      if (--chunksBeingRead === 0 && flushesAtChunkEnd.length > 0) flushAtChunkEnd();
    }
  }

  #push(chunk: Buffer): void {
    let start = 0;
    const dropping = this.#dropping;
    if (dropping) {
      const newline = chunk.indexOf(NEWLINE);
      dropping.tail = lastBytes(
        [dropping.tail, newline === -1 ? chunk : chunk.subarray(0, newline)],
        TAIL_BYTES,
      );
      if (newline === -1) return;
      this.#finishDrop(dropping);
      start = newline + 1;
    }
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      const size = this.#pendingBytes + newline - start;
      if (size > this.#maxMessageBytes)
        this.#finishDrop(this.#startDrop([...this.#pending, chunk.subarray(start, newline)], size));
      // Concatenating only once a line is complete keeps a large message linear in its size.
      else if (this.#pending.length > 0)
        this.#onLine(Buffer.concat([...this.#pending, chunk.subarray(start, newline)]));
      // A line within one chunk is decoded in place: no view of it is made.
      else this.#onLine(chunk, start, newline);
      if (this.#pending.length > 0) this.clear();
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.#pendingBytes += chunk.length - start;
      this.#pending.push(chunk.subarray(start));
      if (this.#pendingBytes > this.#maxMessageBytes) {
        this.#dropping = this.#startDrop(this.#pending, this.#pendingBytes);
        this.clear();
      }
    }
  }

  /** Drops a partial line (the stream ended or the transport closed). */
  clear(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  /** A line passed the bound: report it, and its id if its beginning gives it. */
  #startDrop(parts: readonly Buffer[], bytes: number): { head: EnvelopeHead; tail: Buffer } {
    const head = peekEnvelope(firstBytes(parts, HEAD_BYTES).toString('utf8'));
    this.#options.onOversize(bytes);
    if (head.id !== undefined) this.#options.onOversizeId?.({ id: head.id, isRequest: head.hasMethod });
    return { head, tail: lastBytes(parts, TAIL_BYTES) };
  }

  /** The dropped line ended: its id may be at its end. */
  #finishDrop(drop: { head: EnvelopeHead; tail: Buffer }): void {
    this.#dropping = undefined;
    if (drop.head.id !== undefined) return;
    const id = trailingId(drop.tail.toString('utf8'));
    if (id !== undefined) this.#options.onOversizeId?.({ id, isRequest: drop.head.hasMethod });
  }

  /** The line in bytes[start, end). */
  #onLine(bytes: Buffer, start = 0, end = bytes.length): void {
    if (!this.#draining && this.#options.takeBytes?.(bytes, start, end)) return;
    const size = end - start;
    // A carriage return before the newline is not part of the line.
    const line = bytes.toString(
      'utf8',
      start,
      end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end,
    );
    // Only a line that does not open with a brace can be blank.
    if (line.charCodeAt(0) !== OPEN_BRACE && line.trim() === '') return;
    if (!this.#draining && this.#options.takeLine?.(line, size)) return;
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
    if (this.#draining) this.#queue.push({ message, bytes: size });
    // Nothing waits: handed over at once. Unless it was dealt with at once (the fast path
    // took it), the next message waits a microtask (see #drain).
    else if (this.#options.onMessage(message, size) !== true) void this.#drain();
  }

  /**
   * Hands messages over one microtask apart. The SDK handles a notification one microtask
   * after it arrives but a response at once, so a progress notification and the result
   * that follows it in the same chunk would otherwise be handled out of order (and the
   * progress dropped as belonging to an unknown request). Called once a message was handed
   * over and not dealt with at once: it yields even when the queue is empty, as the next
   * line of this chunk is queued right after. Messages the fast path takes are handled in
   * one go, and their writes leave in one system call.
   */
  async #drain(): Promise<void> {
    this.#draining = true;
    await Promise.resolve();
    let next: { message: JSONRPCMessage; bytes: number } | undefined;
    while ((next = this.#queue.shift()) !== undefined)
      if (this.#options.onMessage(next.message, next.bytes) !== true) await Promise.resolve();
    this.#draining = false;
  }
}

function firstBytes(parts: readonly Buffer[], count: number): Buffer {
  const taken: Buffer[] = [];
  let size = 0;
  for (const part of parts) {
    if (size >= count) break;
    taken.push(part.subarray(0, count - size));
    size += taken.at(-1)!.length;
  }
  return Buffer.concat(taken);
}

function lastBytes(parts: readonly Buffer[], count: number): Buffer {
  const taken: Buffer[] = [];
  let size = 0;
  for (let i = parts.length - 1; i >= 0 && size < count; i--) {
    const part = parts[i]!;
    taken.unshift(part.subarray(Math.max(0, part.length - (count - size))));
    size += taken[0]!.length;
  }
  return Buffer.concat(taken);
}

/**
 * A top-level "id" written last, as the SDK writes responses (`…,"jsonrpc":"2.0","id":7}`).
 * Only one closing brace may follow it, so an id at the end of a nested object never matches.
 */
function trailingId(tail: string): string | number | undefined {
  const match = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
  if (!match) return undefined;
  return JSON.parse(match[1]!) as string | number;
}

/** JSON-RPC's code for a message that could not be parsed. */
const PARSE_ERROR = -32700;

export interface OversizeHandling {
  limit: number;
  /** Who sent it, for the log line ('the client', 'the server'). */
  sender: string;
  /** Sends a message back to the sender. */
  reply: (message: JSONRPCMessage) => void;
  /** Hands a message to our own side, as if it had arrived. */
  deliver: (message: JSONRPCMessage) => void;
  log?: ((why: string) => void) | undefined;
}

/**
 * The reader options that make a dropped message nobody's wait: it is logged once; a
 * request (an id and a method) is answered to its sender with a parse error, and a
 * response (an id, no method) becomes an error response for our own pending request.
 */
export function oversizeHandlers(
  handling: OversizeHandling,
): Pick<JsonLineReaderOptions, 'onOversize' | 'onOversizeId' | 'maxMessageBytes'> {
  const why = `a message of more than ${handling.limit} bytes from ${handling.sender} was dropped (the limit is --max-message-bytes)`;
  return {
    maxMessageBytes: handling.limit,
    onOversize: () => handling.log?.(why),
    onOversizeId: ({ id, isRequest }) => {
      const error = { jsonrpc: '2.0' as const, id, error: { code: PARSE_ERROR, message: why } };
      if (isRequest) handling.reply(error);
      else handling.deliver(error);
    },
  };
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
  if (typeof result !== 'object' || result === null || !reusedResults.has(result))
    return JSON.stringify(message);
  let json = reusedResults.get(result);
  if (json == null) {
    json = JSON.stringify(result);
    reusedResults.set(result, json);
  }
  const { id } = message as { id: string | number };
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}`;
}

interface BatchAccepted {
  promise: Promise<void>;
  settle: (error?: Error) => void;
}

/**
 * How many readers are handing over a chunk's lines now, and the flushes of the writers
 * posted to meanwhile: those go out as the chunk is done, in the same callback, rather than
 * on the next tick. A forwarded call is read and written within one chunk, and a tick of
 * its own for each write was a measurable part of a sequential call's cost.
 */
let chunksBeingRead = 0;
let flushesAtChunkEnd: (() => void)[] = [];

function flushAtChunkEnd(): void {
  const flushes = flushesAtChunkEnd;
  flushesAtChunkEnd = [];
  for (const flush of flushes) flush();
}

/**
 * Writes messages as lines. Messages sent in the same tick (or while one chunk of input is
 * read) go out in one write: a burst of 200 responses costs one system call and one wake-up
 * of the reader, not 200.
 */
export class JsonLineWriter {
  readonly #stream: Writable;
  /** Lines of this tick, written together once the tick's microtasks have run (a line may be in pieces). */
  #batch: (string | Buffer)[] = [];
  /** Whether a piece of the batch is bytes: then it is written as one buffer, not one string. */
  #batchHasBytes = false;
  /** Writes the batch; made once, so that a message costs no closure. */
  readonly #flushBatch = () => this.#flush();
  /** Settles when the current batch has been accepted by the stream; made only when someone waits. */
  #batchAccepted: BatchAccepted | undefined;
  /** Set while the stream is backed up: the next batch waits for 'drain'. */
  #drained: Promise<void> | undefined;

  constructor(stream: Writable) {
    this.#stream = stream;
  }

  /** Resolves once the stream accepted the line (at once unless it is backed up). */
  write(message: JSONRPCMessage): Promise<void> {
    return this.writeLine(serializeMessage(message));
  }

  /** The same for a message already serialized (one line of JSON, no newline). */
  writeLine(json: string): Promise<void> {
    this.postLine(json);
    if (!this.#batchAccepted) {
      let settle!: (error?: Error) => void;
      const promise = new Promise<void>((resolve, reject) => {
        settle = (error) => (error ? reject(error) : resolve());
      });
      this.#batchAccepted = { promise, settle };
    }
    return this.#batchAccepted.promise;
  }

  /**
   * Writes a message with nobody waiting for it (the forwarding fast path's): no promise is
   * made for it. A failed write shows as the stream's 'error', which the transports watch.
   */
  post(message: JSONRPCMessage): void {
    this.postLine(serializeMessage(message));
  }

  postLine(json: string): void {
    if (this.#batch.push(json + '\n') === 1) this.#scheduleFlush();
  }

  /**
   * Writes one line given in pieces, bytes and text (a child's answer with the client's id
   * spliced in): the bytes are copied once into the write, never decoded.
   */
  postPieces(pieces: readonly (string | Buffer)[]): void {
    if (this.#batch.length === 0) this.#scheduleFlush();
    for (const piece of pieces) this.#batch.push(piece);
    this.#batch.push('\n');
    this.#batchHasBytes = true;
  }

  #scheduleFlush(): void {
    // nextTick runs after the current microtasks, so every send of this tick is in.
    if (chunksBeingRead > 0) flushesAtChunkEnd.push(this.#flushBatch);
    else process.nextTick(this.#flushBatch);
  }

  /** Writes the batch at once, or once the stream has drained when it is backed up. */
  #flush(): void {
    if (this.#drained) void this.#flushWhenDrained(this.#drained);
    else this.#write();
  }

  async #flushWhenDrained(drained: Promise<void>): Promise<void> {
    try {
      await drained;
    } catch (error) {
      // The stream closed: whoever waits for this batch is told.
      this.#batchAccepted?.settle(error as Error);
      return;
    }
    this.#flush();
  }

  // Synchronous, with no promise of its own: the usual batch (a line or two of one call) is
  // written in the tick it was posted, for nothing more than the write.
  #write(): void {
    const lines = this.#batch;
    const hasBytes = this.#batchHasBytes;
    const accepted = this.#batchAccepted;
    this.#batch = [];
    this.#batchHasBytes = false;
    this.#batchAccepted = undefined;
    let written: boolean;
    try {
      written = this.#stream.write(
        hasBytes ? concatPieces(lines) : lines.length === 1 ? lines[0]! : (lines as string[]).join(''),
      );
    } catch (error) {
      accepted?.settle(error as Error);
      return;
    }
    if (written) {
      accepted?.settle();
      return;
    }
    const drained = (this.#drained = this.#waitForDrain());
    if (accepted) drained.then(() => accepted.settle(), accepted.settle);
    else drained.catch(() => {});
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
      const onClose = () => done(new StreamClosedError());
      stream.once('drain', onDrain);
      stream.once('close', onClose);
    });
  }
}

/** Text and bytes as one buffer: one allocation, each piece written or copied into it once. */
function concatPieces(pieces: readonly (string | Buffer)[]): Buffer {
  let size = 0;
  for (const piece of pieces) size += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? out.write(piece, at) : piece.copy(out, at);
  return out;
}

/** A message could not be written: the other side closed the stream (a child going away). */
export class StreamClosedError extends Error {
  override readonly name = 'StreamClosedError';
  constructor() {
    super('the stream closed before it accepted the message');
  }
}
