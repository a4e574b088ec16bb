// What waits for one HTTP session's client to read it. Over stdio a client that stops reading
// makes mcpmux stop reading the children (client-backpressure.ts); over HTTP the children
// serve every session, so one client that stops reading its SSE stream must not hold them
// back. Its messages waited in mcpmux's memory instead, without bound: a server logging
// 100,000 messages of 250 bytes took mcpmux from 80 to 276 MB of RSS while one session's GET
// stream went unread. Now log messages and progress, which the client can do without, are
// dropped while more than a bound waits for it, counted, and the count is told once it reads.
// The same holds for one 2026-07-28 request's stream (a long call's progress): 100,000
// progress messages unread took mcpmux from 76 to 283 MB.
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { megabytes } from '../common/byte-sizes.js';
import type { Logger } from '../common/log.js';

/** Bytes that may wait for one session's client before its log messages and progress are dropped. */
export const SESSION_BACKLOG_BYTES = 1024 * 1024;

/** What a client can lose without losing a request, an answer or a change of state. */
const SHEDDABLE: ReadonlySet<string> = new Set(['notifications/message', 'notifications/progress']);

export interface SessionBacklogOptions {
  /** Default SESSION_BACKLOG_BYTES. */
  maxBytes?: number;
  /** The first message dropped since the client last caught up. */
  onShedding: (waitingBytes: number) => void;
  /** The client read what waited: `dropped` messages were lost meanwhile. */
  onCaughtUp: (dropped: number) => void;
}

export class SessionBacklog {
  readonly #responses = new Set<ServerResponse>();
  readonly #maxBytes: number;
  readonly #options: SessionBacklogOptions;
  #dropped = 0;

  constructor(options: SessionBacklogOptions) {
    this.#options = options;
    this.#maxBytes = options.maxBytes ?? SESSION_BACKLOG_BYTES;
  }

  /**
   * A response (an SSE stream) of the session. The SDK's adapter stops taking from the
   * transport's web stream while `write` says the socket is full, and what then waits there
   * cannot be measured; taken at once, it waits in Node's buffer, where `writableLength`
   * counts it to the byte. The adapter writes nothing else, so nothing else is changed.
   */
  watch(res: ServerResponse): void {
    this.#responses.add(res);
    const write = res.write;
    res.write = function (this: ServerResponse, ...args: Parameters<ServerResponse['write']>) {
      write.apply(this, args);
      return true;
    } as ServerResponse['write'];
    res.on('drain', () => this.#maybeCaughtUp());
    res.once('close', () => {
      this.#responses.delete(res);
      this.#maybeCaughtUp();
    });
  }

  /** Bytes written for the client and not yet taken by its sockets. */
  get waitingBytes(): number {
    let bytes = 0;
    for (const res of this.#responses) bytes += res.writableLength;
    return bytes;
  }

  /** Whether `message` goes to the client now: anything does, but a log message or progress while the backlog is full. */
  admits(message: JSONRPCMessage): boolean {
    if (!('method' in message) || 'id' in message || !SHEDDABLE.has(message.method)) return true;
    const waiting = this.waitingBytes;
    if (waiting <= this.#maxBytes) return true;
    if (this.#dropped++ === 0) this.#options.onShedding(waiting);
    return false;
  }

  /**
   * Sheds at the response itself, for one whose messages the SDK writes as SSE frames with
   * no send of ours on the way (a 2026-07-28 request's stream, from its per-request
   * transport). A frame is read only while messages are being shed; what was shed is
   * reported (`onCaughtUp`) at the latest just before the request's answer, which ends the
   * stream. `onCaughtUp` must write with the `write` it is given, which sheds nothing.
   */
  watchFrames(res: ServerResponse): (chunk: string) => void {
    this.watch(res);
    const write = res.write;
    const backlog = this;
    res.write = function (this: ServerResponse, ...args: Parameters<ServerResponse['write']>) {
      if (backlog.#dropped > 0 || backlog.waitingBytes > backlog.#maxBytes) {
        const message = sseMessage(args[0]);
        if (message && !backlog.admits(message)) return true;
        if (message && !('method' in message)) backlog.#report();
      }
      return write.apply(this, args);
    } as ServerResponse['write'];
    return (chunk) => void (write as (chunk: string) => boolean).call(res, chunk);
  }

  #maybeCaughtUp(): void {
    if (this.#dropped > 0 && this.waitingBytes <= this.#maxBytes / 2) this.#report();
  }

  #report(): void {
    if (this.#dropped === 0) return;
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.#options.onCaughtUp(dropped);
  }
}

/** A 2025 session's messages go out through its backlog, which drops log messages and progress its client does not read. */
export function boundSessionBacklog(transport: Transport, logger: Logger): SessionBacklog {
  const send = transport.send.bind(transport);
  const backlog = new SessionBacklog({
    onShedding: (waiting) =>
      logger.warn(
        `HTTP session ${transport.sessionId}: its client has not read ${megabytes(waiting)}; its log messages and progress are dropped until it does`,
      ),
    onCaughtUp: (dropped) => {
      logger.info(`HTTP session ${transport.sessionId}: ${droppedSentence(dropped)}`);
      send(droppedNotice(dropped)).catch(() => {});
    },
  });
  transport.send = (message, options) =>
    backlog.admits(message) ? send(message, options) : Promise.resolve();
  return backlog;
}

/** The same for one 2026-07-28 request's stream, which the SDK writes with no send of ours on the way. */
export function boundRequestStream(res: ServerResponse, logger: Logger): void {
  let write: (chunk: string) => void = () => {};
  const backlog = new SessionBacklog({
    onShedding: (waiting) =>
      logger.warn(
        `HTTP (2026-07-28): a request's client has not read ${megabytes(waiting)} of its stream; its log messages and progress are dropped until it does`,
      ),
    onCaughtUp: (dropped) => {
      logger.info(`HTTP (2026-07-28): ${droppedSentence(dropped)}`);
      if (res.writable) write(`event: message\ndata: ${JSON.stringify(droppedNotice(dropped))}\n\n`);
    },
  });
  write = backlog.watchFrames(res);
}

const droppedSentence = (dropped: number) =>
  `${dropped} log and progress message(s) were dropped while this client did not read its stream`;

/** What the client is told once it reads again. */
function droppedNotice(dropped: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'warning', logger: 'mcpmux', data: `mcpmux: ${droppedSentence(dropped)}` },
  };
}

/**
 * The message of an SSE frame the SDK wrote (one frame a write), or undefined for anything
 * else. Read only while messages are shed, so the parse costs nothing the rest of the time.
 */
function sseMessage(chunk: unknown): JSONRPCMessage | undefined {
  const text =
    typeof chunk === 'string'
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8')
        : '';
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  if (data === undefined) return undefined;
  try {
    const message: unknown = JSON.parse(data.slice('data: '.length));
    return typeof message === 'object' && message !== null ? (message as JSONRPCMessage) : undefined;
  } catch {
    return undefined;
  }
}
