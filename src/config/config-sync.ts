// Live config: the config file is read again (on a change with --watch-config, or on
// SIGHUP) and only the difference is applied, by content: servers gone from the file are
// removed, changed ones are replaced, new ones are added; an unchanged server is not
// touched (same process). A broken edit is reported and the running set is kept. Servers
// added at run time with add_server are not the file's and are left alone.
import { existsSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isMuxError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { Children } from '../children/children.js';
import { stableStringify } from '../children/catalog-diff.js';
import type { ServerSpec } from '../child/server-spec.js';
import { ConfigWriter, type ConfigEntry } from './config-writer.js';
import { loadConfigFile, type ConfiguredServer } from './load-config.js';

export interface ConfigSyncOptions {
  path: string;
  children: Children;
  logger: Logger;
  env: Readonly<Record<string, string | undefined>>;
  validateName: (name: string) => string | undefined;
  /** Servers given on the command line: always kept, never taken from the file. */
  inline?: readonly ConfiguredServer[];
  /** Quiet time after a change of the file before it is read. Default 200 ms. */
  debounceMs?: number;
}

export interface SyncSummary {
  added: string[];
  removed: string[];
  replaced: string[];
  unchanged: string[];
  failed: { name: string; error: string }[];
}

/** How often a removed config directory is looked for. */
const DIRECTORY_POLL_MS = 1000;

/** What tells one version of a file from another (through links), or undefined when there is none. */
function fileIdentity(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return undefined; // gone, a dangling link, a directory in its path replaced by a file
  }
}

export class ConfigSync {
  readonly #options: ConfigSyncOptions;
  /** What the file said when it was last applied: name → spec. */
  #applied = new Map<string, ServerSpec>();
  /** One sync at a time; a change during a sync is applied after it. */
  #running: Promise<SyncSummary | undefined> = Promise.resolve(undefined);
  #watcher: FSWatcher | undefined;
  readonly #writer: ConfigWriter;
  #timer: NodeJS.Timeout | undefined;
  /** Polls for the file's directory while it is gone. */
  #waitingForDirectory: NodeJS.Timeout | undefined;

  constructor(options: ConfigSyncOptions) {
    this.#options = options;
    this.#writer = new ConfigWriter(options.path);
  }

  /** Records the servers the file gave at start-up (they are started by the caller). */
  adopt(servers: readonly ConfiguredServer[]): void {
    const inline = new Set((this.#options.inline ?? []).map((s) => s.name));
    this.#applied = new Map(servers.filter((s) => !inline.has(s.name)).map((s) => [s.name, s.spec]));
  }

  /** The config file, for add_server and remove_server with `persist`. */
  get path(): string {
    return this.#options.path;
  }

  /**
   * Writes `name` into the file (or deletes it) and takes it as applied, so that the next
   * sync sees no difference for it (the running server is the file's from now on).
   */
  async persist(name: string, entry: ConfigEntry | undefined, spec?: ServerSpec): Promise<void> {
    await this.#writer.write(name, entry);
    if (entry === undefined || spec === undefined) this.#applied.delete(name);
    else this.#applied.set(name, spec);
  }

  /** Reads the file and applies the difference; resolves with what changed (undefined when the file was broken). */
  sync(): Promise<SyncSummary | undefined> {
    this.#running = this.#running.then(() => this.#sync());
    return this.#running;
  }

  /**
   * Watches the file's directory (editors replace files by renaming) and syncs after each
   * change of the file. An event of another name counts when the file (through its links)
   * changed with it: a Kubernetes ConfigMap's file is a link through `..data`, a link that
   * is swapped. A directory removed is waited for, and read again when it is back.
   */
  watch(): void {
    const { path, logger } = this.#options;
    const directory = dirname(path);
    const file = basename(path);
    let seen = fileIdentity(path);
    const waitForDirectory = () => {
      this.#waitingForDirectory = setInterval(() => {
        if (!existsSync(directory)) return;
        clearInterval(this.#waitingForDirectory);
        try {
          this.watch();
        } catch {
          return waitForDirectory(); // gone again before it could be watched
        }
        void this.sync();
      }, DIRECTORY_POLL_MS);
      this.#waitingForDirectory.unref();
    };
    const lost = () => {
      if (this.#watcher === undefined) return; // told twice (an event and an error)
      this.#watcher.close();
      this.#watcher = undefined;
      logger.warn(
        `config directory ${directory} is gone: the running servers are kept, and ${file} is read again once it is back`,
      );
      waitForDirectory();
    };
    this.#watcher = watch(directory, (_event, name) => {
      // Once its directory is removed, a watch hears nothing more.
      if (!existsSync(directory)) return lost();
      const now = fileIdentity(path);
      if (name !== file && now === seen) return;
      seen = now;
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.sync(), this.#options.debounceMs ?? 200);
    });
    this.#watcher.on('error', lost);
    this.#watcher.unref();
  }

  close(): void {
    clearTimeout(this.#timer);
    clearInterval(this.#waitingForDirectory);
    this.#watcher?.close();
  }

  async #sync(): Promise<SyncSummary | undefined> {
    const { children, logger, path } = this.#options;
    let servers: ConfiguredServer[];
    try {
      servers = await loadConfigFile(path, this.#options.env, this.#options.validateName);
    } catch (error) {
      logger.error(`config ${path} not applied, the running servers are kept: ${messageOf(error)}`);
      return undefined;
    }
    const inline = new Set((this.#options.inline ?? []).map((s) => s.name));
    const wanted = new Map(servers.filter((s) => !inline.has(s.name)).map((s) => [s.name, s.spec]));
    const summary: SyncSummary = { added: [], removed: [], replaced: [], unchanged: [], failed: [] };
    const taken = new Set<string>();
    const fail = (name: string, error: unknown) => {
      // A name already used by a server added at run time stays that server's.
      if (isMuxError(error) && error.code === 'NAME_TAKEN') taken.add(name);
      summary.failed.push({ name, error: messageOf(error) });
    };
    // One edit is one change for the client: each list it touched is announced once, at the end.
    await children.batch(() => this.#apply(wanted, summary, fail));
    for (const name of taken) wanted.delete(name);
    this.#applied = wanted;
    const parts = (['added', 'replaced', 'removed'] as const)
      .filter((k) => summary[k].length > 0)
      .map((k) => `${k} ${summary[k].join(', ')}`);
    logger.info(
      `config ${path} applied: ${parts.join('; ') || 'no change'}${summary.unchanged.length ? ` (unchanged: ${summary.unchanged.join(', ')})` : ''}`,
    );
    for (const { name, error } of summary.failed)
      logger.error(`config ${path}: server '${name}' failed: ${error}`);
    return summary;
  }

  /** Removes, replaces and adds servers so that the children are what `wanted` says. */
  async #apply(
    wanted: ReadonlyMap<string, ServerSpec>,
    summary: SyncSummary,
    fail: (name: string, error: unknown) => void,
  ): Promise<void> {
    const { children } = this.#options;
    // Remove first, so a name that moves to another spec is free again.
    for (const name of this.#applied.keys()) {
      if (wanted.has(name)) continue;
      await children.remove(name).then(
        () => summary.removed.push(name),
        (error) => fail(name, error),
      );
    }
    const starts: Promise<unknown>[] = [];
    for (const [name, spec] of wanted) {
      const before = this.#applied.get(name);
      if (before !== undefined && stableStringify(before) === stableStringify(spec)) {
        summary.unchanged.push(name);
        continue;
      }
      const replace = before !== undefined;
      starts.push(
        (async () => {
          if (replace) await children.remove(name).catch(() => {});
          // One that waits for a person to sign in holds back neither the edit nor its announcement.
          const { status } = await children.add(name, spec, {
            keepOnFailure: true,
            returnWhenSigningIn: true,
          });
          (replace ? summary.replaced : summary.added).push(name);
          if (status.status === 'needs_auth')
            this.#options.logger.info(
              `config ${this.#options.path}: server '${name}' waits for a sign-in (list_servers shows where)`,
            );
        })().catch((error) => fail(name, error)),
      );
    }
    await Promise.all(starts);
  }
}
