// Results too large for the model's context: the text of a tool result over the limit is
// cut to its head plus a notice naming a handle, and kept whole in a private file (the
// directory is 0700, each file 0600) until the session ends or its time to live passes;
// read_result pages through it. Images and audio pass through untouched.
import { telemetry } from '../common/telemetry.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { formatBytes } from '../common/byte-sizes.js';
import { MuxError, messageOf } from '../common/errors.js';
import { processKeptBudget, type KeptBudget } from './kept-budget.js';

export interface ResultStoreOptions {
  /** Text bytes a result may have before it is cut. */
  maxBytes: number;
  /** How long a kept result stays readable. Default one hour. */
  ttlMs?: number;
  /**
   * Random bytes in a handle. Default 4: a session's own store is private to it. A store
   * shared by clients that have no session (modern HTTP) makes the handle the only key, so
   * it must not be guessable: 16.
   */
  handleBytes?: number;
  /** What all kept results may take together (default: the process's, 256 MiB). */
  budget?: KeptBudget;
  /** Replicas of a cluster: kept results other replicas read too (a modern client's next request lands anywhere). */
  shared?: SharedResults;
}

/** Where a cluster's replicas keep results for each other (cluster/shared-results.ts). */
export interface SharedResults {
  put(handle: string, text: string, stored: StoredResult, ttlMs: number): Promise<void>;
  /** Undefined when no replica kept it (or its time is up). */
  get(handle: string): Promise<{ text: string; stored: StoredResult } | undefined>;
  drop(handle: string): Promise<void>;
}

export interface StoredResult {
  handle: string;
  bytes: number;
  lines: number;
  createdAt: number;
}

/** Directories of every store of this process, removed on exit whatever happens. */
const liveDirectories = new Set<string>();
process.once('exit', () => {
  for (const dir of liveDirectories) rmSync(dir, { recursive: true, force: true });
});

/** About four bytes of English text per token: enough to say what a result would cost. */
export const approxTokens = (bytes: number): number => Math.ceil(bytes / 4);

export class ResultStore {
  readonly #options: ResultStoreOptions;
  readonly #results = new Map<string, StoredResult & { path: string; timer: NodeJS.Timeout }>();
  /** Handles dropped to keep within the budget, so that reading one says so. */
  readonly #dropped = new Set<string>();
  readonly #budget: KeptBudget;
  #dir: string | undefined;

  constructor(options: ResultStoreOptions) {
    this.#options = options;
    this.#budget = options.budget ?? processKeptBudget;
  }

  get maxBytes(): number {
    return this.#options.maxBytes;
  }

  /** The result as the client should get it: unchanged when small, else its head and a handle. */
  async fit(result: CallToolResult): Promise<CallToolResult> {
    // The hot path: a UTF-16 length bounds the UTF-8 size (at most 3 bytes per unit), so
    // most results are let through without joining or encoding their text.
    let units = 0;
    for (const block of result.content) if (block.type === 'text') units += block.text.length;
    if (units * 3 <= this.#options.maxBytes) return result;
    const texts = result.content.filter((block) => block.type === 'text');
    const text = texts.map((block) => block.text).join('\n');
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.#options.maxBytes) return result;
    const head = cutAtLine(text, this.#options.maxBytes);
    const size = `this result is ${formatBytes(bytes)} (~${approxTokens(bytes).toLocaleString('en')} tokens`;
    const shown = `above are its first ${formatBytes(Buffer.byteLength(head))}`;
    let notice: string;
    try {
      const stored = await this.#keep(text, bytes);
      notice =
        `[mcpmux: ${size}, ${stored.lines.toLocaleString('en')} lines); ${shown}. The whole result is kept as handle "${stored.handle}": ` +
        `read_result {"handle": "${stored.handle}", "mode": "grep", "pattern": "…"} finds lines; modes are head, tail, slice, grep, stat and json.]`;
    } catch (error) {
      // No place to keep it (a read-only or missing temporary directory, a full disk, more
      // than the budget): the call itself succeeded, so its head still goes out, saying what
      // was lost and how to avoid it.
      const advice =
        error instanceof TooLargeToKeep
          ? 'Ask the tool for less, or pass results whole with --max-result-bytes 0.'
          : 'Point TMPDIR at a writable directory, or pass results whole with --max-result-bytes 0.';
      notice = `[mcpmux: ${size}); ${shown}. The rest could not be kept for read_result: ${messageOf(error)}. ${advice}]`;
    }
    const others = result.content.filter((block) => block.type !== 'text');
    return { ...result, content: [{ type: 'text', text: head }, { type: 'text', text: notice }, ...others] };
  }

  /** The whole text of a kept result. */
  async read(handle: string): Promise<{ text: string; stored: StoredResult }> {
    const entry = this.#results.get(handle);
    if (!entry && !this.#dropped.has(handle)) {
      const shared = await this.#options.shared?.get(handle).catch(() => undefined);
      if (shared) return shared;
    }
    if (!entry && this.#dropped.has(handle)) {
      throw new MuxError(
        'RESULT_NOT_FOUND',
        `result '${handle}' was dropped to keep the results kept under ${formatBytes(this.#budget.maxBytes)} (the oldest go first); call the tool again to get it anew`,
      );
    }
    if (!entry) {
      throw new MuxError(
        'RESULT_NOT_FOUND',
        `no result '${handle}': results are kept for ${Math.round((this.#options.ttlMs ?? 3_600_000) / 60_000)} min and until the session ends`,
      );
    }
    const { path: _path, timer: _timer, ...stored } = entry;
    return { text: await readFile(entry.path, 'utf8'), stored };
  }

  /** Removes every kept result (the session ended). */
  async close(): Promise<void> {
    for (const entry of this.#results.values()) {
      clearTimeout(entry.timer);
      this.#budget.remove(entry.path);
      forgotten(entry.bytes);
    }
    this.#results.clear();
    this.#dropped.clear();
    if (this.#dir) {
      liveDirectories.delete(this.#dir);
      await rm(this.#dir, { recursive: true, force: true });
      this.#dir = undefined;
    }
  }

  async #keep(text: string, bytes: number): Promise<StoredResult> {
    if (bytes > this.#budget.maxBytes) throw new TooLargeToKeep(this.#budget.maxBytes);
    this.#dir ??= this.#makeDirectory();
    const handle = `r-${randomBytes(this.#options.handleBytes ?? 4).toString('hex')}`;
    const path = join(this.#dir, handle);
    try {
      await writeFile(path, text, { mode: 0o600 });
    } catch (error) {
      // A full disk leaves part of the file: nothing may read it, and it takes room.
      void rm(path, { force: true });
      throw error;
    }
    const stored = { handle, bytes, lines: countLines(text), createdAt: Date.now() };
    const ttlMs = this.#options.ttlMs ?? 3_600_000;
    // Shared before the answer goes out: the client's next request may land on another replica.
    // Redis away: kept here alone (it is readable through this replica).
    await this.#options.shared?.put(handle, text, stored, ttlMs).catch(() => {});
    const timer = setTimeout(() => this.#forget(handle), ttlMs).unref();
    this.#results.set(handle, { ...stored, path, timer });
    telemetry.add('mcpmux.results.kept', 1);
    telemetry.add('mcpmux.results.kept.bytes', bytes);
    this.#budget.add(path, bytes, () => {
      this.#forget(handle);
      this.#dropped.add(handle);
      void this.#options.shared?.drop(handle).catch(() => {});
    });
    return stored;
  }

  /** A kept result's time is up, or the budget needs its room: its file goes. */
  #forget(handle: string): void {
    const entry = this.#results.get(handle);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.#results.delete(handle);
    this.#budget.remove(entry.path);
    forgotten(entry.bytes);
    void rm(entry.path, { force: true });
  }

  #makeDirectory(): string {
    const dir = mkdtempSync(join(tmpdir(), 'mcpmux-results-')); // mkdtemp makes it 0700
    liveDirectories.add(dir);
    return dir;
  }
}

/** A result larger than all kept results may take together. */
class TooLargeToKeep extends Error {
  constructor(maxBytes: number) {
    super(`it is more than the ${formatBytes(maxBytes)} that kept results may take together`);
  }
}

/** At most `maxBytes` of `text`, ending at a line break when one is near. */
function cutAtLine(text: string, maxBytes: number): string {
  const head = Buffer.from(text)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const lastBreak = head.lastIndexOf('\n');
  return lastBreak > head.length * 0.8 ? head.slice(0, lastBreak) : head;
}

export const countLines = (text: string): number => (text.length === 0 ? 0 : text.split('\n').length);

/** A store for results over `maxResultBytes` (--max-result-bytes; default 16 384, 0: never cut). */
export function newResultStore(
  maxResultBytes: number | undefined,
  handleBytes?: number,
  shared?: SharedResults,
): ResultStore {
  return new ResultStore({
    maxBytes: maxResultBytes === 0 ? Number.MAX_SAFE_INTEGER : (maxResultBytes ?? 16_384),
    ...(handleBytes !== undefined && { handleBytes }),
    ...(shared && { shared }),
  });
}

/** A kept result is gone: the gauges of what is kept go down. */
function forgotten(bytes: number): void {
  telemetry.add('mcpmux.results.kept', -1);
  telemetry.add('mcpmux.results.kept.bytes', -bytes);
}
