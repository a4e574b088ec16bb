// Content comparison of tool lists. Two tools with the same name differ when anything the
// client sees differs (description, schemas, title, annotations, _meta), so a reload that
// only rewords a description still counts as a change, and a re-list that changes nothing
// does not.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export interface ToolDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

const fingerprints = new WeakMap<object, string>();

/** A stable hash of everything about a tool that a client sees. Cached per object. */
export function toolFingerprint(tool: Tool): string {
  let hash = fingerprints.get(tool);
  if (hash === undefined) {
    hash = createHash('sha256').update(stableStringify(tool)).digest('base64url');
    fingerprints.set(tool, hash);
  }
  return hash;
}

/** Names added, removed and changed going from `before` to `after`. */
export function diffTools(before: readonly Tool[], after: readonly Tool[]): ToolDiff {
  const old = new Map(before.map((t) => [t.name, toolFingerprint(t)]));
  const diff: ToolDiff = { added: [], removed: [], changed: [] };
  const seen = new Set<string>();
  for (const tool of after) {
    seen.add(tool.name);
    const previous = old.get(tool.name);
    if (previous === undefined) diff.added.push(tool.name);
    else if (previous !== toolFingerprint(tool)) diff.changed.push(tool.name);
  }
  for (const name of old.keys()) if (!seen.has(name)) diff.removed.push(name);
  return diff;
}

export const isEmptyDiff = (d: ToolDiff): boolean => d.added.length + d.removed.length + d.changed.length === 0;

/** True when both lists show the client exactly the same tools, in the same order. */
export function sameTools(a: readonly Tool[], b: readonly Tool[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((tool, i) => toolFingerprint(tool) === toolFingerprint(b[i]!));
}

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
