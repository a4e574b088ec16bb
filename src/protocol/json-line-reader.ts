// Reading newline-delimited JSON-RPC, the framing of MCP's stdio transport, for both sides
// of mcpmux (the client on our stdin, each child on its stdout): frames bytes in linear
// time, skips lines that are not JSON-RPC, drops a line past the size bound without holding
// more than the bound (an endless line costs no more memory than that), and hands messages
// over in order. Writing is json-line-writer.ts.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { INTERNAL_ERROR, unhandledReason } from '../common/errors.js';
import { firstBytes, lastBytes, peekEnvelope, trailingId, type EnvelopeHead } from './envelope-peek.js';
import { chunkReadEnds, chunkReadStarts } from './json-line-writer.js';

export interface JsonLineReaderOptions {
  /**
   * A message, with the length in bytes of the line it came on. Returning true says it was
   * dealt with at once (the forwarding fast path took it): the next one need not wait.
   */
  onMessage: (message: JSONRPCMessage, bytes: number) => boolean | void;
  /** A line that is not a JSON-RPC message (a stray log line, say), with what it parsed to if JSON. */
  onSkippedLine: (line: string, parsed?: unknown) => void;
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
  /**
   * Handling `message` threw (a value nested deeper than the stack allows, say): it is
   * reported here and the messages after it go on. Without it, the error is thrown on.
   */
  onFailed?: (message: JSONRPCMessage, error: unknown) => void;
  /**
   * A read left a line open that ends like a message (`}`) and is not large: a sender that
   * forgot the newline, if nothing more comes (the caller judges, from `unterminated()`).
   */
  onUnterminated?: () => void;
}

export interface DroppedMessage {
  id: string | number;
  /** A request (it has a method), or else a response. */
  isRequest: boolean;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
/** Longest open line offered to onUnterminated: a message that forgot its newline is small at start-up. */
const UNTERMINATED_CHECKED = 64 * 1024;
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
  /** Whether a byte has arrived yet: a UTF-8 byte-order mark before the first line is dropped. */
  #started = false;

  constructor(options: JsonLineReaderOptions) {
    this.#options = options;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  push(chunk: Buffer): void {
    // Writes posted while this chunk's lines are handed over leave when it is done.
    chunkReadStarts();
    try {
      this.#push(chunk);
    } finally {
      chunkReadEnds();
    }
  }

  #push(chunk: Buffer): void {
    let start = 0;
    // A program on Windows may open its output with a byte-order mark (PowerShell's pipes,
    // .NET's UTF-8 with BOM); as TextDecoder does, it is not part of the text.
    if (!this.#started && chunk.length > 0) {
      this.#started = true;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) start = 3;
    }
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
      } else if (chunk[chunk.length - 1] === CLOSE_BRACE && this.#pendingBytes <= UNTERMINATED_CHECKED)
        this.#options.onUnterminated?.();
    }
  }

  /** What has arrived of a line whose newline has not, decoded; undefined when none is open. */
  unterminated(): string | undefined {
    return this.#pending.length > 0 ? Buffer.concat(this.#pending).toString('utf8') : undefined;
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
    // Only a line that does not open with a brace can be blank, or be no message at all.
    if (line.charCodeAt(0) !== OPEN_BRACE) {
      const first = line.trimStart().charCodeAt(0);
      if (Number.isNaN(first)) return;
      // Not parsed: a failed JSON.parse throws, and a server printing a flood of text on
      // stdout (`yes`, a debug log) cost an exception a line, enough to hold up every timer.
      if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return this.#options.onSkippedLine(line);
    }
    if (!this.#draining && this.#options.takeLine?.(line, size)) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#options.onSkippedLine(line);
      return;
    }
    if (isJsonRpcBatch(message)) {
      // A JSON-RPC batch, which MCP's 2025-03-26 revision had every receiver take (the SDK
      // takes none on stdio): each message is handed over on its own, in order, and
      // answered on its own, which every MCP client matches by id. Each is given the line's
      // length, an upper bound of its own (a result is measured again before it is cut).
      for (const each of message) this.#handOver(each, size);
      return;
    }
    if (!isJsonRpcMessage(message)) {
      this.#options.onSkippedLine(line, message);
      return;
    }
    this.#handOver(message, size);
  }

  #handOver(message: JSONRPCMessage, bytes: number): void {
    // Only the envelope is checked: the SDK validates each body against its method's
    // schema where it is consumed, so a full schema check here would be paid twice.
    if (this.#draining) this.#queue.push({ message, bytes });
    // Nothing waits: handed over at once. Unless it was dealt with at once (the fast path
    // took it), the next message waits a microtask (see #drain).
    else if (this.#deliver(message, bytes) !== true) void this.#drain();
  }

  #deliver(message: JSONRPCMessage, bytes: number): boolean | void {
    if (!this.#options.onFailed) return this.#options.onMessage(message, bytes);
    try {
      return this.#options.onMessage(message, bytes);
    } catch (error) {
      this.#options.onFailed(message, error);
      return true;
    }
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
      if (this.#deliver(next.message, next.bytes) !== true) await Promise.resolve();
    this.#draining = false;
  }
}

/** JSON-RPC's code for a message that could not be parsed. */
export const PARSE_ERROR = -32700;

/** What is said of a message dropped for its size, to the log and to whoever waited for it. */
export function oversizeReason(limit: number, sender: string): string {
  return `a message of more than ${limit} bytes from ${sender} was dropped (the limit is --max-message-bytes)`;
}

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
  const why = oversizeReason(handling.limit, handling.sender);
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

/**
 * The reader option that contains a message whose handling threw: it is logged, and a
 * request is answered to its sender with JSON-RPC's internal error, so nobody waits for it.
 * JSON.parse takes any depth, but JSON.stringify and schema checks recurse: a message
 * nested 5,000 levels (10 KB) from a child or the client ended mcpmux with a RangeError.
 */
export function failedMessageHandler(handling: {
  sender: string;
  reply: (message: JSONRPCMessage) => void;
  log?: ((why: string) => void) | undefined;
}): Pick<JsonLineReaderOptions, 'onFailed'> {
  return {
    onFailed: (message, error) => {
      const what = 'method' in message ? message.method : 'an answer';
      const why = `mcpmux could not handle ${what} from ${handling.sender}: ${unhandledReason(error)}`;
      handling.log?.(why);
      if ('method' in message && 'id' in message)
        handling.reply({ jsonrpc: '2.0', id: message.id, error: { code: INTERNAL_ERROR, message: why } });
    },
  };
}

/** A JSON-RPC 2.0 batch: an array of messages (an empty one is not). */
function isJsonRpcBatch(value: unknown): value is JSONRPCMessage[] {
  return Array.isArray(value) && value.length > 0 && value.every(isJsonRpcMessage);
}

/** A JSON-RPC 2.0 request, notification or response, judged by its envelope. */
export function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as { jsonrpc?: unknown; method?: unknown; id?: unknown };
  if (message.jsonrpc !== '2.0') return false;
  return typeof message.method === 'string' || 'id' in message;
}
