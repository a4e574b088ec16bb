// BM25 fused with meaning, for tasks. A task in a user's words often never names what its
// tools are called ("what's new on protein folding" needs a paper search that says "arXiv"),
// and words cannot find that. An embedding of each server (its name and its tools' names)
// can: the servers, closest to the task's vector first, are one more view of which servers
// the task is about, fused with BM25's own (server-prior.ts), whose tools then rise together.
//
// Servers, not tools: on MCP-Bench's dev half a vector per tool moved the ranking no further
// (with the sentence encoder the embeddings are distilled from, Hit@1 0.679 either way at
// ten times the cost; with the distilled table, Hit@1 a little up and Recall@5 down). A few
// words typed by hand keep BM25 alone: they name what they want, and there the fusion lost
// on the held-out half.
import { messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/log.js';
import { isTask, queryWords } from '../task-query.js';
import { Bm25Ranker } from '../bm25-ranker.js';
import { nameWords, type IndexedTool, type RankedTool, type ToolRanker } from '../tool-ranker.js';
import type { Embedder } from './embedder.js';

/** How deep into BM25's ranking a task's servers' tools are raised from. */
const RAISE_DEPTH = 1000;

interface ServerVector {
  text: string;
  vector?: Float32Array;
  /** The embedding under way for `text`. */
  pending?: Promise<void>;
}

export class SemanticRanker implements ToolRanker {
  readonly #bm25 = new Bm25Ranker();
  readonly #embedder: Embedder;
  readonly #log: Logger;
  readonly #servers = new Map<string, ServerVector>();
  #warned = false;

  constructor(options: { embedder: Embedder; logger: Logger }) {
    this.#embedder = options.embedder;
    this.#log = options.logger;
  }

  update(tools: ReadonlyMap<string, IndexedTool>): void {
    this.#bm25.update(tools);
    const byServer = new Map<string, IndexedTool[]>();
    for (const entry of tools.values())
      (byServer.get(entry.server) ?? byServer.set(entry.server, []).get(entry.server)!).push(entry);
    for (const server of this.#servers.keys()) if (!byServer.has(server)) this.#servers.delete(server);
    for (const [server, entries] of byServer) {
      const text = `${server}: ${entries.map(({ tool }) => nameWords(tool.name).join(' ')).join(', ')}`;
      // Embedded when a task is first searched; a server whose tools did not change keeps its vector.
      if (this.#servers.get(server)?.text !== text) this.#servers.set(server, { text });
    }
  }

  rank(
    query: string,
    options: { limit: number; server?: string | undefined },
  ): Promise<RankedTool[]> | RankedTool[] {
    // One server asked for: closeness between servers has nothing to choose.
    if (!isTask(queryWords(query)) || options.server !== undefined) return this.#bm25.rank(query, options);
    return this.#rankTask(query, options.limit);
  }

  async #rankTask(query: string, limit: number): Promise<RankedTool[]> {
    let closestServers: string[];
    try {
      closestServers = await this.#serversByCloseness(query);
    } catch (error) {
      this.#warnOnce(error);
      return this.#bm25.rank(query, { limit });
    }
    // Deep: a server close in meaning may share only a word or two with the task, its tools far down.
    return this.#bm25.rank(query, { limit, closestServers, depth: RAISE_DEPTH });
  }

  /** Embeds the servers now (~0.3 ms each, on this thread), not at the first task. */
  prepare(): void {
    this.#embedServers().catch((error: unknown) => this.#warnOnce(error));
  }

  async close(): Promise<void> {
    await this.#embedder.close();
  }

  #warnOnce(error: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#log.warn(`tool search goes on with BM25 alone: ${messageOf(error)}`);
  }

  /** The servers, closest to the query in meaning first (a dot product: the vectors are unit length). */
  async #serversByCloseness(query: string): Promise<string[]> {
    const [[vector]] = await Promise.all([this.#embedder.embed([query]), this.#embedServers()]);
    const similarity: [string, number][] = [];
    for (const [server, entry] of this.#servers) {
      if (!entry.vector) continue;
      let dot = 0;
      for (let d = 0; d < entry.vector.length; d++) dot += entry.vector[d]! * vector![d]!;
      similarity.push([server, dot]);
    }
    return similarity.sort((a, b) => b[1] - a[1]).map(([server]) => server);
  }

  /** Embeds every server without a vector for its current tools, in one batch. */
  async #embedServers(): Promise<void> {
    const waiting = [...this.#servers.values()].filter((entry) => !entry.vector && !entry.pending);
    if (waiting.length > 0) {
      const done = this.#embedder.embed(waiting.map((entry) => entry.text)).then((vectors) => {
        waiting.forEach((entry, i) => {
          // A server whose tools changed meanwhile has a new entry; this vector is for the old one.
          const vector = vectors[i];
          if (vector) entry.vector = vector;
          delete entry.pending;
        });
      });
      for (const entry of waiting) entry.pending = done;
      done.catch(() => waiting.forEach((entry) => delete entry.pending));
    }
    await Promise.all([...this.#servers.values()].map((entry) => entry.pending));
  }
}
