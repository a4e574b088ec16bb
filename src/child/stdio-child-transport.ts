// An SDK Transport over a spawned child's stdin/stdout. Unlike the SDK's stdio client
// transport it does not own the process (child-process.ts does), it skips non-JSON lines
// a server prints on stdout instead of failing, and it frames large messages in linear time.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ChildProcess } from './child-process.js';

export interface StdioChildTransportOptions {
  /** Called with each stdout line that is not a JSON-RPC message. */
  onSkippedLine?: (line: string) => void;
  /** Largest message accepted, in bytes. Default 256 MiB. */
  maxMessageBytes?: number;
}

const NEWLINE = 0x0a;

export class StdioChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #process: ChildProcess;
  readonly #onSkippedLine: (line: string) => void;
  readonly #maxMessageBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #closed = false;
  /** Messages parsed but not yet handed to the SDK, in arrival order. */
  readonly #queue: JSONRPCMessage[] = [];
  #draining = false;

  constructor(process: ChildProcess, options: StdioChildTransportOptions = {}) {
    this.#process = process;
    this.#onSkippedLine = options.onSkippedLine ?? (() => {});
    this.#maxMessageBytes = options.maxMessageBytes ?? 256 * 1024 * 1024;
  }

  async start(): Promise<void> {
    const { stdout, stdin } = this.#process;
    stdout.on('data', (chunk: Buffer) => this.#onData(chunk));
    stdout.once('close', () => this.#markClosed());
    // Writing to a child that died raises EPIPE on stdin; the exit is reported elsewhere.
    stdin.on('error', (error) => this.onerror?.(error));
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('transport closed'));
    return new Promise((resolve, reject) => {
      const stdin = this.#process.stdin;
      const ok = stdin.write(JSON.stringify(message) + '\n', (error) => (error ? reject(error) : undefined));
      if (ok) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Closes our side: the child sees EOF on stdin. Ending the process is child-process.ts's job. */
  async close(): Promise<void> {
    this.#process.stdin.end();
    this.#markClosed();
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.onclose?.();
  }

  #onData(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      const line = this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece]);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#onLine(line.toString('utf8'));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.#pendingBytes += chunk.length - start;
      if (this.#pendingBytes > this.#maxMessageBytes) {
        this.#pending = [];
        this.#pendingBytes = 0;
        this.onerror?.(new Error(`a message from the child exceeded ${this.#maxMessageBytes} bytes and was dropped`));
        return;
      }
      this.#pending.push(chunk.subarray(start));
    }
  }

  #onLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#onSkippedLine(line);
      return;
    }
    if (!isJsonRpcMessage(message)) {
      this.#onSkippedLine(line);
      return;
    }
    // Message bodies are validated by the SDK where they are consumed; the envelope check is enough here.
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
      this.onmessage?.(message);
      // Yield even when the queue is empty: the next line of this chunk is queued right after.
      await Promise.resolve();
    }
    this.#draining = false;
  }
}

function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  return typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
}
