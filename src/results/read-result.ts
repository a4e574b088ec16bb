// read_result: pages through a kept result by lines or bytes, finds lines, reports its size,
// or selects from it as JSON. Every answer is itself held under the size limit.
import { z } from 'zod';
import { MuxError } from '../common/errors.js';
import { formatBytes } from '../common/byte-sizes.js';
import { approxTokens, type ResultStore } from './result-store.js';

export const readResultInput = z
  .object({
    handle: z.string().min(1).describe('The handle a cut result named, e.g. "r-1a2b3c4d".'),
    mode: z
      .enum(['head', 'tail', 'slice', 'grep', 'stat', 'json'])
      .describe(
        'head/tail: first/last lines; slice: a range; grep: matching lines; stat: size; json: a path.',
      ),
    lines: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe('head, tail: how many lines. Default 50.'),
    start_line: z.number().int().min(1).optional().describe('slice: first line (1-based).'),
    end_line: z.number().int().min(1).optional().describe('slice: last line (inclusive).'),
    start_byte: z.number().int().min(0).optional().describe('slice: first byte (0-based), instead of lines.'),
    end_byte: z.number().int().min(1).optional().describe('slice: end byte (exclusive).'),
    pattern: z.string().min(1).optional().describe('grep: a regular expression (JavaScript syntax).'),
    ignore_case: z.boolean().optional(),
    context: z
      .number()
      .int()
      .min(0)
      .max(20)
      .optional()
      .describe('grep: lines shown around each match. Default 0.'),
    max_matches: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('grep: at most this many matches. Default 50.'),
    path: z
      .string()
      .optional()
      .describe('json: where to look, e.g. "items[0].name" ("" for the whole value).'),
  })
  .strict();

export type ReadResultArgs = z.infer<typeof readResultInput>;

type Fail = (message: string) => MuxError;

export async function readResult(store: ResultStore, args: ReadResultArgs): Promise<Record<string, unknown>> {
  const { text, stored } = await store.read(args.handle);
  const lines = text.split('\n');
  const fail: Fail = (message) => new MuxError('INVALID_ARGUMENTS', `read_result ${args.mode}: ${message}`);
  switch (args.mode) {
    case 'stat':
      return {
        bytes: stored.bytes,
        size: formatBytes(stored.bytes),
        lines: stored.lines,
        approx_tokens: approxTokens(stored.bytes),
      };
    case 'head':
    case 'tail': {
      const n = args.lines ?? 50;
      const from = args.mode === 'head' ? 0 : Math.max(0, lines.length - n);
      return capped(store, lines.slice(from, from + n), from + 1, lines.length);
    }
    case 'slice':
      return args.start_byte !== undefined || args.end_byte !== undefined
        ? byteSlice(store, text, args, fail)
        : lineSlice(store, lines, args, fail);
    case 'grep':
      return grep(store, lines, args, fail);
    case 'json':
      return jsonAt(store, text, args.path ?? '', fail);
  }
}

function byteSlice(
  store: ResultStore,
  text: string,
  args: ReadResultArgs,
  fail: Fail,
): Record<string, unknown> {
  const bytes = Buffer.from(text);
  const start = args.start_byte ?? 0;
  const end = Math.min(args.end_byte ?? bytes.length, bytes.length);
  if (start >= bytes.length)
    throw fail(`start_byte ${start} is past the end (the result has ${bytes.length} bytes)`);
  if (end <= start) throw fail(`end_byte must be greater than start_byte`);
  const selected = bytes.subarray(start, Math.min(end, start + store.maxBytes)).toString('utf8');
  return {
    text: selected,
    start_byte: start,
    end_byte: start + Buffer.byteLength(selected),
    total_bytes: bytes.length,
  };
}

function lineSlice(
  store: ResultStore,
  lines: string[],
  args: ReadResultArgs,
  fail: Fail,
): Record<string, unknown> {
  const start = args.start_line ?? 1;
  const end = Math.min(args.end_line ?? start + 49, lines.length);
  if (start > lines.length)
    throw fail(`start_line ${start} is past the end (the result has ${lines.length} lines)`);
  if (end < start) throw fail(`end_line ${args.end_line} comes before start_line ${start}`);
  return capped(store, lines.slice(start - 1, end), start, lines.length);
}

/** The lines that match, with context, as many as max_matches and the size limit allow; all of them counted. */
function grep(
  store: ResultStore,
  lines: string[],
  args: ReadResultArgs,
  fail: Fail,
): Record<string, unknown> {
  if (args.pattern === undefined) throw fail('give a pattern, e.g. {"pattern": "error"}');
  let regex: RegExp;
  try {
    regex = new RegExp(args.pattern, args.ignore_case ? 'i' : '');
  } catch (error) {
    throw fail(`the pattern is not a valid regular expression: ${(error as Error).message}`);
  }
  const context = args.context ?? 0;
  const max = args.max_matches ?? 50;
  const matches: { line: number; text: string; before?: string[]; after?: string[] }[] = [];
  let total = 0;
  let size = 0;
  lines.forEach((line, i) => {
    if (!regex.test(line)) return;
    total++;
    if (matches.length >= max || size > store.maxBytes) return;
    const match = {
      line: i + 1,
      text: line,
      ...(context > 0 && {
        before: lines.slice(Math.max(0, i - context), i),
        after: lines.slice(i + 1, i + 1 + context),
      }),
    };
    size += JSON.stringify(match).length;
    matches.push(match);
  });
  return {
    matches,
    total_matches: total,
    ...(total > matches.length && {
      note: `${total - matches.length} more matches not shown; narrow the pattern or raise max_matches`,
    }),
  };
}

/** The JSON value at `path`, or what it is when it is too large to give whole. */
function jsonAt(store: ResultStore, text: string, path: string, fail: Fail): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fail('this result is not JSON; use grep or slice');
  }
  const selected = select(value, path, fail);
  const json = JSON.stringify(selected, null, 2) ?? 'null';
  if (Buffer.byteLength(json) > store.maxBytes) {
    const shape = Array.isArray(selected)
      ? `an array of ${selected.length}`
      : typeof selected === 'object' && selected
        ? `an object with keys ${Object.keys(selected).slice(0, 20).join(', ')}`
        : typeof selected;
    throw fail(
      `'${path}' is ${formatBytes(Buffer.byteLength(json))} of JSON (${shape}); select something smaller, e.g. "${path ? path + '.' : ''}${Array.isArray(selected) ? '[0]' : (Object.keys(selected as object)[0] ?? '')}"`,
    );
  }
  return { path, value: selected };
}

/** Lines from `first` on, as many as fit under the limit. */
function capped(
  store: ResultStore,
  selected: string[],
  first: number,
  total: number,
): Record<string, unknown> {
  const kept: string[] = [];
  let size = 0;
  for (const line of selected) {
    size += Buffer.byteLength(line) + 1;
    if (size > store.maxBytes && kept.length > 0) break;
    kept.push(line);
  }
  const last = first + kept.length - 1;
  return {
    text: kept.join('\n'),
    from_line: first,
    to_line: last,
    total_lines: total,
    ...(kept.length < selected.length && {
      note: `cut at ${formatBytes(store.maxBytes)}; continue with slice from line ${last + 1}`,
    }),
  };
}

/** `a.b[0].c` in a JSON value. */
function select(value: unknown, path: string, fail: (message: string) => Error): unknown {
  const steps = path.match(/[^.[\]]+|\[\d+\]/g) ?? [];
  let current = value;
  let at = '';
  for (const step of steps) {
    const index = /^\[(\d+)\]$/.exec(step);
    if (index) {
      if (!Array.isArray(current)) throw fail(`'${at}' is not an array`);
      const i = Number(index[1]);
      if (i >= current.length) throw fail(`'${at}' has ${current.length} items; [${i}] is out of range`);
      current = current[i];
      at += step;
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current))
        throw fail(`'${at || '(root)'}' is not an object`);
      if (!(step in current))
        throw fail(
          `'${at || '(root)'}' has no key '${step}' (keys: ${Object.keys(current).slice(0, 20).join(', ')})`,
        );
      current = (current as Record<string, unknown>)[step];
      at += at ? `.${step}` : step;
    }
  }
  return current;
}
