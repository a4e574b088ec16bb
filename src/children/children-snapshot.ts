// What calls read of the children: an immutable snapshot of the servers, each with its
// connection and the catalog it published, replaced whole on every change (children.ts).
import type { Tool } from '@modelcontextprotocol/server';
import type { ChildConnection } from '../child/child-connection.js';
import type { Catalog, CatalogKind } from '../protocol/capabilities.js';
import type { GatedCatalog, TrustView } from '../trust/trust-keeper.js';

/** One server as calls see it: its connection and what it published when the snapshot was taken. */
export interface ServerView {
  readonly name: string;
  readonly connection: ChildConnection;
  /**
   * What clients may see of its catalog (the trust gate's: held items left out); empty while
   * it starts, stops or is crashed.
   */
  readonly catalog: Catalog;
  /** All it listed, held items too: the person's view (forms, inspect), never the model's. */
  readonly listed: Catalog;
  /** How far its text is trusted, and what is held; absent where no gate runs (one-shot commands). */
  readonly trust?: TrustView;
  /** `catalog.tools`. */
  readonly tools: readonly Tool[];
  /** The prefix its names are exposed under, when its spec names one (else `NAME__`). */
  readonly prefix?: string;
}

export interface ChildrenSnapshot {
  /** Grows by one with every published change. */
  readonly version: number;
  /** In the order the servers were added. */
  readonly servers: ReadonlyMap<string, ServerView>;
}

/** What of a server's list clients may see (the trust gate); `others`: the other servers' tool names. */
export type Gate = (
  name: string,
  connection: ChildConnection,
  catalog: Catalog,
  others: ReadonlyMap<string, readonly string[]>,
) => GatedCatalog;

/**
 * The snapshot after `previous`, of the registered servers (in the order they were added);
 * each shows `shown` while it restarts (the old catalog, until the new process listed its own),
 * through `gate` when there is one.
 */
export function nextSnapshot(
  previous: ChildrenSnapshot,
  entries: Iterable<[string, { connection: ChildConnection; shown?: Catalog | undefined }]>,
  gate?: Gate,
): ChildrenSnapshot {
  const listed = [...entries].map(([name, { connection, shown }]) => ({
    name,
    connection,
    catalog: shown ?? connection.catalog,
  }));
  const toolNames = new Map(listed.map(({ name, catalog }) => [name, catalog.tools.map((t) => t.name)]));
  const servers = new Map<string, ServerView>();
  for (const { name, connection, catalog } of listed) {
    const others = gate && new Map([...toolNames].filter(([other]) => other !== name));
    const gated = gate?.(name, connection, catalog, others!);
    const shown = gated?.catalog ?? catalog;
    const prefix = connection.spec.prefix;
    servers.set(name, {
      name,
      connection,
      catalog: shown,
      listed: catalog,
      tools: shown.tools,
      ...(gated && { trust: gated.trust }),
      ...(prefix !== undefined && { prefix }),
    });
  }
  return { version: previous.version + 1, servers };
}

/** The servers of a snapshot that are running now, in the order they were added. */
export function runningServers(snapshot: ChildrenSnapshot): ServerView[] {
  return [...snapshot.servers.values()].filter((view) => view.connection.state.kind === 'running');
}

/** Which lists the client sees have changed (one change may touch several). */
export type ChildrenChange = { type: 'catalog'; kinds: readonly CatalogKind[] };
