// Secrets a person gave for a registry entry's variables and agreed to keep: one 0600 file per
// entry under $XDG_STATE_HOME/mcpmux/secrets (else ~/.local/state/mcpmux/secrets), keyed by the
// registry and the entry's name. Values leave this module only for a child's environment:
// listing them shows names, never values.
import { createHash } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkPrivateFolder, readPrivateFile, writePrivateFile } from '../common/private-file.js';
import { stateDir } from '../common/state-dir.js';
import { holdSecret, holdSecrets } from './secret-scrubber.js';

/** The folder of kept secrets. */
export const secretsDir = (env: Readonly<Record<string, string | undefined>> = process.env): string =>
  stateDir('secrets', env);

interface EntryFile {
  readonly registry: string;
  readonly entry: string;
  readonly values: Readonly<Record<string, string>>;
}

/** What `list` shows of one entry's kept secrets: their names only. */
export interface KeptEntry {
  readonly registry: string;
  readonly entry: string;
  readonly names: readonly string[];
}

export class KeptSecrets {
  readonly #dir: string;
  /** The folder's files as find() last read them. */
  #index: { path: string; kept: EntryFile | undefined }[] | undefined;

  constructor(dir = secretsDir()) {
    this.#dir = dir;
  }

  /** The folder they are kept in. */
  get dir(): string {
    return this.#dir;
  }

  /**
   * The value kept for `name` of `entry`, in whichever registry listed it (the first found). The
   * folder is read at the first lookup and again only after this store keeps or forgets.
   */
  find(entry: string, name: string): string | undefined {
    for (const { kept } of (this.#index ??= this.#files()))
      if (kept?.entry === entry && Object.hasOwn(kept.values, name)) {
        holdSecret(name, kept.values[name]!);
        return kept.values[name];
      }
    return undefined;
  }

  /** The values kept for `entry` of `registry` (none: {}). */
  values(registry: string, entry: string): Record<string, string> {
    const kept = this.#read(this.#file(registry, entry));
    // A hash collision, or a file edited by hand: not this entry's.
    if (!kept || kept.registry !== registry || kept.entry !== entry) return {};
    holdSecrets(kept.values);
    return { ...kept.values };
  }

  /** Keeps `values` beside what is kept for the entry already (a name given again is replaced). */
  keep(registry: string, entry: string, values: Readonly<Record<string, string>>): void {
    const file: EntryFile = { registry, entry, values: { ...this.values(registry, entry), ...values } };
    this.#index = undefined;
    writePrivateFile(this.#file(registry, entry), JSON.stringify(file, null, 2) + '\n');
  }

  /** Every entry with kept secrets, and their names. */
  list(): KeptEntry[] {
    return this.#files()
      .flatMap(({ kept }) =>
        kept ? [{ registry: kept.registry, entry: kept.entry, names: Object.keys(kept.values).sort() }] : [],
      )
      .sort((a, b) => a.entry.localeCompare(b.entry) || a.registry.localeCompare(b.registry));
  }

  /**
   * Forgets `name` of `entry` (all of its secrets when no name is given), in every registry
   * that lists it; returns how many values were forgotten.
   */
  forget(entry: string, name?: string): number {
    this.#index = undefined;
    let forgotten = 0;
    for (const { path, kept } of this.#files()) {
      if (!kept || kept.entry !== entry) continue;
      const names = Object.keys(kept.values).filter((n) => name === undefined || n === name);
      if (names.length === 0) continue;
      forgotten += names.length;
      const rest = Object.fromEntries(Object.entries(kept.values).filter(([n]) => !names.includes(n)));
      if (Object.keys(rest).length === 0) rmSync(path, { force: true });
      else writePrivateFile(path, JSON.stringify({ ...kept, values: rest }, null, 2) + '\n');
    }
    return forgotten;
  }

  #file(registry: string, entry: string): string {
    return join(
      this.#dir,
      `${createHash('sha256').update(`${registry}\u0000${entry}`).digest('hex').slice(0, 32)}.json`,
    );
  }

  #files(): { path: string; kept: EntryFile | undefined }[] {
    let names: string[];
    checkPrivateFolder(this.#dir);
    try {
      names = readdirSync(this.#dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    return names.map((n) => ({ path: join(this.#dir, n), kept: this.#read(join(this.#dir, n)) }));
  }

  /** One entry's file; undefined when there is none or it is not an entry file. Throws UNSAFE_FILE when others may read it. */
  #read(path: string): EntryFile | undefined {
    const text = readPrivateFile(path);
    if (text === undefined) return undefined;
    try {
      const kept = JSON.parse(text) as Partial<EntryFile>;
      const valid =
        typeof kept.registry === 'string' &&
        typeof kept.entry === 'string' &&
        typeof kept.values === 'object' &&
        kept.values !== null;
      return valid ? (kept as EntryFile) : undefined;
    } catch {
      return undefined;
    }
  }
}
