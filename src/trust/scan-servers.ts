// The scanner over a whole set of servers: each server's items scanned beside the others'
// tool names (what shadowing looks for), each flag under the item's own key ("tool:add").
import type { Catalog } from '../protocol/capabilities.js';
import type { Flag } from './poison-scan.js';
import { listedItems, scanCatalog } from './trust-gate.js';

export function scanServers(
  servers: readonly { name: string; catalog: Catalog }[],
): Map<string, Map<string, Flag[]>> {
  const names = new Map(servers.map((s) => [s.name, s.catalog.tools.map((tool) => tool.name)]));
  const flagged = new Map<string, Map<string, Flag[]>>();
  for (const { name, catalog } of servers) {
    const context = {
      server: name,
      own: new Set(names.get(name)),
      others: new Map([...names].filter(([other]) => other !== name)),
    };
    flagged.set(name, scanCatalog(listedItems(catalog), context));
  }
  return flagged;
}
