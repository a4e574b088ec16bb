// How far each running server's text is trusted, and what of its lists may reach the model:
// the running set asks `pass` for every server each time it builds what clients see, and
// shows only what comes back. It keeps the decisions of trust-gate.ts (held server, changed
// and new items, baselines), the approvals (pin-store.ts: shared with `mcpmux approve` through
// the files, which it watches) and what is held (held-records.ts: what `mcpmux approve` reads),
// and writes an audit line for each hold and approval.
import { mkdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import type { ServerSpec } from '../child/server-spec.js';
import type { Logger } from '../common/log.js';
import { messageOf } from '../common/errors.js';
import type { Catalog } from '../protocol/capabilities.js';
import { HeldRecords, type HeldRecord } from './held-records.js';
import { pinOf, shownPart } from './pin.js';
import {
  identityFile,
  itemKey,
  PinStore,
  serverIdentity,
  type Approver,
  type ServerPins,
} from './pin-store.js';
import type { Flag } from './poison-scan.js';
import { initialTrust, type AddedBy, type QuarantineMode } from './quarantine.js';
import { gateCatalog, listedItems, type HoldReason, type Trust } from './trust-gate.js';

/** What clients and list_servers are told of a server's trust. */
export interface TrustView {
  identity: string;
  /** How far it is trusted now: held (nothing shown), approved (changes wait), follow (each list taken). */
  state: Trust;
  /** How far it was trusted when it entered the set, before any approval kept for it was read. */
  entered: Trust;
  /** The whole server is held, and why. */
  serverHeld?: 'server-held' | 'hard-flag';
  /** The items kept from clients, by `kind:key`, each with why. */
  held: ReadonlyMap<string, HoldReason>;
  /** What was approved of each changed item, by `kind:key`: the old side of the person's diff. */
  before: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** The scanner's flags by `kind:key`: the person's view. */
  flags: ReadonlyMap<string, readonly Flag[]>;
}

export interface GatedCatalog {
  catalog: Catalog;
  trust: TrustView;
}

export interface TrustKeeperOptions {
  mode: QuarantineMode;
  logger: Logger;
  store?: PinStore;
  held?: HeldRecords;
}

/** A server as the keeper knows it: the object that stands for it (its connection) and how far it entered trusted. */
interface Known {
  trust: Trust;
}

export class TrustKeeper {
  readonly #options: TrustKeeperOptions;
  readonly #store: PinStore;
  readonly #held: HeldRecords;
  readonly #known = new WeakMap<object, Known>();
  /** Each catalog's decision, while nothing was approved since. */
  readonly #decided = new WeakMap<Catalog, { version: number; trust: Trust; gated: GatedCatalog }>();
  /** What is read of the pin store, until the next approval. */
  readonly #pins = new Map<string, ServerPins | undefined>();
  readonly #listeners = new Set<() => void>();
  /** What each held identity's record says now, so that it is written only when it changes. */
  readonly #written = new Map<string, string>();
  /** Each pin file's text as last written or read here: the watcher's own writes are no news. */
  readonly #seen = new Map<string, string | undefined>();
  #version = 0;
  #watcher: FSWatcher | undefined;

  constructor(options: TrustKeeperOptions) {
    this.#options = options;
    this.#store = options.store ?? new PinStore();
    this.#held = options.held ?? new HeldRecords();
  }

  get mode(): QuarantineMode {
    return this.#options.mode;
  }

  /** A server enters the set: how far it is trusted follows from who added it and the mode. */
  enter(server: object, name: string, spec: ServerSpec, addedBy: AddedBy): void {
    this.#known.set(server, { trust: initialTrust(spec, addedBy, this.#options.mode) });
    if (spec.trust !== undefined)
      this.#options.logger.audit(
        `trust: ${name} (${serverIdentity(spec)}) "${spec.trust}" by the operator's config`,
      );
  }

  /** Told after any approval (here or by `mcpmux approve`): what clients see must be built again. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * What clients may see of `catalog`, the list the server gave; `others` are the other
   * servers' tool names (what shadowing looks for).
   */
  pass(
    server: object,
    name: string,
    spec: ServerSpec,
    catalog: Catalog,
    others: ReadonlyMap<string, readonly string[]>,
  ): GatedCatalog {
    const identity = serverIdentity(spec);
    const pins = this.#pinsOf(identity);
    const entered = this.#known.get(server)?.trust ?? 'approved';
    // Approved once (by the person, or `mcpmux approve`): its identity is trusted from then on.
    const trust = entered === 'held' && pins !== undefined ? 'approved' : entered;
    const cached = this.#decided.get(catalog);
    if (cached && cached.version === this.#version && cached.trust === trust) return cached.gated;
    const items = listedItems(catalog);
    const context = { server: name, own: new Set(catalog.tools.map((t) => t.name)), others };
    // A server a person approved (held at first) has new items wait for them; one the operator trusts takes them.
    const newItems = entered === 'held' ? 'hold' : 'admit';
    const decision = gateCatalog({ catalog, trust, pins, context, newItems });
    // A list with nothing in it is no baseline: a server starting, or one that lists later.
    // Only what differs from the kept baseline is written: two mcpmux following one server
    // would otherwise wake each other's watcher with every write, for ever.
    const baseline = decision.baseline.filter((item) => pins?.items[itemKey(item)]?.pin !== pinOf(item.item));
    if (baseline.length > 0 && items.length > 0) {
      this.#store.approve(identity, baseline, 'operator');
      this.#wrote(identity);
      this.#pins.delete(identity);
    }
    const held = new Map(decision.held.map((h) => [itemKey(h.item), h.reason]));
    const view: TrustView = {
      identity,
      state: decision.serverHeld ? 'held' : trust,
      entered,
      ...(decision.serverHeld && { serverHeld: decision.serverHeld }),
      held,
      before: new Map(decision.held.flatMap((h) => (h.before ? [[itemKey(h.item), h.before]] : []))),
      flags: decision.flags,
    };
    // A server still starting lists nothing yet: nothing to show the person, no news to audit.
    if (items.length > 0) this.#record(name, view, decision);
    const gated = { catalog: decision.catalog, trust: view };
    this.#decided.set(catalog, { version: this.#version, trust, gated });
    return gated;
  }

  /**
   * Approves a server's list as it is now, by `by`: all of it (its baseline: a held server is
   * released), or the items of `keys` (changed or new ones).
   */
  approve(
    name: string,
    spec: ServerSpec,
    catalog: Catalog,
    by: Approver,
    keys?: readonly string[],
  ): string[] {
    const identity = serverIdentity(spec);
    const items = listedItems(catalog).filter((item) => !keys || keys.includes(itemKey(item)));
    this.#store.approve(identity, items, by);
    this.#wrote(identity);
    this.#options.logger.audit(
      `trust: ${name} (${identity}) ${keys ? `items ${items.map(itemKey).join(', ')}` : `released with ${items.length} items`} approved by the ${by === 'person' ? "person (by the client's form)" : 'operator'}`,
    );
    this.#changed();
    return items.map(itemKey);
  }

  /** Follows approvals made by `mcpmux approve` (another process writes the pin files). */
  watch(): void {
    if (this.#watcher) return;
    try {
      mkdirSync(this.#store.dir, { recursive: true, mode: 0o700 });
      this.#watcher = watch(this.#store.dir, (_event, file) => this.#fileChanged(file));
      this.#watcher.on('error', (error) =>
        this.#options.logger.warn(
          `trust: approvals made outside this mcpmux will not be seen: ${messageOf(error)}`,
        ),
      );
      this.#watcher.unref();
    } catch (error) {
      this.#options.logger.warn(`trust: cannot watch ${this.#store.dir}: ${messageOf(error)}`);
    }
  }

  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    // What this mcpmux held is not held by anyone once it ends.
    for (const identity of this.#written.keys()) this.#held.remove(identity);
    this.#written.clear();
  }

  /** A pin file changed: news only when its text is not what this keeper last wrote or read. */
  #fileChanged(file: string | null): void {
    if (file !== null) {
      if (!file.endsWith('.json')) return; // the temporary file of a write, renamed over the pin file next
      const text = readText(join(this.#store.dir, file));
      if (this.#seen.get(file) === text) return;
      this.#seen.set(file, text);
      this.#options.logger.audit(
        `trust: approvals of ${identityIn(text) ?? 'a server'} changed by the operator outside this mcpmux (mcpmux approve or pins forget)`,
      );
    }
    this.#changed();
  }

  #wrote(identity: string): void {
    const file = identityFile(this.#store.dir, identity);
    this.#seen.set(basename(file), readText(file));
  }

  #changed(): void {
    this.#version++;
    this.#pins.clear();
    for (const listener of this.#listeners) listener();
  }

  #pinsOf(identity: string): ServerPins | undefined {
    if (!this.#pins.has(identity)) this.#pins.set(identity, this.#store.read(identity));
    return this.#pins.get(identity);
  }

  /** Writes (or removes) what is held of a server for `mcpmux approve`, and audits a new hold. */
  #record(name: string, view: TrustView, decision: ReturnType<typeof gateCatalog>): void {
    if (decision.held.length === 0 && !decision.serverHeld) {
      if (this.#written.delete(view.identity)) this.#held.remove(view.identity);
      return;
    }
    const record: HeldRecord = {
      name,
      identity: view.identity,
      ...(decision.serverHeld && { serverHeld: decision.serverHeld }),
      items: decision.held.map(({ item, reason, before }) => ({
        key: itemKey(item),
        reason,
        shown: shownPart(item.item),
        ...(before && { before }),
        flags: [...(decision.flags.get(itemKey(item)) ?? [])],
      })),
      at: new Date().toISOString(),
      pid: process.pid,
    };
    const text = JSON.stringify({ ...record, at: undefined });
    if (this.#written.get(view.identity) === text) return;
    this.#written.set(view.identity, text);
    this.#held.write(record);
    const what = decision.serverHeld
      ? `held whole (${decision.serverHeld === 'hard-flag' ? 'a hard flag' : "added from strangers' code"}, ${record.items.length} items)`
      : record.items.map((i) => `${i.key} ${i.reason}`).join(', ') + ' held';
    this.#options.logger.audit(
      `trust: ${name} (${view.identity}) ${what}; mcpmux approve ${name} releases it`,
    );
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The server identity a pin file's text names, if it can be read. */
function identityIn(text: string | undefined): string | undefined {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as ServerPins).identity;
  } catch {
    return undefined;
  }
}
