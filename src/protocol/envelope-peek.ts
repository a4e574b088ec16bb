// What a JSON-RPC message too large to parse says about itself in its first bytes (and its
// last): its top-level `id` and whether it has a `method` (a request) or not (a response). That is
// enough to answer the sender with an error, or to fail our own pending request, instead
// of leaving either side waiting. A scan, not a parse: nested objects and strings are
// skipped by depth, so an `"id"` inside the params is never taken for the message's.

export interface EnvelopeHead {
  id?: string | number;
  /** True when a top-level "method" key was seen. */
  hasMethod: boolean;
}

/** Reads the top-level keys of a JSON object's beginning (it may be cut anywhere). */
export function peekEnvelope(head: string): EnvelopeHead {
  const found: EnvelopeHead = { hasMethod: false };
  let depth = 0;
  let i = 0;
  let key: string | undefined;
  let expectKey = false;
  while (i < head.length) {
    const c = head[i]!;
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end === -1) break;
      const text = head.slice(i, end + 1);
      if (depth === 1 && expectKey) key = parseString(text);
      else if (depth === 1 && key === 'id') {
        const id = parseString(text);
        if (id !== undefined) found.id = id;
      }
      i = end + 1;
      continue;
    }
    if (c === '{' || c === '[') {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) break;
    } else if (depth === 1 && c === ':') {
      expectKey = false;
      if (key === 'method') found.hasMethod = true;
      if (key === 'id') {
        const number = /^\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*[,}]/.exec(head.slice(i + 1));
        if (number) found.id = Number(number[1]);
      }
    } else if (depth === 1 && c === ',') {
      expectKey = true;
      key = undefined;
    }
    i++;
  }
  return found;
}

/** Index of the quote that closes the string opening at `start`, or -1 when it is cut off. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function parseString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/**
 * A top-level "id" written last, as the SDK writes responses (`…,"jsonrpc":"2.0","id":7}`).
 * Only one closing brace may follow it, so an id at the end of a nested object never matches.
 */
export function trailingId(tail: string): string | number | undefined {
  const match = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
  if (!match) return undefined;
  return JSON.parse(match[1]!) as string | number;
}

/** The first `count` bytes of a message that came in `parts`. */
export function firstBytes(parts: readonly Uint8Array[], count: number): Buffer {
  const taken: Uint8Array[] = [];
  let size = 0;
  for (const part of parts) {
    if (size >= count) break;
    taken.push(part.subarray(0, count - size));
    size += taken.at(-1)!.byteLength;
  }
  return Buffer.concat(taken);
}

/** Its last `count` bytes. */
export function lastBytes(parts: readonly Uint8Array[], count: number): Buffer {
  const taken: Uint8Array[] = [];
  let size = 0;
  for (let i = parts.length - 1; i >= 0 && size < count; i--) {
    const part = parts[i]!;
    taken.unshift(part.subarray(Math.max(0, part.byteLength - (count - size))));
    size += taken[0]!.byteLength;
  }
  return Buffer.concat(taken);
}
