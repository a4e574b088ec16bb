// Keeps the last lines a child wrote on stderr (bounded) and forwards each line as it
// arrives, so a start failure or a crash can show why, and the operator sees it live.
import type { Readable } from 'node:stream';

export interface StderrTailOptions {
  /** Lines kept. Default 50. */
  maxLines?: number;
  /** Characters kept of one line. Default 1000. */
  maxLineLength?: number;
  /** Called with every complete line. */
  onLine?: (line: string) => void;
}

export class StderrTail {
  readonly #lines: string[] = [];
  readonly #maxLines: number;
  readonly #maxLineLength: number;
  readonly #onLine: (line: string) => void;
  #partial = '';

  constructor(options: StderrTailOptions = {}) {
    this.#maxLines = options.maxLines ?? 50;
    this.#maxLineLength = options.maxLineLength ?? 1000;
    this.#onLine = options.onLine ?? (() => {});
  }

  /** Follows a stream until it ends. */
  follow(stream: Readable): void {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.push(chunk));
    stream.once('end', () => this.flush());
  }

  push(chunk: string): void {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const part of parts) this.#add(part);
    // A line that never ends must not grow without bound.
    if (this.#partial.length > this.#maxLineLength * 4) {
      this.#add(this.#partial);
      this.#partial = '';
    }
  }

  flush(): void {
    if (this.#partial !== '') this.#add(this.#partial);
    this.#partial = '';
  }

  /** The kept lines, oldest first; the last `count` when given. */
  lines(count?: number): string[] {
    return count === undefined ? [...this.#lines] : this.#lines.slice(-count);
  }

  #add(raw: string): void {
    const trimmed = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const line = trimmed.length > this.#maxLineLength ? trimmed.slice(0, this.#maxLineLength) + '…' : trimmed;
    this.#lines.push(line);
    if (this.#lines.length > this.#maxLines) this.#lines.shift();
    this.#onLine(line);
  }
}
