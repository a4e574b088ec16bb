// Registry entries ranked for a query in a person's words ("remember facts as a knowledge
// graph"): the official registry's own `search` matches names only, so the kept listings are
// ranked here, by the ranker search_tools uses (BM25, or BM25 fused with meaning). Each entry
// is read as a tool would be: its name in words, its title and description.
import type { Tool } from '@modelcontextprotocol/server';
import type { IndexedTool, ToolRanker } from '../search/tool-ranker.js';
import type { RankerSource } from '../search/tool-index.js';
import type { ListedServer } from './registry-listing.js';

/** One registry's listing, under the name it is shown by. */
export interface RegistryServers {
  readonly registry: string;
  readonly servers: readonly ListedServer[];
}

export interface FoundServer {
  readonly registry: string;
  readonly server: ListedServer;
  readonly score: number;
}

export class ServerSearch {
  readonly #source: RankerSource;
  #ranker: ToolRanker | undefined;
  /** The listings the ranker was last brought to, by identity: a search of the same ones updates nothing. */
  #indexed: readonly RegistryServers[] = [];
  #byKey = new Map<string, { registry: string; server: ListedServer }>();

  constructor(ranker: RankerSource) {
    this.#source = ranker;
  }

  async search(listings: readonly RegistryServers[], query: string, limit: number): Promise<FoundServer[]> {
    this.#ranker ??= typeof this.#source === 'function' ? await this.#source() : this.#source;
    if (!sameListings(listings, this.#indexed)) this.#index(listings);
    const ranked = await this.#ranker.rank(query, { limit });
    return ranked.flatMap((r) => {
      const found = this.#byKey.get(r.name);
      return found ? [{ ...found, score: r.score }] : [];
    });
  }

  #index(listings: readonly RegistryServers[]): void {
    const tools = new Map<string, IndexedTool>();
    this.#byKey = new Map();
    for (const { registry, servers } of listings) {
      for (const server of servers) {
        // Two registries may list one name: each is its own hit.
        const key = `${registry}\u0000${server.entry.name}`;
        const { name, title, description } = server.entry;
        const tool: Tool = {
          name,
          ...(title !== undefined && { title }),
          ...(description !== undefined && { description }),
          inputSchema: { type: 'object' },
        };
        tools.set(key, { name: key, server: registry, tool });
        this.#byKey.set(key, { registry, server });
      }
    }
    this.#ranker!.update(tools);
    this.#indexed = listings;
  }
}

const sameListings = (a: readonly RegistryServers[], b: readonly RegistryServers[]) =>
  a.length === b.length && a.every((l, i) => l.registry === b[i]!.registry && l.servers === b[i]!.servers);
