// The scanner over a whole set of servers: each server's items scanned beside the others'
// tool names (what shadowing looks for), each flag under the item's own key ("tool:add").
import type { Catalog } from '../protocol/capabilities.js';
import { scanItem, type Flag, type ScannedItem } from './poison-scan.js';
import { itemKey } from './pin-store.js';
import { listedItems } from './trust-gate.js';

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
    const byItem = new Map<string, Flag[]>();
    for (const item of listedItems(catalog)) {
      const flags = scanItem(item.item as unknown as ScannedItem, context);
      if (flags.length > 0) byItem.set(itemKey(item), flags);
    }
    flagged.set(name, byItem);
  }
  return flagged;
}
