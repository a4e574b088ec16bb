// An SDK Transport over a spawned child's stdin/stdout. Unlike the SDK's stdio client
// transport it does not own the process (child/process/child-process.ts does), and it skips
// non-JSON lines a server prints on stdout instead of failing.
import type { Transport, JSONRPCMessage } from '@modelcontextprotocol/server';
import type { ChildProcess } from './child-process.js';
import { throttleByClient } from '../../protocol/client-backpressure.js';
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  JsonLineReader,
  failedMessageHandler,
  oversizeHandlers,
} from '../../protocol/json-line-reader.js';
import { JsonLineWriter } from '../../protocol/json-line-writer.js';
import { unparsableAnswer, wellFormedAnswer } from '../../protocol/answer-shape.js';
import { invalidRequestId } from '../../protocol/request-ids.js';
import { malformedRequest, notJsonRpcRequest } from '../../protocol/request-shape.js';

/** What the transport uses of a child process: its pipes and its pid (a socket may stand in: child/remote/hop-link.ts). */
export type ChildPipes = Pick<ChildProcess, 'stdin' | 'stdout' | 'stderr' | 'pid'>;

export interface StdioChildTransportOptions {
  /** Called with each stdout line that is not a JSON-RPC message. */
  onSkippedLine?: (line: string) => void;
  /** Called once for each message dropped for its size, whose handling failed, or that was malformed. */
  onDropped?: (why: string) => void;
  /**
   * An error answer with a null id: the child could not read a message of ours well enough to
   * know its id (JSON-RPC's parse error, say). No request can be given it; it is reported.
   */
  onErrorWithoutId?: (error: { code?: unknown; message?: unknown }) => void;
  /** Largest message accepted, in bytes. Default 16 MiB. */
  maxMessageBytes?: number;
  /**
   * Why a request may not be written now (the child's unread input is past its bound:
   * input-backlog.ts); send() rejects with it. Other messages always go.
   */
  refuseRequest?: () => Error | undefined;
  /** The child's stdin was found closed (EPIPE) before its stdout: the transport closes next. */
  onInputClosed?: () => void;
  /** Its stdout was left with an open line that ends like a message (json-line-reader.ts). */
  onUnterminated?: () => void;
}

export class StdioChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Sees each message first, with its line's length; a message it takes (a response or
   * progress of a call on the forwarding fast path) never reaches onmessage.
   */
  divert?: (message: JSONRPCMessage, bytes: number) => boolean;
  /** Sees each line as bytes before it is decoded (when nothing waits to be handed over): a line it takes is not parsed. */
  takeBytes?: (bytes: Buffer, start: number, end: number) => boolean;

  readonly #process: ChildPipes;
  readonly #options: StdioChildTransportOptions;
  readonly #reader: JsonLineReader;
  readonly #writer: JsonLineWriter;
  #closed = false;
  #stdoutBytes = 0;
  /** What stdout held after its last newline when the transport closed (the report of a failed start reads it). */
  #unterminatedAtClose: string | undefined;
  /** Ends the pausing of this child's stdout while the client is backed up. */
  #unthrottle: (() => void) | undefined;

  constructor(process: ChildPipes, options: StdioChildTransportOptions = {}) {
    this.#process = process;
    this.#options = options;
    this.#writer = new JsonLineWriter(process.stdin);
    this.#reader = new JsonLineReader({
      onMessage: (message, bytes) => this.#handOver(message, bytes),
      onSkippedLine: (line, parsed) => {
        const refusal = parsed === undefined ? undefined : notJsonRpcRequest(parsed, 'the server');
        const broken = parsed === undefined ? unparsableAnswer(line) : undefined;
        if (refusal) this.#refuse(refusal);
        else if (broken) {
          options.onDropped?.(`${broken.why}; the request it answers fails with that`);
          this.#handOver(broken.answer, line.length);
        } else options.onSkippedLine?.(line);
      },
      takeBytes: (bytes, start, end) => this.takeBytes?.(bytes, start, end) ?? false,
      ...(options.onUnterminated && { onUnterminated: options.onUnterminated }),
      ...oversizeHandlers({
        limit: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
        sender: 'the server',
        reply: (message) => this.post(message),
        deliver: (message) => this.#handOver(message, 0),
        log: options.onDropped,
      }),
      ...failedMessageHandler({
        sender: 'the server',
        reply: (message) => this.post(message),
        log: options.onDropped,
      }),
    });
  }

  /**
   * The child's pid and stderr. The SDK's client takes a transport with both for stdio, where
   * a server that does not answer the 2026-07-28 probe in time (a slow start, a server that
   * ignores it) or closes during it is a 2025 server, instead of a failed connection.
   */
  get pid(): number {
    return this.#process.pid;
  }

  get stderr(): NodeJS.ReadableStream {
    return this.#process.stderr;
  }

  /** How many bytes the child has written on stdout. */
  get stdoutBytes(): number {
    return this.#stdoutBytes;
  }

  /** What the child has written on stdout since its last newline (when it closed, after that); undefined when nothing. */
  unterminated(): string | undefined {
    return this.#closed ? this.#unterminatedAtClose : this.#reader.unterminated();
  }

  /** What waits to reach the child's stdin, in bytes (json-line-writer.ts). */
  get backlog(): number {
    return this.#writer.backlog;
  }

  /** Since when the child's stdin has been full, while it is. */
  get backedUpSince(): number | undefined {
    return this.#writer.backedUpSince;
  }

  async start(): Promise<void> {
    const { stdout, stdin } = this.#process;
    stdout.on('data', (chunk: Buffer) => {
      this.#stdoutBytes += chunk.length;
      this.#reader.push(chunk);
    });
    this.#unthrottle = throttleByClient(stdout);
    stdout.once('close', () => this.#markClosed());
    // A child that exited before it was spoken to closed its stdout already: no event will come.
    if (stdout.closed || stdout.destroyed) queueMicrotask(() => this.#markClosed());
    // Writing to a child that died raises EPIPE on stdin, and so does writing to one that closed
    // its stdin and lives on: nothing can reach it again, so its connection is lost either way
    // (judgeEnd waits for an exit before it says which).
    stdin.on('error', (error: NodeJS.ErrnoException) => {
      this.onerror?.(error);
      if (error.code !== 'EPIPE' || this.#closed) return;
      this.#options.onInputClosed?.();
      this.#markClosed();
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('transport closed'));
    if ('method' in message && 'id' in message) {
      const refused = this.#options.refuseRequest?.();
      if (refused) return Promise.reject(refused);
    }
    return this.#writer.write(message);
  }

  /** Sends with nobody waiting (the fast path's requests): no promise per message; dropped once closed. */
  post(message: JSONRPCMessage): void {
    if (!this.#closed) this.#writer.post(message);
  }

  /** The same for a line already serialized (one line of JSON, no newline). */
  postLine(line: string): void {
    if (!this.#closed) this.#writer.postLine(line);
  }

  /** Closes our side: the child sees EOF on stdin. Ending the process is child-process.ts's job. */
  async close(): Promise<void> {
    this.#process.stdin.end();
    this.#markClosed();
  }

  /** True when the fast path took it. */
  #handOver(received: JSONRPCMessage, bytes: number): boolean {
    // A request of the server's that mcpmux cannot take is answered, so that the server does not wait.
    const refusal = invalidRequestId(received, 'the server') ?? malformedRequest(received, 'the server');
    if (refusal) return this.#refuse(refusal);
    // A malformed answer settles its call as an error, on either path (answer-shape.ts).
    const { answer: message, why } = wellFormedAnswer(received);
    if (why !== undefined) this.#options.onDropped?.(`${why}; the request it answers fails with that`);
    if (this.divert?.(message, bytes)) return true;
    if ('error' in message && message.id === null) {
      this.#options.onErrorWithoutId?.(message.error);
      return true;
    }
    this.onmessage?.(message);
    return false;
  }

  #refuse(refusal: { answer: JSONRPCMessage; why: string }): true {
    this.post(refusal.answer);
    this.#options.onDropped?.(refusal.why);
    return true;
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unthrottle?.();
    this.#unterminatedAtClose = this.#reader.unterminated();
    this.#reader.clear();
    this.onclose?.();
  }
}
