// The cluster's servers placed on one replica ("placement": "one"): one copy runs, on the replica
// that holds its lease; every other replica reaches it through the owner's hop (a server under
// the same name, /cluster/servers/NAME/lines with the cluster's token), so that its state
// (a memory server's graph) is one. When the owner dies or drains, the next replica whose
// policy admits it takes the lease and starts it (its state in memory starts anew); the others
// point their hop at the new owner. A move replaces what reached the server with what reaches
// it now, as a reload does: the client's calls meanwhile wait for it rather than fail.
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import { specFromWire, type ServerSpec } from '../child/server-spec.js';
import type { Children } from '../children/children.js';
import type { ClusterRegistry } from './cluster-registry.js';
import type { ServerLeases } from './server-leases.js';

export interface PlacedServersOptions {
  readonly children: Children;
  readonly leases: ServerLeases;
  readonly registry: ClusterRegistry;
  readonly replica: string;
  readonly hopToken: string;
  readonly logger: Logger;
  /** Runs work after what came before (the cluster's changes are applied one at a time). */
  readonly enqueue: (work: () => Promise<void>) => Promise<void>;
}

/** How often a replica that reaches a server through the hop checks who owns it. */
const OWNER_CHECK_MS = 1000;

interface Placed {
  /** What this replica's policy admits to run here; undefined: it may only reach it. */
  readonly admitted: ServerSpec | undefined;
  /** Who runs it now, as this replica knows: itself, another (reached through its hop), or none. */
  runsOn: string | undefined;
  /** Its part in the lease; undefined where the policy does not admit it. */
  release: (() => Promise<void>) | undefined;
  /** Since when the replica it ran on has not been among the live ones, as this one saw. */
  absentSince?: number | undefined;
}

/**
 * How long the replica a server ran on must be seen missing from the live replicas (which it
 * leaves 6 s after its last heartbeat, or at once when it drains) before another starts it:
 * longer than a heartbeat (2 s), so that a Redis back without its data a moment ago, which
 * lists no replica yet, is not taken for the owner's death.
 */
const OWNER_GONE_MS = 2500;

export class PlacedServers {
  readonly #options: PlacedServersOptions;
  readonly #placed = new Map<string, Placed>();
  readonly #timer: NodeJS.Timeout;

  constructor(options: PlacedServersOptions) {
    this.#options = options;
    this.#timer = setInterval(() => void options.enqueue(() => this.#followOwners()), OWNER_CHECK_MS);
    this.#timer.unref();
  }

  has(name: string): boolean {
    return this.#placed.has(name);
  }

  /** The replica `name` runs on, as this one knows. */
  runsOn(name: string): string | undefined {
    return this.#placed.get(name)?.runsOn;
  }

  /** Whether this replica runs `name` for the others (its hop answers for it). */
  owns(name: string): boolean {
    return this.#placed.get(name)?.runsOn === this.#options.replica;
  }

  /**
   * A server this replica started for its own client (add_server here): it takes the lease, or,
   * when another replica holds it already, stops its copy and reaches that one's.
   */
  async claim(name: string, admitted: ServerSpec): Promise<void> {
    const held = await this.#options.leases.acquire(name);
    const placed: Placed = { admitted, runsOn: held ? this.#options.replica : undefined, release: undefined };
    this.#placed.set(name, placed);
    placed.release = this.#hold(name, placed, held);
    if (!held) {
      await this.#options.children.remove(name).catch(() => {});
      await this.#reach(name, placed);
    }
  }

  /** A server placed on one replica, added through another: reached there (and run here if this one takes it over). */
  async adopt(name: string, admitted: ServerSpec | undefined): Promise<void> {
    const placed: Placed = { admitted, runsOn: undefined, release: undefined };
    this.#placed.set(name, placed);
    if (admitted) placed.release = this.#hold(name, placed, false);
    await this.#reach(name, placed);
  }

  /** No longer the cluster's: its lease given up, its copy or its hop gone. */
  async drop(name: string): Promise<void> {
    const placed = this.#placed.get(name);
    if (!placed) return;
    this.#options.logger.debug(`cluster: server '${name}': no longer placed here`);
    this.#placed.delete(name);
    await placed.release?.();
    await this.#options.children.remove(name).catch(() => {});
  }

  /** This replica ends (a drain): its leases are given up, so that the others take them at once. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([...this.#placed.values()].map((placed) => placed.release?.()));
  }

  #hold(name: string, placed: Placed, held: boolean): () => Promise<void> {
    const { leases, enqueue } = this.#options;
    return leases.hold(
      name,
      {
        acquired: () => void enqueue(() => this.#takeOver(name, placed)),
        lost: () => void enqueue(() => this.#reach(name, placed)),
      },
      { held, mayTake: () => this.#ownerGone(placed) },
    );
  }

  /**
   * Whether the replica that last ran it is gone (no longer announcing itself). A lease that is
   * free while its owner lives (Redis came back without its data) is the owner's to take again:
   * a copy started elsewhere would lose the state in memory for nothing.
   */
  async #ownerGone(placed: Placed): Promise<boolean> {
    const last = placed.runsOn;
    if (last === undefined || last === this.#options.replica) return true;
    const live = await this.#options.registry.liveReplicas().catch(() => undefined);
    // Redis out of reach, or back without its data and this replica not yet announced again: unknown.
    if (live === undefined || !live.has(this.#options.replica)) return false;
    if (live.has(last)) {
      placed.absentSince = undefined;
      return false;
    }
    // It drained: it said so as it left, so nothing is to be waited for.
    if (await this.#options.registry.hasLeft(last).catch(() => false)) return true;
    placed.absentSince ??= Date.now();
    return Date.now() - placed.absentSince >= OWNER_GONE_MS;
  }

  /** The lease came to this replica: its copy starts here (what the last owner held in memory is gone). */
  async #takeOver(name: string, placed: Placed): Promise<void> {
    const { children, logger, replica } = this.#options;
    logger.debug(`cluster: server '${name}': this replica took its lease`);
    if (this.#placed.get(name) !== placed || placed.runsOn === replica || !placed.admitted) return;
    // Its hop answers from now on: the others' requests wait for the copy starting here, as this
    // replica's own do (it is put in the place of the hop to the last owner), instead of failing.
    placed.runsOn = replica;
    try {
      await children.replace(name, placed.admitted, { addedBy: 'agent' });
      logger.info(`cluster: server '${name}' now runs on this replica (its state in memory starts anew)`);
    } catch (error) {
      logger.warn(`cluster: server '${name}' did not start here: ${messageOf(error)}; giving its lease up`);
      placed.runsOn = undefined;
      await placed.release?.();
      placed.release = this.#hold(name, placed, false);
    }
  }

  /** Reaches the owner's copy through its hop (none while no replica runs it). */
  async #reach(name: string, placed: Placed): Promise<void> {
    const { children, leases, registry, logger, replica } = this.#options;
    if (this.#placed.get(name) !== placed) return;
    const looked = await leases.owner(name).then(
      (owner) => ({ owner }),
      () => undefined,
    );
    // Redis out of reach: what is reached stays as it is.
    if (looked === undefined) return;
    const { owner } = looked;
    logger.debug(
      `cluster: server '${name}': reaching its owner (${owner ?? 'none'}; was ${placed.runsOn ?? 'none'})`,
    );
    if (owner === replica && placed.runsOn === replica) return;
    const url =
      owner === undefined
        ? undefined
        : (await registry.liveReplicas().catch(() => undefined))?.get(owner)?.url;
    // Nothing to reach (no owner yet, this replica's lease, an owner not announced): what is here
    // stays — a hop to a draining owner still answers, and the lease's holder starts its copy.
    if (owner === undefined || owner === replica || url === undefined) return;
    const wire = specFromWire({
      url: `${url}/cluster/servers/${encodeURIComponent(name)}/lines`,
      headers: { Authorization: `Bearer ${this.#options.hopToken}` },
      era: 'modern',
    });
    if (typeof wire === 'string') return logger.warn(`cluster: server '${name}': ${wire}`);
    const spec = { ...wire, clusterHop: true as const };
    try {
      // Its text passed the owner's gate: trusted as the operator's here. In the place of what
      // reached it before (a hop to the last owner, or this replica's copy): calls wait, not fail.
      await children.replace(name, spec, { addedBy: 'operator' });
      placed.runsOn = owner;
    } catch (error) {
      placed.runsOn = undefined; // (what reached it before is gone with the failed start)
      logger.warn(`cluster: server '${name}' on replica ${owner} cannot be reached: ${messageOf(error)}`);
    }
  }

  /** The owners as Redis has them: a hop to a replica that no longer owns a server is pointed anew. */
  async #followOwners(): Promise<void> {
    for (const [name, placed] of this.#placed) {
      if (placed.runsOn === this.#options.replica) continue;
      const looked = await this.#options.leases.owner(name).then(
        (owner) => ({ owner }),
        () => undefined,
      );
      if (looked === undefined) continue; // Redis out of reach: nothing to learn
      const crashed = this.#options.children.list().find((s) => s.name === name)?.status === 'crashed';
      // A free lease whose owner lives is its to take again (Redis lost it): the hop stays.
      if (looked.owner === undefined && !(await this.#ownerGone(placed))) continue;
      if (looked.owner !== placed.runsOn || crashed) await this.#reach(name, placed);
    }
  }
}
