// What calls read of the children: an immutable snapshot of the servers, each with its
// connection and the catalog it published, replaced whole on every change (children.ts).
import type { Tool } from '@modelcontextprotocol/server';
import type { ChildConnection } from '../child/child-connection.js';
import type { Catalog, CatalogKind } from '../protocol/capabilities.js';

/** One server as calls see it: its connection and what it published when the snapshot was taken. */
export interface ServerView {
  readonly name: string;
  readonly connection: ChildConnection;
  /** The catalog of a running child; empty while it starts, stops or is crashed. */
  readonly catalog: Catalog;
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

/**
 * The snapshot after `previous`, of the registered servers (in the order they were added);
 * each shows `shown` while it restarts (the old catalog, until the new process listed its own).
 */
export function nextSnapshot(
  previous: ChildrenSnapshot,
  entries: Iterable<[string, { connection: ChildConnection; shown?: Catalog | undefined }]>,
): ChildrenSnapshot {
  const servers = new Map<string, ServerView>();
  for (const [name, { connection, shown }] of entries) {
    const catalog = shown ?? connection.catalog;
    const prefix = connection.spec.prefix;
    servers.set(name, {
      name,
      connection,
      catalog,
      tools: catalog.tools,
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
