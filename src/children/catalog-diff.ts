// Content comparison of catalog lists (tools, prompts, resources, templates). Two items
// with the same key differ when anything the client sees differs (description, schemas,
// title, annotations, _meta), so a reload that only rewords a description still counts as
// a change, and a re-list that changes nothing does not.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import type { ServerView } from './children-snapshot.js';
import {
  CATALOG_KINDS,
  itemKey,
  type Catalog,
  type CatalogItems,
  type CatalogKind,
} from '../protocol/capabilities.js';

export interface ToolDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

const fingerprints = new WeakMap<object, string>();

/** A stable hash of everything about an item that a client sees. Cached per object. */
export function fingerprint(item: object): string {
  let hash = fingerprints.get(item);
  if (hash === undefined) {
    hash = createHash('sha256').update(stableStringify(item)).digest('base64url');
    fingerprints.set(item, hash);
  }
  return hash;
}

/** Keys added, removed and changed going from `before` to `after` in one list. */
export function diffItems<K extends CatalogKind>(
  kind: K,
  before: readonly CatalogItems[K][],
  after: readonly CatalogItems[K][],
): ToolDiff {
  const old = new Map(before.map((item) => [itemKey(kind, item), fingerprint(item)]));
  const diff: ToolDiff = { added: [], removed: [], changed: [] };
  const seen = new Set<string>();
  for (const item of after) {
    const key = itemKey(kind, item);
    seen.add(key);
    const previous = old.get(key);
    if (previous === undefined) diff.added.push(key);
    else if (previous !== fingerprint(item)) diff.changed.push(key);
  }
  for (const key of old.keys()) if (!seen.has(key)) diff.removed.push(key);
  return diff;
}

export const diffTools = (before: readonly Tool[], after: readonly Tool[]): ToolDiff =>
  diffItems('tools', before, after);

export const isEmptyDiff = (d: ToolDiff): boolean =>
  d.added.length + d.removed.length + d.changed.length === 0;

/** True when both lists show the client exactly the same items, in the same order. */
export function sameItems(a: readonly object[], b: readonly object[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((item, i) => fingerprint(item) === fingerprint(b[i]!));
}

/** The lists that differ between two catalogs. */
export const changedKinds = (a: Catalog, b: Catalog): CatalogKind[] =>
  CATALOG_KINDS.filter((kind) => !sameItems(a[kind], b[kind]));

/** JSON with object keys sorted, so equal content gives equal text. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(stableStringify).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return '{' + entries.map(([k, v]) => JSON.stringify(k) + ':' + stableStringify(v)).join(',') + '}';
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether the `kind` lists of two snapshots show the client anything different. */
export function listsDiffer(
  kind: CatalogKind,
  a: ReadonlyMap<string, ServerView>,
  b: ReadonlyMap<string, ServerView>,
): boolean {
  const withItems = (m: ReadonlyMap<string, ServerView>) =>
    [...m.values()].filter((s) => s.catalog[kind].length > 0);
  const x = withItems(a);
  const y = withItems(b);
  if (x.length !== y.length) return true;
  return x.some((s, i) => s.name !== y[i]!.name || !sameItems(s.catalog[kind], y[i]!.catalog[kind]));
}

/** What a rebuild after a watched change did, as its log line says it. */
export function describeRebuild(
  { changes, firstRun, tools }: { changes: ToolDiff; firstRun?: boolean | undefined; tools: readonly Tool[] },
  files: string,
): string {
  if (firstRun)
    return `started after changes to ${files} (before it had run): tools [${tools.map((t) => t.name).join(', ')}]`;
  const parts = (['added', 'removed', 'changed'] as const).map((k) => `${k} [${changes[k].join(', ')}]`);
  return `reloaded after changes to ${files}: tools ${parts.join(', ')}`;
}
