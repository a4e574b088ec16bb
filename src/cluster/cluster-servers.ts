// One replica's side of the cluster's set of servers: at join it reads the set and starts each
// server through its own spawn policy, then follows the changes other replicas make; its own
// adds and removes (add_server, remove_server) are published for them. What this replica's
// policy refuses, or what it cannot start, is kept as a refusal for list_servers; the others
// run it. Redis away: the running set is kept, changes are refused (CLUSTER_UNAVAILABLE); Redis
// back without the set (restarted empty), each replica publishes again what it runs.
import { randomUUID } from 'node:crypto';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { ServerSpec } from '../child/server-spec.js';
import type { Children } from '../children/children.js';
import { stableStringify } from '../children/catalog-diff.js';
import type { SpawnPolicy } from '../policy/spawn-policy.js';
import type { ClusterEntry, ClusterRegistry, RegistryChange, RegistrySnapshot } from './cluster-registry.js';
import { PlacedServers } from './placed-servers.js';
import type { ServerLeases } from './server-leases.js';

export interface ClusterServersOptions {
  readonly registry: ClusterRegistry;
  readonly children: Children;
  readonly policy: SpawnPolicy;
  readonly replica: string;
  readonly logger: Logger;
  /** Servers this replica has of its own (its config, its command line): a cluster entry of the same name is refused here. */
  readonly ownNames: () => ReadonlySet<string>;
  /** The spec an entry stands for (checked as add_server checks its arguments), or what is wrong with it. */
  readonly specOf: (name: string, entry: Readonly<Record<string, unknown>>) => ServerSpec | string;
  /** The leases of servers placed on one replica, and the token of the replicas' hop to them. */
  readonly leases: ServerLeases;
  readonly hopToken: string;
}

/** Where a server of the cluster runs: on every replica, or on one that the others reach. */
export type Placement = 'every' | 'one';

/** An entry's placement: one replica unless it says every (a server's state in memory must not split). */
export const placementOf = (entry: Readonly<Record<string, unknown>> | undefined): Placement =>
  entry?.['placement'] === 'every' ? 'every' : 'one';

/** A server of the cluster this replica does not run, and why. */
export interface ClusterRefusal {
  readonly name: string;
  /** The replica that added it. */
  readonly by: string;
  readonly reason: string;
}

/** How often a replica says it is alive (the registry takes one silent for 6 s as gone). */
const HEARTBEAT_MS = 2000;
/** How long add_server and remove_server wait for the other replicas to apply their change. */
const APPLY_WAIT_MS = 30_000;

export class ClusterServers {
  readonly #options: ClusterServersOptions;
  /** What this replica runs from the cluster: name → the entry's stable text; and its generation (reloads). */
  readonly #running = new Map<string, string>();
  readonly #generations = new Map<string, string | undefined>();
  readonly #refused = new Map<string, ClusterRefusal>();
  /** One change applied at a time, in the order Redis gave them. */
  #applying: Promise<void> = Promise.resolve();
  /** The set's version this replica has applied (and announces). */
  #version = 0;
  /** Redis's epoch of the set when this replica last read it whole. */
  #epoch: string | undefined;
  #ready = false;
  #stopFollowing: (() => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  /** Handing over or closed: it no longer announces itself. */
  #leaving = false;
  readonly #placed: PlacedServers;

  constructor(options: ClusterServersOptions) {
    this.#options = options;
    this.#placed = new PlacedServers({
      children: options.children,
      leases: options.leases,
      registry: options.registry,
      replica: options.replica,
      hopToken: options.hopToken,
      logger: options.logger,
      enqueue: (work) => this.#serialize(work),
    });
  }

  /** Where `name` runs, for list_servers: every replica, or one (which, when one does). */
  placement(name: string): { placement: Placement; runs_on?: string } | undefined {
    if (!this.#running.has(name)) return undefined;
    if (!this.#placed.has(name)) return { placement: 'every' };
    const runsOn = this.#placed.runsOn(name);
    return { placement: 'one', ...(runsOn !== undefined && { runs_on: runsOn }) };
  }

  /** Whether this replica runs `name` for the others (its hop answers for it). */
  owns(name: string): boolean {
    return this.#placed.owns(name);
  }

  /** Whether the cluster's set has been read and applied once (until then /readyz says not ready). */
  get ready(): boolean {
    return this.#ready;
  }

  get replica(): string {
    return this.#options.replica;
  }

  /** Reads the set, starts what it holds, follows what changes. */
  async join(): Promise<void> {
    const snapshot = await this.#options.registry.snapshot();
    this.#epoch = snapshot.epoch;
    await this.#enqueue(() => this.#applySet(snapshot));
    this.#ready = true;
    // Alive, and how far it has applied the set: a change through another replica waits for it.
    this.#heartbeat = setInterval(() => void this.#announce(), HEARTBEAT_MS);
    this.#heartbeat.unref();
    await this.#announce();
    this.#stopFollowing = this.#options.registry.follow(snapshot, {
      change: (change) => void this.#enqueue(() => this.#applyChange(change)),
      resync: (set) => void this.#enqueue(() => this.#resync(set)),
    });
  }

  /** The servers of the cluster this replica does not run, with why. */
  refusals(): readonly ClusterRefusal[] {
    return [...this.#refused.values()];
  }

  /** Fails with CLUSTER_UNAVAILABLE, before anything is started, when a change could not be published now. */
  async reachable(): Promise<void> {
    await this.#options.registry.version();
  }

  /** A server this replica's client added (running here already) becomes the cluster's. */
  async published(name: string, entry: Readonly<Record<string, unknown>>): Promise<{ waiting: string[] }> {
    // Taken as running before Redis answers: the change may come back on the follower first.
    this.#running.set(name, stableStringify(entry));
    this.#generations.delete(name);
    this.#refused.delete(name);
    let version: number;
    try {
      // Placed on one replica: this one takes the lease before the others hear of it.
      const admitted = placementOf(entry) === 'one' && this.#admitted(name, { entry, by: '', at: '' });
      if (admitted && typeof admitted !== 'string') await this.#placed.claim(name, admitted);
      version = await this.#options.registry.put(name, entry);
    } catch (error) {
      this.#running.delete(name);
      await this.#placed.drop(name);
      throw error;
    }
    return { waiting: await this.#untilApplied(version) };
  }

  /**
   * A server of the cluster reloaded here (restarted already) is reloaded on every replica that
   * runs it; resolves once they have (as published does).
   */
  async reloaded(name: string): Promise<{ waiting: string[] }> {
    const text = this.#running.get(name);
    if (text === undefined) return { waiting: [] };
    const generation = randomUUID();
    this.#generations.set(name, generation);
    const version = await this.#options.registry.put(
      name,
      JSON.parse(text) as Record<string, unknown>,
      generation,
    );
    return { waiting: await this.#untilApplied(version) };
  }

  /** A server removed here (stopped already) leaves the cluster; undefined when it was not the cluster's. */
  async unpublished(name: string): Promise<{ waiting: string[] } | undefined> {
    if (!this.#running.has(name) && !this.#refused.has(name)) return undefined;
    const version = await this.#options.registry.remove(name);
    this.#running.delete(name);
    this.#refused.delete(name);
    await this.#placed.drop(name);
    if (version === undefined) return { waiting: [] };
    return { waiting: await this.#untilApplied(version) };
  }

  /** Whether `name` is one of the cluster's servers (running here or refused here). */
  has(name: string): boolean {
    return this.#running.has(name) || this.#refused.has(name);
  }

  /**
   * A drain begins: the servers this replica runs for the cluster go to the others now (its hop
   * answers the calls still coming until they have pointed theirs elsewhere), and no change
   * waits for it any more.
   */
  async handOver(): Promise<void> {
    this.#leaving = true;
    clearInterval(this.#heartbeat);
    await this.#placed.close();
    if (this.#ready) await this.#options.registry.leave();
  }

  /** Stops following; the replica leaves, so that no change waits for it. */
  async close(): Promise<void> {
    this.#stopFollowing?.();
    await this.handOver();
  }

  /**
   * Waits until every live replica has applied `version` (started the server, refused it, or
   * stopped it), so that the client's next request finds the change wherever it lands; gives
   * up after APPLY_WAIT_MS and names the replicas still behind.
   */
  async #untilApplied(version: number): Promise<string[]> {
    const deadline = Date.now() + APPLY_WAIT_MS;
    for (;;) {
      const live = await this.#options.registry
        .liveReplicas()
        .catch(() => new Map<string, { applied: number }>());
      const behind = [...live]
        .filter(([replica, { applied }]) => replica !== this.#options.replica && applied < version)
        .map(([replica]) => replica);
      if (behind.length === 0 || Date.now() >= deadline) return behind;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async #announce(): Promise<void> {
    if (this.#leaving) return;
    await this.#options.registry.announce(this.#version).catch((error: unknown) => {
      this.#options.logger.debug(`cluster: announcing replica ${this.#options.replica}: ${messageOf(error)}`);
    });
  }

  /** Applies `work` after what came before, then says how far this replica has applied. */
  #enqueue(work: () => Promise<void>): Promise<void> {
    return this.#serialize(async () => {
      await work();
      if (this.#ready) await this.#announce();
    });
  }

  /** Runs `work` after what came before: changes of the servers happen one at a time. */
  #serialize(work: () => Promise<void>): Promise<void> {
    const logged = () =>
      work().catch((error: unknown) =>
        this.#options.logger.warn(`cluster: applying a change: ${messageOf(error)}`),
      );
    this.#applying = this.#applying.then(logged, logged);
    return this.#applying;
  }

  /** Applies a change; only then is its version this replica's (the heartbeat announces it). */
  async #applyChange(change: RegistryChange): Promise<void> {
    const by = change.op === 'put' ? change.entry.by : change.by;
    // Its own change was applied when it was made.
    if (by !== this.#options.replica) {
      if (change.op === 'put') await this.#put(change.name, change.entry);
      else await this.#remove(change.name);
    }
    this.#version = change.version;
  }

  /** After a gap the stream could not fill, or Redis lost the set: the whole set, applied as a difference. */
  async #resync(set: RegistrySnapshot): Promise<void> {
    const lost = set.epoch !== this.#epoch || set.version < this.#version;
    this.#epoch = set.epoch;
    if (lost) return this.#republish(set);
    await this.#applySet(set);
  }

  async #applySet(set: RegistrySnapshot): Promise<void> {
    for (const name of [...this.#running.keys(), ...this.#refused.keys()])
      if (!set.servers.has(name)) await this.#remove(name);
    for (const [name, entry] of set.servers) await this.#put(name, entry);
    this.#version = set.version;
  }

  /**
   * Redis came back without the set this replica saw (restarted without its data, flushed):
   * what runs here is published again, rather than taken for removed. Nothing was removed
   * while it was away: a change then was refused.
   */
  async #republish(set: RegistrySnapshot): Promise<void> {
    const { logger, registry } = this.#options;
    logger.warn(
      `cluster: Redis no longer holds the set of servers this replica saw (it restarted without its data): ` +
        `publishing again the ${this.#running.size} server(s) this replica runs`,
    );
    for (const [name, text] of this.#running)
      if (!set.servers.has(name))
        await registry.put(name, JSON.parse(text) as Record<string, unknown>).catch((error: unknown) => {
          logger.warn(`cluster: server '${name}' could not be published again: ${messageOf(error)}`);
        });
    for (const [name, entry] of set.servers) await this.#put(name, entry);
    // Its own puts come back on the follower (and are its own: nothing to apply).
    this.#version = set.version;
  }

  async #put(name: string, cluster: ClusterEntry): Promise<void> {
    const { children, logger } = this.#options;
    const text = cluster.entry && stableStringify(cluster.entry);
    if (text !== undefined && this.#running.get(name) === text) {
      if (this.#generations.get(name) !== cluster.generation) await this.#reload(name, cluster);
      return;
    }
    this.#generations.set(name, cluster.generation);
    const admitted = this.#admitted(name, cluster);
    if (placementOf(cluster.entry) === 'one' && text !== undefined && !this.#ownName(name))
      return this.#putPlaced(name, text, admitted, cluster);
    if (typeof admitted === 'string') {
      this.#refused.set(name, { name, by: cluster.by, reason: admitted });
      logger.warn(
        `cluster: server '${name}' (added by replica ${cluster.by}) does not run here: ${admitted}`,
      );
      // A running version of it that the change replaces does not go on as if current.
      if (this.#running.delete(name)) await children.remove(name).catch(() => {});
      return;
    }
    if (this.#running.delete(name)) await children.remove(name).catch(() => {});
    this.#refused.delete(name);
    this.#running.set(name, text!);
    try {
      await children.add(name, admitted, { addedBy: 'agent' });
      logger.info(`cluster: started server '${name}' (added by replica ${cluster.by})`);
    } catch (error) {
      // Nothing is left of a start that failed (Children undoes it); list_servers says why.
      this.#running.delete(name);
      this.#refused.set(name, { name, by: cluster.by, reason: `it did not start here: ${messageOf(error)}` });
      logger.warn(
        `cluster: server '${name}' (added by replica ${cluster.by}) did not start: ${messageOf(error)}`,
      );
    }
  }

  /**
   * A server placed on one replica: reached through its owner's hop, and, where this replica's
   * policy admits it, a candidate to run it when the owner goes.
   */
  async #putPlaced(
    name: string,
    text: string,
    admitted: ServerSpec | string,
    cluster: ClusterEntry,
  ): Promise<void> {
    if (this.#running.delete(name)) await this.#placed.drop(name);
    await this.#options.children.remove(name).catch(() => {});
    this.#refused.delete(name);
    this.#running.set(name, text);
    if (typeof admitted === 'string')
      this.#options.logger.info(
        `cluster: server '${name}' (added by replica ${cluster.by}) will not run here (${admitted}); reached on the replica that runs it`,
      );
    await this.#placed.adopt(name, typeof admitted === 'string' ? undefined : admitted);
  }

  #ownName(name: string): boolean {
    return this.#options.ownNames().has(name);
  }

  /** The spec this replica's policy admits for `cluster`'s entry, or why it does not run here. */
  #admitted(name: string, cluster: ClusterEntry): ServerSpec | string {
    const { policy, ownNames, specOf } = this.#options;
    if (cluster.entry === undefined) return cluster.problem ?? 'its entry cannot be read';
    if (ownNames().has(name)) return `this replica has a server '${name}' of its own (its config)`;
    const spec = specOf(name, cluster.entry);
    if (typeof spec === 'string') return spec;
    try {
      const admitted = policy.admitRuntimeAdd(name, spec);
      if (policy.sandboxWidening(admitted))
        return "it widens the sandbox, which this replica's person has not approved (--sandbox): give it in this replica's config instead";
      return admitted;
    } catch (error) {
      return `this replica's spawn policy refuses it: ${messageOf(error)}`;
    }
  }

  /** The same entry, reloaded through another replica: restarted here too. */
  async #reload(name: string, cluster: ClusterEntry): Promise<void> {
    const { children, logger } = this.#options;
    this.#generations.set(name, cluster.generation);
    await children.reload(name).then(
      () => logger.info(`cluster: reloaded server '${name}' (reloaded through replica ${cluster.by})`),
      (error: unknown) => logger.warn(`cluster: server '${name}' did not reload: ${messageOf(error)}`),
    );
  }

  async #remove(name: string): Promise<void> {
    const { children, logger } = this.#options;
    this.#refused.delete(name);
    this.#generations.delete(name);
    if (!this.#running.delete(name)) return;
    if (this.#placed.has(name)) return this.#placed.drop(name);
    await children.remove(name).then(
      () => logger.info(`cluster: stopped server '${name}' (removed from the cluster)`),
      (error: unknown) => logger.warn(`cluster: server '${name}' could not be removed: ${messageOf(error)}`),
    );
  }
}
