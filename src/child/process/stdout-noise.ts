// What a child printed on stdout that is not JSON-RPC, kept for the report of a start that
// fails: how many lines, the first, and whether consecutive ones join into a JSON-RPC
// message, the mark of a server that pretty-prints its messages (MCP's stdio transport takes
// one message a line, so such a server never completes its handshake: it timed out unexplained).
import { isJsonRpcMessage } from '../../protocol/json-line-reader.js';
import { isObject } from '../../protocol/request-shape.js';

/** How much of the skipped lines is joined while looking for a message written across lines. */
const MAX_JOINED = 64 * 1024;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSES_VALUE = /[}\]]\s*$/;

export const NO_NEWLINE =
  "wrote a message without the newline that ends it: MCP's stdio transport ends each JSON-RPC message with one";

export const NO_VERSION =
  'answers without "jsonrpc": "2.0" in its messages, which JSON-RPC 2.0, and so MCP, requires of each';

export const MULTI_LINE =
  'writes each message across several lines of stdout (pretty-printed JSON?): ' +
  "MCP's stdio transport takes one JSON-RPC message a line, with no line break inside it";

export interface StdoutNoiseOptions {
  /** Told once, when skipped lines first join into a message. */
  onMultiLine?: () => void;
  /** Told of a line that is an answer but for its "jsonrpc" member. */
  onUnversioned?: (line: string) => void;
  /** What the child wrote after its last newline. */
  unterminated?: () => string | undefined;
  /** Whether the child wrote anything on stdout. */
  wroteAny?: () => boolean;
}

export class StdoutNoise {
  #count = 0;
  #first: string | undefined;
  /** Skipped lines joined since one that opened an object or array; undefined when none is open. */
  #joined: string | undefined;
  #multiLine = false;
  readonly #options: StdoutNoiseOptions;

  constructor(options: StdoutNoiseOptions = {}) {
    this.#options = options;
  }

  /** A line the reader skipped. Cheap for a flood of text: only a line opening `{` or `[` is kept. */
  skipped(line: string): void {
    this.#count++;
    this.#first ??= line.slice(0, 200);
    if (this.#multiLine) return;
    if (this.#joined === undefined) {
      if (!opensValue(line)) return;
      // A whole value alone on its line (JSON that is no JSON-RPC message) opens nothing;
      // an answer but for its "jsonrpc" is a server that leaves it out.
      const value = CLOSES_VALUE.test(line) ? parsed(line) : undefined;
      if (value !== undefined) {
        if (isUnversionedAnswer(value)) this.#options.onUnversioned?.(line);
        return;
      }
      this.#joined = line;
      return;
    }
    this.#joined += `\n${line}`;
    if (this.#joined.length > MAX_JOINED) this.#joined = undefined;
    else if (CLOSES_VALUE.test(line) && isJsonRpc(this.#joined)) {
      this.#multiLine = true;
      this.#joined = undefined;
      this.#options.onMultiLine?.();
    }
  }

  /** What a start that timed out adds when the child wrote nothing at all on stdout. */
  silence(): string {
    return this.#options.wroteAny?.() === false
      ? "\nit wrote nothing on stdout either: still starting (give it more time: add_server's " +
          'startup_timeout_seconds, --startup-timeout), or its output is buffered (Python: print(…, flush=True), ' +
          'or run it with python -u)'
      : '';
  }

  /** What a failed start's report adds about stdout: '' when it held nothing but messages. */
  describe(): string {
    if (this.#multiLine) return `\nit ${MULTI_LINE}`;
    const open = this.#options.unterminated?.();
    if (open !== undefined && isJsonRpc(open)) return `\nit ${NO_NEWLINE}`;
    const unended =
      open === undefined || open.trim() === ''
        ? ''
        : `\nits stdout ends with text no newline has ended: ${open.slice(0, 200)}`;
    if (this.#count === 0) return unended;
    const lines =
      this.#count === 1
        ? '1 line that is not a JSON-RPC message'
        : `${this.#count} lines that are not JSON-RPC messages`;
    return `\non stdout it wrote ${lines}, the first: ${this.#first}${unended}`;
  }
}

/** Whether `text` is a JSON-RPC message (pretty-printed JSON of anything else, a config dump say, is just noise). */
export const isJsonRpc = (text: string): boolean => isJsonRpcMessage(parsed(text));

/** Whether a line opens an object or an array (a flood of text is ruled out by its first character). */
function opensValue(line: string): boolean {
  const first = line.charCodeAt(0);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) return true;
  if (first !== 0x20 && first !== 0x09) return false;
  const next = line.trimStart().charCodeAt(0);
  return next === OPEN_BRACE || next === OPEN_BRACKET;
}

/** `text` parsed, or undefined when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** An object with an id and a result or an error, and no `"jsonrpc": "2.0"`. */
function isUnversionedAnswer(value: unknown): boolean {
  return (
    isObject(value) && value.jsonrpc !== '2.0' && 'id' in value && ('result' in value || 'error' in value)
  );
}
