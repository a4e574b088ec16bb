// What of a server's lists may reach the model, given how far it is trusted and what a person
// approved of it before. Pure: the caller (the running set, when it builds what clients see)
// gives the server's catalog, its trust and its pins, and keeps the baseline the decision
// names. The rules:
// - a held server (added by the agent and not yet released) shows nothing;
// - a released server's first list is its baseline, unless an item carries a hard flag
//   (hidden characters, another server's tools named, an encoded payload): then the server
//   is held for the person whoever added it;
// - after that, an unchanged item passes, a changed one is held until approved (its old text
//   kept for the diff); a new one waits when a person approved the server (it was held at
//   first), and joins the baseline when the operator trusts it as written, unless it carries
//   a hard flag: a trusted server may grow its list (a client that declares sampling, a
//   toolset turned on), and a new item betrays no approval;
// - a server that follows its own build (`watch`, "trust": "follow") takes each list as its
//   new baseline: the dev loop is not stopped at every rebuild.
// Resources (concrete URIs) are not pinned: they pass when the server does.
import type { Catalog } from '../protocol/capabilities.js';
import { HARD_KINDS, scanItem, type Flag, type ScanContext, type ScannedItem } from './poison-scan.js';
import { comparePins, itemKey, type ListedItem, type PinnedKind, type ServerPins } from './pin-store.js';

export type Trust = 'held' | 'approved' | 'follow';

export type HoldReason = 'server-held' | 'hard-flag' | 'changed' | 'new';

export interface GateDecision {
  /** What clients may be shown of the server. */
  catalog: Catalog;
  /** Items kept from clients, each with why (`changed` with the approved text, for the diff). */
  held: { item: ListedItem; reason: HoldReason; before?: Record<string, unknown> }[];
  /** The whole server is held (nothing shown), and why. */
  serverHeld?: 'server-held' | 'hard-flag';
  /** Items to approve as the new baseline (a first list, or a following server's every list). */
  baseline: ListedItem[];
  /** Every flag the scanner raised, by item key ("tool:add"): the person's view. */
  flags: Map<string, Flag[]>;
}

const PINNED: readonly [PinnedKind, 'tools' | 'prompts' | 'resourceTemplates'][] = [
  ['tool', 'tools'],
  ['prompt', 'prompts'],
  ['resourceTemplate', 'resourceTemplates'],
];

/** An item's own key: a template's URI template, else its name. */
const keyOf = (kind: PinnedKind, item: { name: string }): string =>
  kind === 'resourceTemplate' ? String((item as unknown as { uriTemplate: string }).uriTemplate) : item.name;

/** The `kind:key` the scanner's flags and the pins use for an item of a catalog list. */
export function pinnedKey(list: 'tools' | 'prompts' | 'resourceTemplates', item: { name: string }): string {
  const kind = PINNED.find(([, l]) => l === list)![0];
  return itemKey({ kind, key: keyOf(kind, item) });
}

/** A catalog's pinned items, each by kind and its own key. */
export function listedItems(catalog: Catalog): ListedItem[] {
  return PINNED.flatMap(([kind, list]) =>
    catalog[list].map((item) => ({
      kind,
      key: keyOf(kind, item),
      item: item as unknown as Readonly<Record<string, unknown>>,
    })),
  );
}

/** The scanner's flags on each of a server's pinned items, by `kind:key`; items with none left out. */
export function scanCatalog(items: readonly ListedItem[], context: ScanContext): Map<string, Flag[]> {
  const flags = new Map<string, Flag[]>();
  for (const item of items) {
    const raised = scanItem(item.item as unknown as ScannedItem, context);
    if (raised.length > 0) flags.set(itemKey(item), raised);
  }
  return flags;
}

export function gateCatalog(input: {
  catalog: Catalog;
  trust: Trust;
  pins: ServerPins | undefined;
  context: ScanContext;
  /** What becomes of an item new since approval: held for the person, or taken (hard flags still held). Default hold. */
  newItems?: 'hold' | 'admit';
}): GateDecision {
  const { catalog, trust, pins, context } = input;
  const items = listedItems(catalog);
  const flags = scanCatalog(items, context);
  const empty = { ...catalog, tools: [], prompts: [], resources: [], resourceTemplates: [] };
  const holdAll = (reason: 'server-held' | 'hard-flag'): GateDecision => ({
    catalog: empty,
    held: items.map((item) => ({ item, reason })),
    serverHeld: reason,
    baseline: [],
    flags,
  });
  if (trust === 'held') return holdAll('server-held');
  if (trust === 'follow') return { catalog, held: [], baseline: items, flags };
  const compared = comparePins(pins, items);
  // A hard flag on an item nobody approved holds the server, however it was added.
  const hard = (item: ListedItem) => flags.get(itemKey(item))?.some((f) => HARD_KINDS.has(f.kind)) ?? false;
  if (pins === undefined)
    return compared.added.some(hard) ? holdAll('hard-flag') : { catalog, held: [], baseline: items, flags };
  const admitted = input.newItems === 'admit' ? compared.added.filter((item) => !hard(item)) : [];
  const held: GateDecision['held'] = [
    ...compared.changed.map(({ item, before }) => ({ item, reason: 'changed' as const, before })),
    ...compared.added
      .filter((item) => !admitted.includes(item))
      .map((item) => ({ item, reason: 'new' as const })),
  ];
  const kept = new Set(held.map((h) => itemKey(h.item)));
  const shown = (list: 'tools' | 'prompts' | 'resourceTemplates') =>
    catalog[list].filter((item) => !kept.has(pinnedKey(list, item)));
  return {
    catalog: {
      ...catalog,
      tools: shown('tools'),
      prompts: shown('prompts'),
      resourceTemplates: shown('resourceTemplates'),
    } as Catalog,
    held,
    baseline: admitted,
    flags,
  };
}
