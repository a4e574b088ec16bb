// How much of a registry entry mcpmux takes: its publisher writes whatever it likes, and what
// find_servers shows goes into the model's context. Texts only shown are cut to a few KB (a
// description to 2,000 characters, with a mark saying so); an entry with a longer text that
// decides what runs, or a longer list, is left out; and an answer from a registry is read up
// to a byte bound, so a 10 MB description costs neither the context nor mcpmux's memory more.
import type { ServerEntry } from './server-entry.js';

/** The most characters kept of each text that is only shown (cut past it, with a mark saying so). */
export const SHOWN_TEXT_LIMITS: Readonly<Record<string, number>> = {
  description: 2000,
  title: 200,
  placeholder: 200,
  valueHint: 200,
  websiteUrl: 500,
};

/**
 * The most characters of any other text (a package's name, a fixed value, a URL, a choice):
 * those decide what runs, so one longer is not cut, and the entry is left out.
 */
export const RUN_TEXT_LIMIT = 4096;

/** The most items of a list (packages, remotes, inputs, choices); a longer one leaves the entry out. */
export const LIST_LIMIT = 100;

/** The most bytes read of one page of a listing, or of one entry. */
export const PAGE_BYTES = 8 * 1024 * 1024;
export const ENTRY_BYTES = 1024 * 1024;

const CUT_MARK = ' [cut by mcpmux]';

/** `text` cut to `limit` characters, marked when it was. */
export function cutText(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, limit) + CUT_MARK;
}

/**
 * `entry` with its shown texts cut to their limits; undefined when a text that decides what
 * runs, or a list, is past its bound (such an entry is not one mcpmux would run as written).
 */
export function boundedEntry(entry: ServerEntry): ServerEntry | undefined {
  try {
    return bound(entry, '') as ServerEntry;
  } catch (error) {
    if (error instanceof OutOfBounds) return undefined;
    throw error;
  }
}

class OutOfBounds extends Error {}

/** Walks the entry: shown strings cut, other strings and lists checked. */
function bound(value: unknown, key: string): unknown {
  // Metadata is nobody's to run or show: left out rather than judged.
  if (key === '_meta') return undefined;
  if (typeof value === 'string') {
    const shown = SHOWN_TEXT_LIMITS[key];
    if (shown !== undefined) return cutText(value, shown);
    if (value.length > RUN_TEXT_LIMIT) throw new OutOfBounds();
    return value;
  }
  if (Array.isArray(value)) {
    if (value.length > LIST_LIMIT) throw new OutOfBounds();
    return value.map((item) => bound(item, ''));
  }
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length > LIST_LIMIT) throw new OutOfBounds();
  return Object.fromEntries(entries.map(([k, v]) => [k, bound(v, k)]));
}

/**
 * A response's body as JSON, read up to `maxBytes`: past it the read stops and the answer is
 * refused, naming the bound. undefined when the body is not JSON.
 */
export async function boundedJson(response: Response, maxBytes: number, what: string): Promise<unknown> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new Error(`${what} is ${declared} bytes, more than the ${maxBytes} mcpmux reads`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body)
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) {
        await response.body.cancel().catch(() => {});
        throw new Error(`${what} is more than the ${maxBytes} bytes mcpmux reads`);
      }
      chunks.push(chunk);
    }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
