// The tool-poisoning scanner: reads every text a server shows the model (a tool's, prompt's
// or resource template's name, title, description, and each description and default inside
// its schemas) and raises flags, each with its kind and the text that raised it. Offline and
// deterministic: a table of patterns per kind, no model and no network. It catches what has a
// tell — hidden characters, instructions aimed at the model, another server's tools named,
// encoded commands, a description out of proportion — and cannot catch an instruction written
// as plain help text with none; for those the quarantine (a person reads the text before the
// model does) is the defence, not this.
import { INSTRUCTION_PATTERNS, cued, wordsOf, type InstructionKind } from './instruction-patterns.js';
import { hiddenCharacters, withoutInvisible } from './hidden-characters.js';
import { encodedPayloads } from './encoded-payloads.js';

export type FlagKind =
  'hidden-unicode' | 'shadowing' | 'encoded-payload' | 'name-alike' | 'length' | InstructionKind;

/** Kinds that hold a server for the person whoever added it: no honest description has them. */
export const HARD_KINDS: ReadonlySet<FlagKind> = new Set(['hidden-unicode', 'shadowing', 'encoded-payload']);

export interface Flag {
  kind: FlagKind;
  /** Which text: `description`, `inputSchema.properties.path.description`, `name`. */
  where: string;
  /** The part of the text that raised it (hidden characters written as \u{…}), at most ~160 characters. */
  text: string;
}

/** An item as a server lists it: a tool, a prompt or a resource template. */
export interface ScannedItem {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  /** A prompt's arguments. */
  arguments?: unknown;
}

/** What the scan knows of the rest of the set: the other servers' tools, to see shadowing. */
export interface ScanContext {
  server: string;
  /** This server's own tools' names: a description may name those. */
  own: ReadonlySet<string>;
  /** Other servers' names and their tools' names (not this server's). */
  others: ReadonlyMap<string, readonly string[]>;
}

/** Longer than each of 2,974 real tools' descriptions (the longest: 6,993 characters; the 99.9th percentile 5,420). */
const LONG_DESCRIPTION = 8000;
const EXCERPT = 160;

export function scanItem(item: ScannedItem, context?: ScanContext): Flag[] {
  // A NUL of the server's own becomes a space: the NUL parts the texts below.
  const texts = textsOf(item).map(([where, text]): [string, string] => [where, text.replace(/\0/g, ' ')]);
  // One string for the item, its texts apart: a pattern's gap stops at a line break and
  // \s at the NUL, so no match joins two texts; one pass per pattern instead of one per text.
  const joined = texts.map(([, text]) => text).join(SEPARATOR);
  const flags: Flag[] = [];
  const whereAt = (index: number) => texts[count(joined, '\0', index)]![0];
  const hidden = hiddenCharacters(joined);
  for (const found of hidden)
    flags.push({ kind: 'hidden-unicode', where: whereAt(found.index), text: found.text });
  for (const found of encodedPayloads(joined))
    flags.push({ kind: 'encoded-payload', where: whereAt(found.index), text: found.text });
  const plain = hidden.length > 0 ? withoutInvisible(joined) : joined;
  const words = wordsOf(plain);
  for (const rule of INSTRUCTION_PATTERNS) {
    if (!cued(rule, words, plain)) continue;
    const { kind, pattern } = rule;
    const match = pattern.exec(plain);
    if (match)
      flags.push({
        kind,
        where: texts[count(plain, '\0', match.index)]![0],
        text: excerpt(plain, match.index, match[0].length),
      });
  }
  // Prose only: a name or a schema's property named like another server's tool steers nothing.
  if (context && context.others.size > 0)
    for (const [where, text] of texts)
      if (/(^|\.)(description|title)$/.test(where))
        flags.push(...shadowing(hidden.length > 0 ? withoutInvisible(text) : text, where, context));
  if ((item.description?.length ?? 0) > LONG_DESCRIPTION)
    flags.push({
      kind: 'length',
      where: 'description',
      text: `${item.description!.length} characters (real tools' descriptions are rarely past ${LONG_DESCRIPTION})`,
    });
  return dedupe(flags);
}

const SEPARATOR = '\n\0\n';

/** How many times `char` occurs in `text` before `end`. */
function count(text: string, char: string, end: number): number {
  let n = 0;
  for (let at = text.indexOf(char); at !== -1 && at < end; at = text.indexOf(char, at + 1)) n++;
  return n;
}

/** Every text of an item the model reads, by where it is. */
function textsOf(item: ScannedItem): [string, string][] {
  const texts: [string, string][] = [['name', item.name]];
  if (item.title) texts.push(['title', item.title]);
  if (item.description) texts.push(['description', item.description]);
  for (const [field, schema] of [
    ['inputSchema', item.inputSchema],
    ['outputSchema', item.outputSchema],
    ['arguments', item.arguments],
  ] as const)
    collectTexts(schema, field, texts, 0);
  return texts;
}

/** Strings inside a schema (descriptions, titles, defaults, enum values, property names). */
function collectTexts(value: unknown, where: string, into: [string, string][], depth: number): void {
  if (depth > 32 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    into.push([where, value]);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => collectTexts(v, `${where}[${i}]`, into, depth + 1));
    return;
  }
  if (typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if (key !== 'type' && key !== '$schema' && key !== 'format' && key !== 'pattern')
        into.push([`${where}.${key}`, key]);
      collectTexts(v, `${where}.${key}`, into, depth + 1);
    }
}

function excerpt(text: string, at: number, length: number): string {
  // Within its own text: never across the NUL that parts an item's texts.
  const from = text.lastIndexOf('\0', at) + 1;
  const to = text.indexOf('\0', at) === -1 ? text.length : text.indexOf('\0', at);
  const start = Math.max(from, at - 30);
  const end = Math.min(to, Math.max(at + length + 30, start + 40), start + EXCERPT);
  const cut = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > from ? '…' : ''}${cut}${end < to ? '…' : ''}`;
}

/** Per set of other servers: each distinctive tool name, and its server's prefix, to look words up in. */
interface OtherNames {
  tools: Map<string, string>;
  prefixes: Map<string, string>;
}
const namesOf = new WeakMap<ScanContext['others'], OtherNames>();

function otherNames(others: ScanContext['others']): OtherNames {
  let names = namesOf.get(others);
  if (!names) {
    names = { tools: new Map(), prefixes: new Map() };
    for (const [server, tools] of others) {
      names.prefixes.set(`${server.toLowerCase()}__`, server);
      // A tool's name is a tell only where no sentence would hold it by chance: send_email, sendEmail.
      for (const tool of tools)
        if (tool.length >= 6 && /[_-]|[a-z][A-Z]/.test(tool)) names.tools.set(tool, server);
    }
    namesOf.set(others, names);
  }
  return names;
}

/**
 * A text that names another server's tool (`send_email`, `mail__send_email`): a description
 * that steers how another server's tools are used. Words are looked up, not searched for,
 * so a set of thousands of tools costs one pass over the text.
 */
function shadowing(text: string, where: string, context: ScanContext): Flag[] {
  const { tools, prefixes } = otherNames(context.others);
  for (const token of text.split(/[^\w-]+/)) {
    if (token.length < 6) continue; // no distinctive name is shorter, nor "x__y" with a server
    const split = token.indexOf('__');
    const bare = token.replace(/^-+|-+$/g, '');
    const named =
      (split > 0 && prefixes.has(token.slice(0, split + 2).toLowerCase())) ||
      (tools.has(bare) && !context.own.has(bare));
    if (named) return [{ kind: 'shadowing', where, text: excerpt(text, text.indexOf(token), token.length) }];
  }
  return [];
}

function dedupe(flags: Flag[]): Flag[] {
  const seen = new Set<string>();
  return flags.filter((f) => {
    const key = `${f.kind}\0${f.where}\0${f.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
