// How a remote server's JSON body is read: as Response.json reads it, with two mends (below).
// The fetch given to the SDK's transports (bounded-fetch.ts) puts it in place of Response.json.
import { WireError } from '../../common/errors.js';
import { quoted } from '../../protocol/answer-shape.js';
import { isObject } from '../../protocol/request-shape.js';

/**
 * A JSON body, parsed as Response.json parses it, with two mends. Messages one a line (the
 * conformance suite's reference server answers a call so: its progress, then its result) are
 * read as a batch, which the SDK takes message by message; it failed the call on the second
 * line. Any other body that is not JSON fails with an error that says so, and quotes it: too
 * large to be checked whole (bounded-fetch.ts), it failed with JSON.parse's words alone, as
 * if mcpmux had failed.
 */
export async function readJson(response: Response): Promise<unknown> {
  const text = await Response.prototype.text.call(response);
  try {
    return JSON.parse(text);
  } catch (error) {
    const lines = jsonLines(text);
    if (lines) return lines;
    throw new WireError(
      -32603,
      `the server's answer is not JSON (${(error as Error).message}): ${quoted(text)}`,
    );
  }
}

/** A text of two or more JSON objects, one a line, as a list of them; else undefined. */
export function jsonLines(text: string): unknown[] | undefined {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length < 2) return undefined;
  const parsed: unknown[] = [];
  for (const line of lines) {
    try {
      const value: unknown = JSON.parse(line);
      if (!isObject(value)) return undefined;
      parsed.push(value);
    } catch {
      return undefined;
    }
  }
  return parsed;
}
