// What a person gave once, kept for every replica of a cluster: kept secrets, OAuth credentials
// and approved pins. Each replica keeps them as one mcpmux does, as private files in its state
// folder (the stores that read them are unchanged); Redis holds each file sealed with the state
// key (bound to its folder and name, so Redis alone reads none and a file moved does not open).
// A file changed here — by this mcpmux, or by `mcpmux secrets` or `mcpmux auth` on this machine —
// is seen by fs.watch and put in Redis; a change from another replica is announced on a channel
// and written here. A file removed leaves a tombstone, so that a replica away when a secret was
// forgotten does not bring it back when it returns. At each (re)connection the folder and Redis
// are reconciled, the newer side winning by time (replicas' clocks are taken to agree, as
// NTP keeps them).
import { watch, readdirSync, rmSync, statSync, mkdirSync, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { messageOf } from '../common/errors.js';
import { readPrivateFile, writePrivateFile } from '../common/private-file.js';
import { connected, newClient, type Client, type RedisConnectionOptions } from './redis-connection.js';
import type { SealPurpose, StateKey } from './state-key.js';

/** A folder shared, and the purpose its files are sealed for. */
export interface SharedFolder {
  readonly name: string;
  readonly dir: string;
  readonly purpose: SealPurpose;
}

export interface SharedFoldersOptions extends RedisConnectionOptions {
  readonly cluster: string;
  readonly key: StateKey;
  readonly folders: readonly SharedFolder[];
}

/** One file as Redis keeps it: sealed, or a tombstone (no `sealed`) saying when it was removed. */
interface KeptFile {
  readonly at: number;
  readonly by: string;
  readonly sealed?: string;
}

/** The files the stores write (a hash's first 32 hex digits): their temporary files and locks are not shared. */
const SHARED_FILE = /^[0-9a-f]{32}\.json$/;
/** A rename over the old file comes as two or three events: one look after they settle. */
const SETTLE_MS = 30;
const RETRY_MS = 1000;
/** Beside the shared files (not one of them): which copy of each this replica last held in step with Redis. */
const LEDGER_FILE = '.shared-ledger'; // not .json: the stores and the trust keeper read those

// KEYS: the folder's hash, the channel. ARGV: file, its KeptFile JSON, its time, the announcement.
// An older copy never replaces a newer one.
const SHARE_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and tonumber(cjson.decode(current).at) > tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', KEYS[2], ARGV[4])
return 1`;

export class SharedFolders {
  readonly #options: SharedFoldersOptions;
  readonly #client: Client;
  readonly #subscriber: Client;
  readonly #watchers: FSWatcher[] = [];
  readonly #settling = new Map<string, NodeJS.Timeout>();
  /** What each file held when last shared or applied (undefined: absent), so that an echo is not shared again. */
  readonly #known = new Map<string, string | undefined>();
  readonly #ledgers = new Map<string, Ledger>();
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  private constructor(options: SharedFoldersOptions, client: Client, subscriber: Client) {
    this.#options = options;
    this.#client = client;
    this.#subscriber = subscriber;
  }

  /** Connected, reconciled, and following both sides; CLUSTER_UNAVAILABLE when Redis cannot be reached. */
  static async connect(options: SharedFoldersOptions): Promise<SharedFolders> {
    const client = await connected(options, 'folders');
    const subscriber = newClient(options, 'folders-events');
    const shared = new SharedFolders(options, client, subscriber);
    try {
      for (const folder of options.folders) mkdirSync(folder.dir, { recursive: true, mode: 0o700 });
      await shared.reconcile();
      await subscriber.connect();
      await subscriber.subscribe(shared.#channel(), (message) => void shared.#announced(message));
      // A reconnection may have missed announcements, and this side may have changed meanwhile.
      for (const connection of [client, subscriber]) connection.on('ready', () => shared.#reconcileSoon());
      for (const folder of options.folders) shared.#watch(folder);
    } catch (error) {
      await shared.close();
      throw error;
    }
    return shared;
  }

  /** Brings each folder and Redis to the same files: the newer side of each wins. */
  async reconcile(): Promise<void> {
    for (const folder of this.#options.folders) {
      const remote = await this.#client.hGetAll(this.#hash(folder));
      const names = new Set([...Object.keys(remote), ...localNames(folder.dir)]);
      for (const name of names) {
        const kept = remote[name] === undefined ? undefined : (JSON.parse(remote[name]) as KeptFile);
        // One file that does not open (another key wrote it) or cannot be read is told, the rest go on.
        await this.#reconcileFile(folder, name, kept).catch((error: unknown) => this.#warn(error));
      }
    }
  }

  /** Brings this replica's copy of `path` (a file of a shared folder) in step with the cluster's now. */
  async inStep(path: string): Promise<void> {
    const found = this.#sharedFile(path);
    if (found)
      await this.#reconcileFile(found.folder, found.file, await this.#keptIn(found.folder, found.file));
  }

  /** Shares what `path` holds now, without waiting for the folder's watcher. */
  async shareNow(path: string): Promise<void> {
    const found = this.#sharedFile(path);
    if (found) await this.#changedHere(found.folder, found.file);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    for (const watcher of this.#watchers) watcher.close();
    for (const timer of this.#settling.values()) clearTimeout(timer);
    this.#client.destroy();
    this.#subscriber.destroy();
  }

  /** Reconciles now, and again every second until it succeeds (each connection comes back on its own). */
  #reconcileSoon(): void {
    clearTimeout(this.#retry);
    this.reconcile().catch((error: unknown) => {
      this.#warn(error);
      if (!this.#closed) this.#retry = setTimeout(() => this.#reconcileSoon(), RETRY_MS);
    });
  }

  async #reconcileFile(folder: SharedFolder, name: string, kept: KeptFile | undefined): Promise<void> {
    const path = join(folder.dir, name);
    const here = readPrivateFile(path);
    const changedAt = here === undefined ? 0 : statSync(path).mtimeMs;
    if (kept === undefined) {
      if (here !== undefined) await this.#share(folder, name, here);
      return;
    }
    const there = this.#textOf(folder, name, kept);
    if (there === here) {
      this.#known.set(path, here);
      return this.#ledger(folder).set(name, there === undefined ? undefined : kept.at);
    }
    // Removed here (`mcpmux secrets forget` while this mcpmux was down) after it held this very copy.
    const removedHere = here === undefined && (this.#ledger(folder).get(name) ?? -1) >= kept.at;
    if (removedHere || (here !== undefined && changedAt > kept.at)) await this.#share(folder, name, here);
    else this.#apply(folder, name, kept, there);
  }

  /** Another replica changed a file: what Redis holds now is written here. */
  async #announced(message: string): Promise<void> {
    const {
      folder: folderName,
      file,
      by,
    } = JSON.parse(message) as { folder: string; file: string; by: string };
    const folder = this.#options.folders.find((f) => f.name === folderName);
    if (by === this.#options.replica || !folder || !SHARED_FILE.test(file)) return;
    try {
      // Compared, not taken: this side may hold a newer copy Redis has not had (it was away).
      await this.#reconcileFile(folder, file, await this.#keptIn(folder, file));
    } catch (error) {
      this.#warn(error);
    }
  }

  #watch(folder: SharedFolder): void {
    const watcher = watch(folder.dir, (_event, file) => {
      if (this.#closed || typeof file !== 'string' || !SHARED_FILE.test(file)) return;
      const path = join(folder.dir, file);
      clearTimeout(this.#settling.get(path));
      this.#settling.set(
        path,
        setTimeout(() => {
          this.#settling.delete(path);
          void this.#changedHere(folder, file);
        }, SETTLE_MS),
      );
    });
    watcher.on('error', (error) => this.#warn(error));
    this.#watchers.push(watcher);
  }

  async #changedHere(folder: SharedFolder, file: string): Promise<void> {
    const path = join(folder.dir, file);
    try {
      const text = readPrivateFile(path);
      if (this.#known.has(path) && this.#known.get(path) === text) return;
      await this.#share(folder, file, text);
    } catch (error) {
      // Shared at the next reconciliation, when Redis is back.
      this.#warn(error);
    }
  }

  /**
   * Puts a file (or its tombstone: `text` undefined), as of when it changed, in Redis and tells
   * the other replicas; when Redis holds a newer one (two replicas refilling an empty Redis),
   * that one is written here instead.
   */
  async #share(folder: SharedFolder, file: string, text: string | undefined): Promise<void> {
    const { replica, key } = this.#options;
    const path = join(folder.dir, file);
    const kept: KeptFile = {
      at: text === undefined ? Date.now() : statSync(path).mtimeMs,
      by: replica,
      ...(text !== undefined && { sealed: key.seal(folder.purpose, this.#context(folder, file), text) }),
    };
    const announcement = JSON.stringify({ folder: folder.name, file, by: replica });
    const taken = await this.#client.eval(SHARE_SCRIPT, {
      keys: [this.#hash(folder), this.#channel()],
      arguments: [file, JSON.stringify(kept), String(kept.at), announcement],
    });
    if (taken === 1) {
      this.#known.set(path, text);
      this.#ledger(folder).set(file, text === undefined ? undefined : kept.at);
    } else await this.#pull(folder, file);
  }

  /** Writes here what Redis holds of a file. */
  async #pull(folder: SharedFolder, file: string): Promise<void> {
    const kept = await this.#keptIn(folder, file);
    if (kept) this.#apply(folder, file, kept, this.#textOf(folder, file, kept));
  }

  /** What Redis holds of a file; undefined when nothing. */
  async #keptIn(folder: SharedFolder, file: string): Promise<KeptFile | undefined> {
    const value = await this.#client.hGet(this.#hash(folder), file);
    return value === null ? undefined : (JSON.parse(value) as KeptFile);
  }

  /** The file's text as kept; undefined for a tombstone. */
  #textOf(folder: SharedFolder, file: string, kept: KeptFile): string | undefined {
    return kept.sealed === undefined
      ? undefined
      : this.#options.key.open(folder.purpose, this.#context(folder, file), kept.sealed);
  }

  #apply(folder: SharedFolder, file: string, kept: KeptFile, text: string | undefined): void {
    const path = join(folder.dir, file);
    this.#known.set(path, text);
    if (text === undefined) rmSync(path, { force: true });
    else writePrivateFile(path, text);
    this.#ledger(folder).set(file, text === undefined ? undefined : kept.at);
  }

  #sharedFile(path: string): { folder: SharedFolder; file: string } | undefined {
    const folder = this.#options.folders.find((f) => f.dir === dirname(path));
    const file = basename(path);
    return folder && SHARED_FILE.test(file) ? { folder, file } : undefined;
  }

  #ledger(folder: SharedFolder): Ledger {
    let ledger = this.#ledgers.get(folder.name);
    if (!ledger) this.#ledgers.set(folder.name, (ledger = new Ledger(join(folder.dir, LEDGER_FILE))));
    return ledger;
  }

  #warn(error: unknown): void {
    if (this.#closed) return;
    this.#options.logger.warn(
      `cluster: kept secrets, sign-ins and pins are not shared right now (${messageOf(error)}); they are when Redis is back`,
    );
  }

  #hash(folder: SharedFolder): string {
    return `mcpmux:${this.#options.cluster}:files:${folder.name}`;
  }

  #channel(): string {
    return `mcpmux:${this.#options.cluster}:files`;
  }

  #context(folder: SharedFolder, file: string): string {
    return `${this.#options.cluster}/${folder.name}/${file}`;
  }
}

function localNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => SHARED_FILE.test(name));
  } catch {
    return [];
  }
}

/**
 * For each shared file, the time of the copy this replica last held in step with Redis: a file
 * missing here whose copy in Redis is no newer was removed here while this mcpmux was down (by
 * `mcpmux secrets forget`), not never received, and its removal is shared, not undone.
 */
class Ledger {
  readonly #path: string;
  readonly #times: Record<string, number>;

  constructor(path: string) {
    this.#path = path;
    let read: unknown;
    try {
      read = JSON.parse(readPrivateFile(path) ?? '{}');
    } catch {
      read = {};
    }
    this.#times = typeof read === 'object' && read !== null ? (read as Record<string, number>) : {};
  }

  get(file: string): number | undefined {
    return this.#times[file];
  }

  set(file: string, at: number | undefined): void {
    if (this.#times[file] === at) return;
    if (at === undefined) delete this.#times[file];
    else this.#times[file] = at;
    writePrivateFile(this.#path, JSON.stringify(this.#times));
  }
}
