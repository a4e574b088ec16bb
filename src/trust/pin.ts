// A pin: the SHA-256 of everything an item (a tool, a prompt, a resource template) shows the
// model — its name, title, description, schemas, annotations, a prompt's arguments, a
// template's URI and type — as canonical JSON (keys sorted at every depth, no spaces), so
// that an item pins alike however a server orders its fields, and any change of its text
// or schema gives another pin. Fields the model never reads (_meta, icons) are left out.
import { createHash } from 'node:crypto';

const SHOWN = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'arguments',
  'uriTemplate',
  'mimeType',
] as const;

/** The part of an item that is pinned: what the model is shown of it. */
export function shownPart(item: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const field of SHOWN) if (item[field] !== undefined) shown[field] = item[field];
  return shown;
}

export function pinOf(item: Readonly<Record<string, unknown>>): string {
  return `sha256:${createHash('sha256')
    .update(canonicalJson(shownPart(item)))
    .digest('hex')}`;
}

/** JSON with object keys sorted at every depth: one text for one value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}
