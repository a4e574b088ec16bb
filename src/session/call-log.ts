// --call-log FILE: one JSON line per tool call, resource read and prompt get, for a harness
// that keeps a record of what its agent did (time, session, client, server, tool, duration,
// outcome with its error code, bytes in and out, trace id; arguments and results only with
// --call-log-content). Each line is one append (O_APPEND, one write), so concurrent sessions
// never interleave; the file is the owner's alone (0600); SIGHUP reopens it, for logrotate.
import { scrubbedCopy } from '../secrets/secret-scrubber.js';
import { closeSync, fchmodSync, openSync, writeSync } from 'node:fs';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';

/** The methods logged: what does something for the agent, not its lists. */
export const LOGGED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);

export interface CallLogEntry {
  time: string;
  /** A replica of a cluster: which one answered. */
  replica?: string | undefined;
  session?: string | undefined;
  client?: string | undefined;
  method: string;
  /** The server that answered: a child's name, or mcpmux for its own tools. */
  server?: string | undefined;
  /** The exposed name of the tool or prompt, or the resource's URI. */
  tool?: string | undefined;
  prompt?: string | undefined;
  uri?: string | undefined;
  duration_ms: number;
  /** ok; tool_error (a result with isError); error (a JSON-RPC error). */
  outcome: 'ok' | 'tool_error' | 'error';
  /** mcpmux's error code ([SERVER_CRASHED]) or the JSON-RPC error's code. */
  error_code?: string | undefined;
  bytes_in: number;
  bytes_out: number;
  trace_id?: string | undefined;
  arguments?: unknown;
  result?: unknown;
}

export interface CallLogOptions {
  path: string;
  /** --call-log-content: arguments and results too. */
  content: boolean;
  logger: Logger;
  /** A replica of a cluster (--replica): named on every line. */
  replica?: string | undefined;
}

export class CallLog {
  readonly content: boolean;
  readonly #path: string;
  readonly #logger: Logger;
  readonly #replica: string | undefined;
  #fd: number | undefined;
  #failed = false;

  /** Opens (creates, 0600) the file; throws when it cannot be, so mcpmux does not start without its log. */
  constructor(options: CallLogOptions) {
    this.#path = options.path;
    this.content = options.content;
    this.#logger = options.logger;
    this.#replica = options.replica;
    this.#fd = this.#open();
  }

  write(entry: CallLogEntry): void {
    if (this.#fd === undefined) return;
    try {
      const line = this.#replica === undefined ? entry : { ...entry, replica: this.#replica };
      writeSync(this.#fd, JSON.stringify(scrubbedCopy(line)) + '\n');
      this.#failed = false;
    } catch (error) {
      // A full disk must not fail the call it records; said once until a line goes through again.
      if (!this.#failed)
        this.#logger.warn(`--call-log ${this.#path}: a line was not written: ${messageOf(error)}`);
      this.#failed = true;
    }
  }

  /** After a rotation (SIGHUP): the next lines go to a file at the path, made anew if it was moved. */
  reopen(): void {
    const previous = this.#fd;
    try {
      this.#fd = this.#open();
    } catch (error) {
      this.#logger.warn(
        `--call-log ${this.#path} could not be reopened (${messageOf(error)}); lines go to the file open before`,
      );
      return;
    }
    if (previous !== undefined) closeSync(previous);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number {
    const fd = openSync(this.#path, 'a', 0o600);
    // A file that was there already is made the owner's alone too: it holds what agents did.
    fchmodSync(fd, 0o600);
    return fd;
  }
}
