// What a person approved of each server, kept across runs: per server identity (its command
// line, which names a package and its version, or its URL), the pin and the shown text of
// every tool, prompt and resource template as approved, and who approved the server and when.
// One 0600 file per identity under $XDG_STATE_HOME/mcpmux/pins (else
// ~/.local/state/mcpmux/pins), written whole; serving and `mcpmux approve` read and write the
// same files. A list a server gives later is compared with it before a client sees it
// (comparePins): what is unchanged passes, what changed or is new waits for the person.
import { createHash } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readPrivateFile, writePrivateFile } from '../common/private-file.js';
import { stateDir } from '../common/state-dir.js';
import { commandLineText } from '../common/command-line-text.js';
import { scrubSecrets } from '../secrets/secret-scrubber.js';
import { pinOf, shownPart } from './pin.js';

export type PinnedKind = 'tool' | 'prompt' | 'resourceTemplate';

/** One item as a server lists it, by kind and its own name (a template's: its uriTemplate). */
export interface ListedItem {
  kind: PinnedKind;
  key: string;
  item: Readonly<Record<string, unknown>>;
}

/** Who released a server or an item: the person (by the client's form) or the operator (CLI, config). */
export type Approver = 'person' | 'operator';

export interface PinnedItem {
  pin: string;
  /** What the model was shown of it when approved: the diff's old side. */
  shown: Record<string, unknown>;
  approvedBy: Approver;
  at: string;
}

export interface ServerPins {
  identity: string;
  approvedBy: Approver;
  at: string;
  /** By `kind:key` ("tool:add"). */
  items: Record<string, PinnedItem>;
}

/**
 * A server's identity: where its text comes from, so that a pin follows the code and not the
 * name the agent gave. A secret in it (a key in a remote's URL) is written as [secret NAME]:
 * an identity is shown to the person and kept in a file, and the key is not what the server is.
 */
export function serverIdentity(
  spec: { transport: 'stdio'; command: string; args: readonly string[] } | { transport: 'http'; url: string },
): string {
  return scrubSecrets(spec.transport === 'stdio' ? commandLineText([spec.command, ...spec.args]) : spec.url);
}

export const itemKey = (item: Pick<ListedItem, 'kind' | 'key'>): string => `${item.kind}:${item.key}`;

/** The kind and own key an itemKey was made of (a key may hold ":" itself: a URI template does). */
export function parseItemKey(key: string): Pick<ListedItem, 'kind' | 'key'> {
  const at = key.indexOf(':');
  return { kind: key.slice(0, at) as PinnedKind, key: key.slice(at + 1) };
}

/** How a list compares with what was approved. */
export interface PinComparison {
  unchanged: ListedItem[];
  /** Items whose shown text or schema differs from the approved, with the approved text. */
  changed: { item: ListedItem; before: Record<string, unknown> }[];
  /** Items never approved. */
  added: ListedItem[];
  /** Approved items the server no longer lists. */
  removed: string[];
}

export function comparePins(pins: ServerPins | undefined, listed: readonly ListedItem[]): PinComparison {
  const comparison: PinComparison = { unchanged: [], changed: [], added: [], removed: [] };
  const seen = new Set<string>();
  for (const item of listed) {
    const key = itemKey(item);
    seen.add(key);
    const approved = pins?.items[key];
    if (!approved) comparison.added.push(item);
    else if (approved.pin === pinOf(item.item)) comparison.unchanged.push(item);
    else comparison.changed.push({ item, before: approved.shown });
  }
  comparison.removed = Object.keys(pins?.items ?? {}).filter((key) => !seen.has(key));
  return comparison;
}

/** The fields of an item whose shown value changed, each with its old and new text (JSON for a schema). */
export function describeChange(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): { field: string; before: string; after: string }[] {
  const now = shownPart(after);
  const text = (value: unknown) =>
    value === undefined ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value, null, 1);
  return [...new Set([...Object.keys(before), ...Object.keys(now)])]
    .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(now[field]))
    .map((field) => ({ field, before: text(before[field]), after: text(now[field]) }));
}

export class PinStore {
  readonly #dir: string;

  constructor(dir = stateDir('pins')) {
    this.#dir = dir;
  }

  get dir(): string {
    return this.#dir;
  }

  /** What was approved of the server with this identity; undefined when nothing was. */
  read(identity: string): ServerPins | undefined {
    const text = readPrivateFile(this.#file(identity));
    if (text === undefined) return undefined;
    const pins = JSON.parse(text) as ServerPins;
    // A hash collision, or a file edited by hand: not this server's.
    return pins.identity === identity ? pins : undefined;
  }

  /**
   * Approves `items` of the server (all of a first list: its baseline; or one item after a
   * change), keeping what was approved of its other items.
   */
  approve(identity: string, items: readonly ListedItem[], by: Approver, now = new Date()): ServerPins {
    const at = now.toISOString();
    const pins: ServerPins = this.read(identity) ?? { identity, approvedBy: by, at, items: {} };
    for (const item of items)
      pins.items[itemKey(item)] = { pin: pinOf(item.item), shown: shownPart(item.item), approvedBy: by, at };
    writePrivateFile(this.#file(identity), JSON.stringify(pins, null, 1) + '\n');
    return pins;
  }

  /** Forgets all that was approved of a server: its next list is a first one again. */
  forget(identity: string): boolean {
    const file = this.#file(identity);
    const there = readPrivateFile(file) !== undefined;
    rmSync(file, { force: true });
    return there;
  }

  /** Every server something was approved of. */
  list(): ServerPins[] {
    return readIdentityFiles<ServerPins>(this.#dir);
  }

  #file(identity: string): string {
    return identityFile(this.#dir, identity);
  }
}

/** The file of a server identity in `dir`: named by its hash, since an identity is a command line or a URL. */
export function identityFile(dir: string, identity: string): string {
  return join(dir, `${createHash('sha256').update(identity).digest('hex').slice(0, 32)}.json`);
}

/** The JSON files of `dir`, parsed; none when it does not exist. */
export function readIdentityFiles<T>(dir: string): T[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      const text = readPrivateFile(join(dir, name));
      return text === undefined ? [] : [JSON.parse(text) as T];
    });
}
