// The set of children. Every mutation (add, remove, reload, crash, a child's own tool
// change) runs through one serialized section; calls read an immutable snapshot and never
// wait on it. Slow work (spawn, handshake, stop) runs outside the lock: a name is reserved
// under the lock, the child starts outside it, and the result is committed under it again.
import PQueue from 'p-queue';
import { ChildConnection } from '../child/child-connection.js';
import type { ChildStatus } from '../child/child-status.js';
import { serverAttributes, spanned } from './children-spans.js';
import { MuxError, messageOf } from '../common/errors.js';
import { delay } from '../common/delay.js';
import { nameTaken, notFound, removedWhile, shuttingDown } from './children-errors.js';
import type { Logger } from '../common/log.js';
import type { ServerSpec } from '../child/server-spec.js';
import type { Approver } from '../trust/pin-store.js';
import { CATALOG_KINDS } from '../protocol/capabilities.js';
import { diffTools, listsDiffer } from './catalog-diff.js';
import {
  nextSnapshot,
  type ChildrenChange,
  type ChildrenSnapshot,
  type ServerView,
} from './children-snapshot.js';
import { ChildEvents } from './child-events.js';
import type {
  AddOptions,
  ChildrenOptions,
  Entry,
  ReloadedServer,
  RemovedServer,
  StartedServer,
} from './children-types.js';

/** How long calls in flight to a replaced server may take to end before it is stopped. */
const REPLACED_CALLS_GRACE_MS = 10_000;

export class Children {
  readonly #lock = new PQueue({ concurrency: 1 });
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<(change: ChildrenChange) => void>();
  readonly #options: ChildrenOptions;
  readonly #log: Logger;
  #snapshot: ChildrenSnapshot = { version: 0, servers: new Map() };
  #closed = false;
  /** Open batches; while any is open, listeners hear nothing, then once for the whole of it. */
  #batches = 0;
  #batchFrom: ChildrenSnapshot | undefined;

  /** What a child's own events (a crash, a list change, changed sources) do to its entry. */
  readonly #events: ChildEvents;

  constructor(options: ChildrenOptions) {
    this.#options = options;
    this.#log = options.logger;
    this.#events = new ChildEvents({
      current: (name) => this.#entries.get(name),
      listed: (name) => this.#snapshot.servers.get(name)?.listed,
      mutate: (fn) => this.#mutate(fn),
      publish: () => this.#publish(),
      reload: (name, reloadOptions) => this.reload(name, reloadOptions),
      log: options.logger,
    });
    // An approval (here, or by `mcpmux approve`) changes what may pass: built again.
    options.trust?.onChange(() => void this.#mutate(() => this.#publish()));
  }

  /** Approves a server's text as listed now: all (a held server is released), or `keys` (`tool:add`); resolves once shown. */
  async approve(name: string, by: Approver, keys?: readonly string[]): Promise<string[]> {
    const view = this.#snapshot.servers.get(name);
    if (!view) throw this.#notFound(name);
    const approved = this.#options.trust?.approve(name, view.connection.spec, view.listed, by, keys) ?? [];
    await this.#mutate(() => this.#publish());
    return approved;
  }

  /** The current immutable view; never waits. */
  get snapshot(): ChildrenSnapshot {
    return this.#snapshot;
  }

  /** Subscribes to published changes of the exposed tool set; returns an unsubscribe function. */
  onChange(listener: (change: ChildrenChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs `work` (several adds and removes, as a config edit) and tells listeners once, at the
   * end, of each list that differs from before it.
   */
  async batch<T>(work: () => Promise<T>): Promise<T> {
    if (this.#batches++ === 0) this.#batchFrom = this.#snapshot;
    try {
      return await work();
    } finally {
      if (--this.#batches === 0)
        await this.#mutate(() => {
          const from = this.#batchFrom!;
          this.#batchFrom = undefined;
          this.#notify(from.servers, this.#snapshot.servers);
        });
    }
  }

  /** Status of every server, in the order they were added. */
  list(): ChildStatus[] {
    const now = Date.now();
    return [...this.#snapshot.servers.values()].map((s) => s.connection.status(now));
  }

  /**
   * Starts a server and registers it. Resolves once the child answered initialize and
   * tools/list. On failure nothing stays registered or running, unless `keepOnFailure`.
   */
  async add(name: string, spec: ServerSpec, options: AddOptions = {}): Promise<StartedServer> {
    const registering = this.#mutate(() => {
      this.#assertOpen();
      const problem = this.#options.validateName?.(name);
      if (problem) throw new MuxError('INVALID_NAME', problem);
      if (this.#entries.has(name)) throw nameTaken(name);
      const conn = this.#connection(name, spec, options.addedBy);
      this.#entries.set(name, { connection: conn, lastTools: undefined });
      this.#publish();
      return conn;
    });
    // A process spawned for a server that could not be registered is not left running.
    registering.catch(() => options.spawned?.then((process) => process.stop()).catch(() => {}));
    const connection = await registering;
    // Its own span, under the request that asked for it (add_server's tools/call), if any.
    const started = spanned(`start_server ${name}`, serverAttributes(name, spec), () =>
      this.#started(name, connection, options),
    );
    if (!options.returnWhenSigningIn) return started;
    const signingIn = connection.whenSigningIn().then(() => undefined);
    const first = await Promise.race([started, signingIn]);
    if (first) return first;
    started.catch((error: unknown) => this.#log.warn(`server '${name}' did not start: ${messageOf(error)}`));
    return { status: connection.status(), tools: [] };
  }

  /**
   * Starts `spec` in the place of server `name` (the cluster moves a server placed on one
   * replica): the client keeps seeing its catalog, and its calls wait as during a reload, until
   * the new one has listed its own; the old one is stopped after, once its calls in flight have
   * ended (within REPLACED_CALLS_GRACE_MS). A name not registered is added.
   */
  async replace(name: string, spec: ServerSpec, options: AddOptions = {}): Promise<StartedServer> {
    const swapped = await this.#mutate(() => {
      const old = this.#entries.get(name);
      if (!old) return undefined;
      old.restarts?.abort.abort();
      const running = old.connection.state.kind === 'running';
      const entry: Entry = {
        connection: this.#connection(name, spec, options.addedBy),
        lastTools: old.lastTools,
        shown: old.shown ?? (running ? old.connection.catalog : undefined),
      };
      // A new entry: what the old one had under way (a reload, its restart policy) ends with it.
      this.#entries.set(name, entry);
      this.#publish();
      return { entry, old: old.connection };
    });
    if (!swapped) return this.add(name, spec, options);
    const { entry, old } = swapped;
    const { connection } = entry;
    const start = connection.start();
    connection.holdCallsDuring(start);
    try {
      await start;
    } finally {
      await this.#mutate(() => {
        if (this.#entries.get(name) !== entry) return;
        entry.shown = undefined;
        if (connection.state.kind === 'running') entry.lastTools = connection.tools;
        else this.#entries.delete(name);
        this.#publish();
      });
      const until = Date.now() + REPLACED_CALLS_GRACE_MS;
      // (Removed meanwhile: stopped at once, as a removed server is.)
      while (old.requestsInFlight > 0 && Date.now() < until && this.#entries.get(name) === entry)
        await delay(20);
      await old.stop('removed');
    }
    if (this.#entries.get(name) !== entry) throw removedWhile('starting', name);
    return { status: connection.status(), tools: connection.tools };
  }

  /** A server's connection, entered in the trust gate (not yet registered). */
  #connection(name: string, spec: ServerSpec, addedBy: AddOptions['addedBy']): ChildConnection {
    const conn: ChildConnection = new ChildConnection({
      ...this.#options.connection,
      name,
      spec,
      logger: this.#log,
      onEvent: (event) => this.#events.onEvent(conn, event),
      renewSession: () => this.#events.renewSession(name, conn),
    });
    this.#options.trust?.enter(conn, name, spec, addedBy ?? 'operator');
    return conn;
  }

  async #started(
    name: string,
    connection: ChildConnection,
    options: Omit<AddOptions, 'returnWhenSigningIn'>,
  ): Promise<StartedServer> {
    try {
      // Registered (and listed as starting) at once; spoken to when the caller says so.
      await connection.start({
        ...(options.handshakeAfter && { handshakeAfter: options.handshakeAfter }),
        ...(options.spawned && { spawned: options.spawned }),
      });
    } catch (error) {
      // A reload took this start over (reload_server, a watched rebuild): the add answers with
      // what the reload started. Failing here would unregister the server the reload starts.
      let failure = error;
      const reloading = this.#entries.get(name)?.reloading;
      if (reloading) {
        try {
          const { status, tools } = await reloading;
          return { status, tools };
        } catch (reloadFailure) {
          failure = reloadFailure;
        }
      }
      await this.#mutate(() => {
        if (this.#entries.get(name)?.connection !== connection) return;
        if (!options.keepOnFailure) this.#entries.delete(name);
        this.#publish();
      });
      throw failure;
    }
    return this.#mutate(() => {
      const entry = this.#entries.get(name);
      if (entry?.connection !== connection) throw removedWhile('starting', name);
      entry.lastTools = connection.tools;
      this.#publish();
      return { status: connection.status(), tools: connection.tools };
    });
  }

  /** Withdraws a server's tools at once, then stops it (confirmed dead) before resolving. */
  async remove(name: string): Promise<RemovedServer> {
    const entry = await this.#mutate(() => {
      const found = this.#entries.get(name);
      if (!found) throw this.#notFound(name);
      found.restarts?.abort.abort();
      this.#entries.delete(name);
      this.#publish();
      return found;
    });
    const tools = entry.connection.tools.map((t) => t.name);
    await entry.connection.stop('removed');
    const exit = entry.connection.status().exit;
    const prefix = entry.connection.spec.prefix;
    return { name, tools, ...(prefix !== undefined && { prefix }), ...(exit && { exit }) };
  }

  /**
   * Restarts a server with the same spec as a new process; joins a reload under way. With
   * `build`, its build runs first, and a failed build leaves the running process as it is.
   */
  reload(name: string, options: { build?: boolean } = {}): Promise<ReloadedServer> {
    return this.#mutate(() => {
      const entry = this.#entries.get(name);
      if (!entry) throw this.#notFound(name);
      // A reload asked for takes over from the restart policy's waiting attempt.
      entry.restarts?.abort.abort();
      entry.restarts = undefined;
      const build = options.build === true;
      entry.reloading ??= spanned(
        `reload_server ${name}`,
        { ...serverAttributes(name, entry.connection.spec), 'mcpmux.reload.build': build },
        () => this.#reload(name, entry, build),
      ).finally(() => {
        entry.reloading = undefined;
      });
      return { pending: entry.reloading };
    }).then(({ pending }) => pending);
  }

  async #reload(name: string, entry: Entry, build: boolean): Promise<ReloadedServer> {
    const { connection } = entry;
    if (build) {
      const built = spanned(`build_server ${name}`, { 'mcpmux.server.name': name }, () =>
        connection.devLoop.build(),
      );
      await built.catch((error: unknown) => {
        throw this.#entries.get(name) === entry ? error : removedWhile('reloading', name);
      });
    }
    const running = connection.state.kind === 'running';
    const before = running ? connection.tools : entry.lastTools;
    // The client keeps seeing the old catalog, and calls wait for the new process, until it has
    // listed its own: then one diff, and a notification only for what changed.
    if (running) entry.shown = connection.catalog;
    const restart = (async () => {
      await connection.stop('reloading');
      // Removed (or mcpmux shut down) meanwhile, its stop joined this one: nothing starts again.
      if (this.#entries.get(name) === entry) await connection.start();
    })();
    connection.holdCallsDuring(restart);
    try {
      await restart;
    } finally {
      await this.#mutate(() => {
        entry.shown = undefined;
        if (this.#entries.get(name) === entry && connection.state.kind === 'running')
          entry.lastTools = connection.tools;
        this.#publish();
      });
    }
    if (this.#entries.get(name) !== entry) throw removedWhile('reloading', name);
    return {
      status: connection.status(),
      tools: connection.tools,
      // Never ran before (a watched change before its first start finished): every tool is new.
      changes: diffTools(before ?? [], connection.tools),
      ...(before === undefined && { firstRun: true }),
    };
  }

  /** Stops every child (in parallel) and refuses further additions. */
  async close(): Promise<void> {
    const entries = await this.#mutate(() => {
      this.#closed = true;
      const all = [...this.#entries.values()];
      for (const entry of all) entry.restarts?.abort.abort();
      this.#entries.clear();
      this.#publish();
      return all;
    });
    await Promise.all(entries.map((e) => e.connection.stop('shutdown')));
  }

  /** Runs `fn` in the one serialized section. Locked functions never call #mutate. */
  #mutate<T>(fn: () => T): Promise<T> {
    return this.#lock.add(fn) as Promise<T>;
  }

  /** Replaces the snapshot; tells listeners which lists the client sees have changed. */
  #publish(): void {
    const previous = this.#snapshot;
    const trust = this.#options.trust;
    this.#snapshot = nextSnapshot(
      previous,
      this.#entries,
      trust &&
        ((name, connection, catalog, others) =>
          trust.pass(connection, name, connection.spec, catalog, others)),
    );
    if (this.#batches === 0) this.#notify(previous.servers, this.#snapshot.servers);
  }

  /** Tells listeners which lists the client sees differ between two sets of servers. */
  #notify(before: ReadonlyMap<string, ServerView>, after: ReadonlyMap<string, ServerView>): void {
    // mcpmux is ending: its clients are told nothing more (Claude Code heard a list_changed as it closed mcpmux).
    if (this.#closed) return;
    const kinds = CATALOG_KINDS.filter((kind) => listsDiffer(kind, before, after));
    if (kinds.length > 0) for (const listener of this.#listeners) listener({ type: 'catalog', kinds });
  }

  #assertOpen(): void {
    if (this.#closed) throw shuttingDown();
  }

  #notFound(name: string): MuxError {
    return notFound(name, [...this.#entries.keys()]);
  }
}
