// What waits for one HTTP session's client to read it. Over stdio a client that stops reading
// makes mcpmux stop reading the children (client-backpressure.ts); over HTTP the children
// serve every session, so one client that stops reading its SSE stream must not hold them
// back. Its messages waited in mcpmux's memory instead, without bound: a server logging
// 100,000 messages of 250 bytes took mcpmux from 80 to 276 MB of RSS while one session's GET
// stream went unread. Now log messages and progress, which the client can do without, are
// dropped while more than a bound waits for it, counted, and the count is told once it reads.
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

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

  #maybeCaughtUp(): void {
    if (this.#dropped === 0 || this.waitingBytes > this.#maxBytes / 2) return;
    const dropped = this.#dropped;
    this.#dropped = 0;
    this.#options.onCaughtUp(dropped);
  }
}
