// What a JSON-RPC message too large to parse says about itself in its first bytes: its
// top-level `id` and whether it has a `method` (a request) or not (a response). That is
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
