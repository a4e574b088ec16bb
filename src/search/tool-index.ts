// Search over every exposed tool, for agents that should find tools instead of reading a
// list of thousands. The ranking is a ToolRanker's (BM25 in bm25-ranker.ts, or BM25 fused
// with meaning in semantic/), loaded at the first search: a session that never searches
// never loads MiniSearch. The index follows the children's snapshot: a query first brings it
// to the current version, so a removed, crashed or filtered tool is never returned and a
// reloaded description is found at once.
import { telemetry } from '../common/telemetry.js';
import type { Tool } from '@modelcontextprotocol/server';
import type { ChildrenSnapshot } from '../children/children-snapshot.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import type { IndexedTool, ToolRanker } from './tool-ranker.js';

export interface ToolHit {
  /** The exposed name, to call (directly or through call_tool). */
  name: string;
  server: string;
  description?: string | undefined;
  inputSchema: Tool['inputSchema'];
  score: number;
  /** The query's words that this tool matched (at most MATCHED_SHOWN), so an agent sees why it was found. */
  matched?: string[];
}

/** How many matched words a hit shows. */
const MATCHED_SHOWN = 8;

export interface SearchOptions {
  limit?: number;
  server?: string | undefined;
}

/** A ranker, or how to load one when it is first needed. */
export type RankerSource = ToolRanker | (() => Promise<ToolRanker>);

/** BM25 alone, loaded when first needed. */
export const bm25Ranker = async (): Promise<ToolRanker> =>
  new (await import('./bm25-ranker.js')).Bm25Ranker();

export class ToolIndex {
  readonly #router: CatalogRouter;
  readonly #source: RankerSource;
  #ranker: Promise<ToolRanker> | undefined;
  #version = -1;
  #tools = new Map<string, IndexedTool>();
  /** Whether the ranker has yet to hear of the tools as they are now. */
  #rankerBehind = true;

  constructor(options: { router: CatalogRouter; ranker?: RankerSource }) {
    this.#router = options.router;
    this.#source = options.ranker ?? bm25Ranker;
  }

  /** Tools best matching `query` in the current snapshot, best first. */
  async search(snapshot: ChildrenSnapshot, query: string, options: SearchOptions = {}): Promise<ToolHit[]> {
    const started = performance.now();
    try {
      return await this.#search(snapshot, query, options);
    } finally {
      telemetry.record('mcpmux.search.duration', (performance.now() - started) / 1000, {
        'mcpmux.search.kind': 'tools',
      });
    }
  }

  async #search(snapshot: ChildrenSnapshot, query: string, options: SearchOptions): Promise<ToolHit[]> {
    this.#sync(snapshot);
    const ranker = await this.#current();
    const limit = Math.max(1, Math.min(options.limit ?? 5, 50));
    const ranked = await ranker.rank(query, { limit, server: options.server });
    // A tool may have gone while the ranker loaded: what is returned is what is there now.
    return ranked.flatMap(({ name, score, matched }) => {
      const entry = this.#tools.get(name);
      if (!entry) return [];
      const { tool } = entry;
      return [
        {
          name,
          server: entry.server,
          ...(tool.description !== undefined && { description: tool.description }),
          inputSchema: tool.inputSchema,
          score: round(score),
          ...(matched && matched.length > 0 && { matched: matched.slice(0, MATCHED_SHOWN) }),
        },
      ];
    });
  }

  /** Brings the index to `snapshot` and lets the ranker prepare, so that a first search waits less. */
  prepare(snapshot: ChildrenSnapshot): void {
    this.#sync(snapshot);
    // A ranker that cannot load says so at the search that needs it.
    this.#current().then(
      (ranker) => ranker.prepare?.(),
      () => {},
    );
  }

  async close(): Promise<void> {
    const ranker = await this.#ranker?.catch(() => undefined);
    await ranker?.close?.();
  }

  /** The ranker, loaded on first use, brought up to the tools as they are now. */
  async #current(): Promise<ToolRanker> {
    const ranker = await (this.#ranker ??=
      typeof this.#source === 'function' ? this.#source() : Promise.resolve(this.#source));
    if (this.#rankerBehind) {
      this.#rankerBehind = false;
      ranker.update(this.#tools);
    }
    return ranker;
  }

  /** How many tools each server has in the index (for answers to queries that match nothing). */
  serverCounts(snapshot: ChildrenSnapshot): { name: string; tools: number }[] {
    this.#sync(snapshot);
    const counts = new Map<string, number>();
    for (const { server } of this.#tools.values()) counts.set(server, (counts.get(server) ?? 0) + 1);
    return [...counts].map(([name, tools]) => ({ name, tools }));
  }

  #sync(snapshot: ChildrenSnapshot): void {
    if (snapshot.version === this.#version) return;
    const table = this.#router.table(snapshot, 'tools');
    const next = new Map<string, IndexedTool>();
    for (const route of table.byKey.values())
      next.set(route.exposedKey, { name: route.exposedKey, server: route.server, tool: route.item });
    const changed =
      next.size !== this.#tools.size ||
      [...next].some(([name, entry]) => this.#tools.get(name)?.tool !== entry.tool);
    this.#version = snapshot.version;
    if (!changed) return;
    this.#tools = next;
    this.#rankerBehind = true;
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;
