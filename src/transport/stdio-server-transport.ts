// The client's side of mcpmux: JSON-RPC lines on our stdin and stdout. It replaces the
// SDK's StdioServerTransport, which validates every incoming message against the whole
// JSON-RPC union schema (the SDK checks each body again where it is handled) and makes
// one write per message; here a non-JSON line is logged and skipped, not fatal.
import type { Readable, Writable } from 'node:stream';
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';
import { megabytes } from '../common/byte-sizes.js';
import { clientBackedUp, clientDrained } from '../protocol/client-backpressure.js';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  JsonLineReader,
  failedMessageHandler,
  oversizeHandlers,
} from '../protocol/json-line-reader.js';
import { JsonLineWriter } from '../protocol/json-line-writer.js';
import { OpenExchanges } from './open-exchanges.js';
import { refusedRequest } from '../protocol/request-ids.js';
import { notJsonRpcRequest } from '../protocol/request-shape.js';
import { wellFormedAnswer } from '../protocol/answer-shape.js';

export interface StdioServerTransportOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Called with each line that is not a JSON-RPC message. */
  onSkippedLine?: (line: string) => void;
  /** Called once for each message dropped for its size, or refused for its id. */
  onDropped?: (why: string) => void;
  /** Largest message accepted, in bytes. Default 16 MiB. */
  maxMessageBytes?: number;
  /**
   * Sees each message before it is handed over (the serving layer watches the opening
   * exchange). When it returns a promise, that message and the ones after it are handed over
   * once it settles, in order.
   */
  onIncoming?: (message: JSONRPCMessage) => Promise<void> | void;
  /**
   * Offered each message before anything else, unless messages are being held: a message it
   * takes (the forwarding fast path's) is not handed over.
   */
  claim?: (message: JSONRPCMessage) => boolean;
  /** The same for a line before it is parsed: a line it takes is neither parsed nor handed over. */
  claimLine?: (line: string) => boolean;
  /** Told when the client's input stops being read because it does not read its answers, and when it is read again. */
  onInputPaused?: (why: string | undefined) => void;
  /**
   * Whether children are not read while this stream is backed up (client-backpressure.ts): so
   * for mcpmux's one stdio client (the default), not for a connection that is one among many.
   */
  pausesChildren?: boolean;
}

export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #reader: JsonLineReader;
  readonly #writer: JsonLineWriter;
  #closed = false;
  /** Settles when the messages held back so far have been handed over. */
  #holding: Promise<void> | undefined;
  /** An answer to hold back when the SDK sends it (holdAnswer). */
  #heldAnswer:
    { id: string | number; until: (answer: JSONRPCMessage) => Promise<JSONRPCMessage> } | undefined;
  readonly #onData = (chunk: Buffer) => this.#reader.push(chunk);
  readonly #onError = (error: Error) => this.onerror?.(error);
  readonly #exchanges = new OpenExchanges();
  readonly #onEnd = () => {
    for (const failure of this.#exchanges.inputEnded()) this.onmessage?.(failure);
  };
  /** Answers waiting for the client past which its requests are not read: the largest message. */
  readonly #unreadBound: number;
  /** The client's input is paused: its answers wait past the bound. */
  #inputPaused = false;
  readonly #onInputPaused: ((why: string | undefined) => void) | undefined;

  constructor(options: StdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#unreadBound = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#onInputPaused = options.onInputPaused;
    // While the client reads slower than children write, children are not read (client-backpressure.ts).
    const pausesChildren = options.pausesChildren ?? true;
    this.#writer = new JsonLineWriter(this.#stdout, {
      backedUp: () => {
        if (pausesChildren) clientBackedUp();
      },
      drained: () => {
        if (pausesChildren) clientDrained();
        this.#resumeInputIfRead();
      },
      wrote: () => this.#resumeInputIfRead(),
    });
    this.#reader = new JsonLineReader({
      onMessage: (received) => this.#received(received, options),
      onSkippedLine: (line, parsed) => {
        // A request that only lacks "jsonrpc": "2.0" is answered, so that its client does not wait.
        const refusal = parsed === undefined ? undefined : notJsonRpcRequest(parsed);
        if (!refusal) return options.onSkippedLine?.(line);
        this.post(refusal.answer);
        options.onDropped?.(refusal.why);
      },
      ...(options.claimLine && {
        takeLine: (line: string) => !this.#holding && options.claimLine!(line),
      }),
      ...oversizeHandlers({
        limit: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
        sender: 'the client',
        reply: (message) => this.post(message),
        deliver: (message) => {
          this.#exchanges.read(message);
          this.onmessage?.(message);
        },
        log: options.onDropped,
      }),
      ...failedMessageHandler({
        sender: 'the client',
        reply: (message) => this.post(message),
        log: options.onDropped,
      }),
    });
  }

  /** A message of the client, read whole: refused, offered to the fast path, or given to the SDK (held while an opening is). */
  #received(received: JSONRPCMessage, options: StdioServerTransportOptions): boolean | void {
    const refusal = refusedRequest(received);
    if (refusal) {
      // The SDK drops a bad id without a word (the client would wait forever), and answers a
      // malformed initialize as an internal error with raw JSON.
      this.post(refusal.answer);
      options.onDropped?.(refusal.why);
      return true;
    }
    // The client's malformed answer to a server's question fails that question (answer-shape.ts).
    const { answer: message, why } = wellFormedAnswer(received, 'the client');
    if (why !== undefined) options.onDropped?.(why);
    if (!this.#holding && options.claim?.(message)) return true;
    this.#exchanges.read(message);
    const hold = options.onIncoming?.(message);
    if (!hold && !this.#holding) return this.onmessage?.(message);
    const deliver = () => this.onmessage?.(message);
    const held = (this.#holding ?? Promise.resolve()).then(() => hold).then(deliver, deliver);
    this.#holding = held;
    void held.then(() => {
      if (this.#holding === held) this.#holding = undefined;
    });
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
    // 'close' alone when the input fails rather than ends.
    this.#stdin.once('end', this.#onEnd);
    this.#stdin.once('close', this.#onEnd);
    this.#stdout.on('error', this.#onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('transport closed'));
    const held = this.#heldAnswer;
    if (held && !('method' in message) && 'id' in message && message.id === held.id) {
      this.#heldAnswer = undefined;
      const release = this.#writer.hold();
      // Still owed to the client until it goes out.
      const write = (answer: JSONRPCMessage) => {
        release(answer);
        this.#exchanges.sent(answer);
      };
      held.until(message).then(write, () => write(message));
      return Promise.resolve();
    }
    const failure = this.#exchanges.sent(message);
    if (failure) {
      // A request the client can no longer answer (its input ended) fails now, not at its timeout.
      queueMicrotask(() => this.onmessage?.(failure));
      return Promise.resolve();
    }
    const written = this.#writer.write(message);
    this.#pauseInputIfUnread();
    return written;
  }

  /**
   * A client that writes requests and never reads its answers (a bug, or a hostile client)
   * would have them pile up in mcpmux's memory: 20,000 tools/list of server-everything took
   * it from 72 to 213 MB. Past the largest message of answers waiting, its requests are not
   * read (its writes wait, as they would for any server that answers in turn) until it has
   * read them. Children are already not read while it is backed up (client-backpressure.ts).
   * A client that reads as it writes (every MCP client) never comes near it.
   */
  #pauseInputIfUnread(): void {
    if (this.#inputPaused || this.#writer.backlog <= this.#unreadBound) return;
    this.#inputPaused = true;
    this.#stdin.pause();
    this.#onInputPaused?.(
      `the client is not reading its answers: ${megabytes(this.#writer.backlog)} wait for it, past the bound of ${megabytes(this.#unreadBound)} (--max-message-bytes); its requests are not read until it reads them`,
    );
  }

  /** After a drain, or a batch the pipe took at once (a large one often is: then no drain comes). */
  #resumeInputIfRead(): void {
    if (!this.#inputPaused || this.#closed || this.#writer.backlog > this.#unreadBound) return;
    this.#inputPaused = false;
    this.#stdin.resume();
    this.#onInputPaused?.(undefined);
  }

  /** Requests read from the client and handed to the SDK, not yet answered (the fast path counts its own). */
  get unanswered(): number {
    return this.#exchanges.owed;
  }

  /** Nothing waits to be written to the client. */
  get flushed(): boolean {
    return this.#writer.backlog === 0;
  }

  /**
   * The answer to request `id` goes out once `until` gives it (it may change it), and nothing
   * is written to the client before it. Used for mcpmux's initialize answer (stdio-serving.ts).
   */
  holdAnswer(id: string | number, until: (answer: JSONRPCMessage) => Promise<JSONRPCMessage>): void {
    this.#heldAnswer = { id, until };
  }

  /**
   * The fast path's answers: sent with nobody waiting (no promise per message), `pieces` one
   * already serialized (passed through). After close they are dropped, as the client is gone.
   */
  post(message: JSONRPCMessage): void {
    if (this.#closed) return;
    this.#writer.post(message);
    this.#pauseInputIfUnread();
  }

  /** The same for a line in pieces of text and bytes (a child's answer with the client's id spliced in). */
  postPieces(pieces: readonly (string | Buffer)[]): void {
    if (this.#closed) return;
    this.#writer.postPieces(pieces);
    this.#pauseInputIfUnread();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('close', this.#onEnd);
    this.#stdout.off('error', this.#onError);
    this.#reader.clear();
    this.onclose?.();
  }
}
