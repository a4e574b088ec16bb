// An agent's transcript: one JSONL file per agent, one line per message, kept 0600 in a 0700
// directory. It is what lets `output` and `resume` work after mcpmux restarted, so every
// message goes to disk before the run moves on; appends to one file never interleave.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';

export type TranscriptType = 'user' | 'assistant' | 'tool_result' | 'result';

export interface TranscriptLine {
  type: TranscriptType;
  content: unknown;
  /** ISO 8601. */
  timestamp: string;
  /** The agent's id (one file, one session). */
  session_id: string;
}

/** Transcripts kept where every replica of a cluster reads them (shared-runs.ts). */
export interface SharedTranscripts {
  /** Keeps one line of an agent's transcript for every replica. */
  append(line: TranscriptLine): Promise<void>;
  /** An agent's transcript as the cluster keeps it; undefined when it keeps none. */
  read(id: string): Promise<TranscriptLine[] | undefined>;
}

/** Agent ids are 8 hex characters: nothing else ever becomes a file name. */
export const AGENT_ID = /^[0-9a-f]{8}$/;

/** `$XDG_STATE_HOME/mcpmux/agents`, else `~/.local/state/mcpmux/agents`. */
export function defaultAgentDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const state = env['XDG_STATE_HOME'] || join(homedir(), '.local', 'state');
  return join(state, 'mcpmux', 'agents');
}

export class TranscriptStore {
  readonly dir: string;
  readonly #logger: Logger;
  /** The last append of each file: the next one starts after it. */
  readonly #tails = new Map<string, Promise<void>>();
  #made: Promise<unknown> | undefined;
  #shared: SharedTranscripts | undefined;
  #unshared = false;

  constructor(dir: string, logger: Logger) {
    this.dir = dir;
    this.#logger = logger;
  }

  pathOf(id: string): string {
    if (!AGENT_ID.test(id)) throw new Error(`not an agent id: '${id}'`);
    return join(this.dir, `${id}.jsonl`);
  }

  /** Appends one message; resolves once it is on disk (a failure rejects, and later appends still run). */
  append(id: string, type: TranscriptType, content: unknown): Promise<void> {
    const line: TranscriptLine = { type, content, timestamp: new Date().toISOString(), session_id: id };
    const text = `${JSON.stringify(line)}\n`;
    const path = this.pathOf(id);
    const previous = this.#tails.get(id) ?? Promise.resolve();
    const next = previous.then(async () => {
      // A directory that could not be made is tried again next time (it may be fixed meanwhile).
      await (this.#made ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
        this.#made = undefined;
        throw error;
      }));
      await appendFile(path, text, { mode: 0o600 });
      await this.#share(line);
    });
    const tail = next.catch(() => {});
    this.#tails.set(id, tail);
    // The map keeps only files still being written.
    void tail.then(() => {
      if (this.#tails.get(id) === tail) this.#tails.delete(id);
    });
    return next;
  }

  /** Kept for the replicas of a cluster too (undefined: here alone). */
  share(shared: SharedTranscripts | undefined): void {
    this.#shared = shared;
  }

  /**
   * Every message of an agent, in order; undefined when it has no transcript. A malformed line
   * is skipped with a warning. In a cluster, the cluster's copy (a run resumed on another
   * replica went on there), unless this replica's own is longer (Redis missed lines while away).
   */
  async read(id: string): Promise<TranscriptLine[] | undefined> {
    const here = await this.#readHere(id);
    const shared = await this.#shared?.read(id).catch((error: unknown) => {
      this.#logger.warn(`agent ${id}: the cluster's transcript cannot be read: ${messageOf(error)}`);
      return undefined;
    });
    return shared && shared.length >= (here?.length ?? 0) ? shared : here;
  }

  async #share(line: TranscriptLine): Promise<void> {
    try {
      await this.#shared?.append(line);
      this.#unshared = false;
    } catch (error) {
      // The run goes on: its line is on disk here. Told once until lines are shared again.
      if (!this.#unshared)
        this.#logger.warn(
          `agent ${line.session_id}: its transcript is kept here only for now: ${messageOf(error)}`,
        );
      this.#unshared = true;
    }
  }

  async #readHere(id: string): Promise<TranscriptLine[] | undefined> {
    const path = this.pathOf(id);
    await this.#tails.get(id);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const lines: TranscriptLine[] = [];
    text.split('\n').forEach((raw, i) => {
      if (raw.trim() === '') return;
      try {
        const line = JSON.parse(raw) as TranscriptLine;
        if (!isTranscriptType(line?.type)) throw new Error(`unknown type ${JSON.stringify(line?.type)}`);
        lines.push(line);
      } catch (error) {
        this.#logger.warn(`agent ${id}: line ${i + 1} of ${path} is skipped: ${messageOf(error)}`);
      }
    });
    return lines;
  }
}

function isTranscriptType(type: unknown): type is TranscriptType {
  return type === 'user' || type === 'assistant' || type === 'tool_result' || type === 'result';
}
