// BM25 fused with meaning, for tasks. A task in a user's words often never names what its
// tools are called ("what's new on protein folding" needs a paper search that says "arXiv"),
// and words cannot find that. An embedding of each server (its name and its tools' names)
// can: a task's vector is compared with each server's, and the tools of the servers it is
// about rise in BM25's ranking.
//
// Servers, not tools: on MCP-Bench's dev half a vector per tool moved the ranking no further
// (with the sentence encoder the embeddings are distilled from, Hit@1 0.679 either way at
// ten times the cost; with the distilled table, Hit@1 a little up and Recall@5 down). A few
// words typed by hand keep BM25 alone: they name what they want, and there the fusion lost
// on the held-out half.
import { messageOf } from '../../errors.js';
import type { Logger } from '../../log.js';
import { isTask, queryWords } from '../task-query.js';
import { Bm25Ranker } from '../bm25-ranker.js';
import { nameWords, type IndexedTool, type RankedTool, type ToolRanker } from '../tool-index.js';
import type { Embedder } from './embedder.js';

/** How much a tool's server's closeness to the task adds to its BM25 score (both on 0–1). */
const AFFINITY_WEIGHT = 0.5;
/** Closeness counts from the tenth-closest server up: below it, a server is not what the task is about. */
const AFFINITY_FLOOR_RANK = 10;
/** How deep into BM25's ranking the fusion looks for tools to raise. */
const FUSION_DEPTH = 1000;

interface ServerVector {
  text: string;
  /** Its tools' exposed names. */
  tools: string[];
  vector?: Float32Array;
  /** The embedding under way for `text`. */
  pending?: Promise<void>;
}

export class SemanticRanker implements ToolRanker {
  readonly #bm25 = new Bm25Ranker();
  readonly #embedder: Embedder;
  readonly #log: Logger;
  readonly #servers = new Map<string, ServerVector>();
  /** Each exposed tool's server (an exposed name need not start with it: prefixes differ). */
  #serverOf = new Map<string, string>();
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
    this.#serverOf = new Map([...tools.values()].map(({ name, server }) => [name, server]));
    for (const server of this.#servers.keys()) if (!byServer.has(server)) this.#servers.delete(server);
    for (const [server, entries] of byServer) {
      const names = entries.map(({ name }) => name);
      const text = `${server}: ${entries.map(({ tool }) => nameWords(tool.name).join(' ')).join(', ')}`;
      // Embedded when a task is first searched; a server whose tools did not change keeps its vector.
      const entry = this.#servers.get(server);
      if (entry?.text === text) entry.tools = names;
      else this.#servers.set(server, { text, tools: names });
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
    const ranked = this.#bm25.rank(query, { limit: FUSION_DEPTH });
    let affinity: Map<string, number>;
    try {
      affinity = await this.#affinity(query);
    } catch (error) {
      this.#warnOnce(error);
      return ranked.slice(0, limit);
    }
    const top = ranked[0]?.score ?? 0;
    const fused = new Map<string, RankedTool>();
    for (const r of ranked) {
      const server = this.#serverOf.get(r.name) ?? '';
      const own = top > 0 ? r.score / top : 0;
      fused.set(r.name, { ...r, score: own + AFFINITY_WEIGHT * (affinity.get(server) ?? 0) });
    }
    // A close server's tools count even when they share no word with the task: that is what
    // meaning is for ("what is new in research on…" and a tool that says "arXiv").
    for (const [server, closeness] of affinity) {
      if (closeness <= 0) continue;
      for (const name of this.#servers.get(server)?.tools ?? [])
        if (!fused.has(name)) fused.set(name, { name, score: AFFINITY_WEIGHT * closeness, matched: [] });
    }
    return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit);
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

  /** Each server's closeness to the query, from 0 (the tenth-closest or further) to 1 (the closest). */
  async #affinity(query: string): Promise<Map<string, number>> {
    const [[vector]] = await Promise.all([this.#embedder.embed([query]), this.#embedServers()]);
    const similarity = new Map<string, number>();
    for (const [server, entry] of this.#servers) {
      if (!entry.vector) continue;
      let dot = 0;
      for (let d = 0; d < entry.vector.length; d++) dot += entry.vector[d]! * vector![d]!;
      similarity.set(server, dot);
    }
    const sorted = [...similarity.values()].sort((a, b) => b - a);
    const high = sorted[0] ?? 0;
    const floor = sorted[Math.min(AFFINITY_FLOOR_RANK, sorted.length) - 1] ?? 0;
    const span = high - floor;
    return new Map(
      [...similarity].map(([server, s]) => [server, span > 0 ? Math.max(0, (s - floor) / span) : 0]),
    );
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
