// What the router's table holds: for each exposed key, the server and the item behind it
// (a Route), and where a resource URI is read. Below the router and what reads its table.
import type { ChildConnection } from '../child/child-connection.js';
import type { CatalogItems, CatalogKind } from '../protocol/capabilities.js';

export interface Route<K extends CatalogKind = CatalogKind> {
  readonly exposedKey: string;
  readonly server: string;
  /** The item as the child declared it (its own key). */
  readonly item: CatalogItems[K];
  readonly connection: ChildConnection;
}

export interface CatalogTable<K extends CatalogKind = CatalogKind> {
  /** Items as listed to the client: in server order, then the child's order. */
  readonly items: readonly CatalogItems[K][];
  readonly byKey: ReadonlyMap<string, Route<K>>;
}

/** Where a resource URI is read: the child and the URI it knows. */
export interface ResourceTarget {
  readonly server: string;
  readonly uri: string;
  readonly connection: ChildConnection;
}
