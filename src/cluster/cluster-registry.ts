// The set of servers a cluster of mcpmux replicas shares, kept in Redis: a hash of the entries
// (as a config file holds them) with a version counter, and a stream of the changes, so that a
// change made through any replica reaches every other one (XREAD on a connection of its own),
// and one that was away (a dropped connection, a Redis restarted empty) catches up or reads the
// whole set again. Every change is one Lua script: version, entry and stream move together.
// An epoch (a random id Redis keeps beside the set) tells a Redis that lost its data (restarted
// without persistence, flushed) from one that did not, whatever the version numbers say.
// An entry (its command, its env) is sealed with the cluster's state key: Redis alone reads
// none of it, and an entry that does not open is reported, never run.
import { randomUUID } from 'node:crypto';
import { messageOf } from '../common/errors.js';
import type { StateKey } from './state-key.js';
import {
  connected,
  newClient,
  unavailable,
  type Client,
  type RedisConnectionOptions,
} from './redis-connection.js';

/** A server of the cluster: its entry as add_server takes it, who set it, when. */
export interface ClusterEntry {
  /** Undefined when it did not open (`problem` says why). */
  readonly entry: Readonly<Record<string, unknown>> | undefined;
  readonly problem?: string;
  /** Set anew by each reload_server: a replica running the same entry restarts it. */
  readonly generation?: string;
  /** The replica that made the change. */
  readonly by: string;
  readonly at: string;
}

export interface RegistrySnapshot {
  readonly version: number;
  /** Changes when Redis lost the set: what the replicas saw before is not in it. */
  readonly epoch: string;
  readonly servers: ReadonlyMap<string, ClusterEntry>;
}

export type RegistryChange =
  | {
      readonly version: number;
      readonly epoch: string;
      readonly op: 'put';
      readonly name: string;
      readonly entry: ClusterEntry;
    }
  | {
      readonly version: number;
      readonly epoch: string;
      readonly op: 'remove';
      readonly name: string;
      readonly by: string;
    };

export interface ClusterRegistryOptions extends RedisConnectionOptions {
  readonly cluster: string;
  readonly key: StateKey;
  /** Where the other replicas reach this one's hop (http://host:port). */
  readonly hopUrl?: string;
  /** How many changes the stream keeps for replicas that were away (older ones read the whole set). */
  readonly keepChanges?: number;
}

/** Follows the changes other replicas make; `resync` when the stream cannot say what was missed. */
export interface RegistryFollower {
  change(change: RegistryChange): void;
  resync(snapshot: RegistrySnapshot): void;
}

// KEYS: servers hash, version counter, changes stream, epoch. ARGV: op, name, entry JSON (put),
// max stream length, an epoch for a Redis that has none.
const CHANGE_SCRIPT = `
redis.call('SET', KEYS[4], ARGV[5], 'NX')
local epoch = redis.call('GET', KEYS[4])
if ARGV[1] == 'remove' and redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then return -1 end
local version = redis.call('INCR', KEYS[2])
if ARGV[1] == 'put' then redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) else redis.call('HDEL', KEYS[1], ARGV[2]) end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'version', version, 'epoch', epoch, 'op', ARGV[1], 'name', ARGV[2], 'entry', ARGV[3])
return version
`;

// KEYS: replicas hash. ARGV: replica, version it applied, its hop URL. Redis's clock, so that
// replicas' clocks need not agree.
const ANNOUNCE_SCRIPT = `
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. (t[1] * 1000 + math.floor(t[2] / 1000)) .. ' ' .. ARGV[3])
return 1
`;
// KEYS: replicas hash. Returns Redis's time now (ms) and the hash.
const REPLICAS_SCRIPT = `
local t = redis.call('TIME')
return { t[1] * 1000 + math.floor(t[2] / 1000), redis.call('HGETALL', KEYS[1]) }
`;

/** A replica that has not announced itself for this long is taken as gone. */
const REPLICA_GONE_MS = 6000;
/** How long a replica that left is known to have left (longer than any replica's wait to take a server over). */
const LEFT_KEPT_MS = 30_000;

/** How long one XREAD waits before it asks again (and notices a close). */
const BLOCK_MS = 1000;

export class ClusterRegistry {
  readonly #options: ClusterRegistryOptions;
  readonly #client: Client;
  readonly #keys: { servers: string; version: string; changes: string; replicas: string; epoch: string };
  readonly #followers = new Set<Client>();

  private constructor(options: ClusterRegistryOptions, client: Client) {
    this.#options = options;
    this.#client = client;
    const prefix = `mcpmux:${options.cluster}`;
    this.#keys = {
      servers: `${prefix}:servers`,
      version: `${prefix}:version`,
      changes: `${prefix}:changes`,
      replicas: `${prefix}:replicas`,
      epoch: `${prefix}:epoch`,
    };
  }

  /** Connects to the cluster's Redis; rejects with CLUSTER_UNAVAILABLE when it cannot be reached. */
  static async connect(options: ClusterRegistryOptions): Promise<ClusterRegistry> {
    return new ClusterRegistry(options, await connected(options, 'registry'));
  }

  /** The whole set and its version, read at one instant. */
  async snapshot(): Promise<RegistrySnapshot & { lastId: string }> {
    const [, epoch, version, servers, last] = await this.#run(() =>
      this.#client
        .multi()
        .set(this.#keys.epoch, randomUUID(), { condition: 'NX' })
        .get(this.#keys.epoch)
        .get(this.#keys.version)
        .hGetAll(this.#keys.servers)
        .xRevRange(this.#keys.changes, '+', '-', { COUNT: 1 })
        .exec(),
    );
    return {
      version: Number(version ?? 0),
      epoch: String(epoch),
      servers: new Map(
        Object.entries(servers as unknown as Record<string, string>).map(([name, json]) => [
          name,
          this.#opened(name, json),
        ]),
      ),
      lastId: String((last as unknown as { id: string }[])[0]?.id ?? '0-0'),
    };
  }

  /** The set's version now; CLUSTER_UNAVAILABLE when Redis cannot be reached. */
  async version(): Promise<number> {
    return this.#run(() => this.#versionNow());
  }

  /** Says that this replica is alive and has applied the set up to `version`. */
  async announce(version: number): Promise<void> {
    await this.#run(() =>
      this.#client.eval(ANNOUNCE_SCRIPT, {
        keys: [this.#keys.replicas],
        arguments: [this.#options.replica, String(version), this.#options.hopUrl ?? ''],
      }),
    );
  }

  /**
   * This replica leaves: no change waits for it any more, and for a while the others know it
   * left of its own accord (a drain), not that Redis lost the list of replicas.
   */
  async leave(): Promise<void> {
    await this.#client
      .multi()
      .hDel(this.#keys.replicas, this.#options.replica)
      .set(this.#leftKey(this.#options.replica), '1', { expiration: { type: 'PX', value: LEFT_KEPT_MS } })
      .exec()
      .catch(() => {});
  }

  /** Whether `replica` left of its own accord within the last LEFT_KEPT_MS. */
  async hasLeft(replica: string): Promise<boolean> {
    return (await this.#run(() => this.#client.exists(this.#leftKey(replica)))) === 1;
  }

  #leftKey(replica: string): string {
    return `mcpmux:${this.#options.cluster}:left:${replica}`;
  }

  /** The replicas alive now (announced within the last few seconds): the version each has applied, its hop URL. */
  async liveReplicas(): Promise<Map<string, { applied: number; url: string }>> {
    const [now, flat] = (await this.#run(() =>
      this.#client.eval(REPLICAS_SCRIPT, { keys: [this.#keys.replicas] }),
    )) as [number, string[]];
    const live = new Map<string, { applied: number; url: string }>();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const [applied, at, url = ''] = flat[i + 1]!.split(' ');
      if (now - Number(at) <= REPLICA_GONE_MS) live.set(flat[i]!, { applied: Number(applied), url });
    }
    return live;
  }

  /** Sets a server's entry (`generation`: a reload of it); resolves with the set's new version. */
  async put(name: string, entry: Readonly<Record<string, unknown>>, generation?: string): Promise<number> {
    const sealed = this.#options.key.seal('registry', this.#context(name), JSON.stringify(entry));
    const value: StoredEntry = {
      sealed,
      by: this.#options.replica,
      at: new Date().toISOString(),
      ...(generation !== undefined && { generation }),
    };
    return this.#change('put', name, JSON.stringify(value));
  }

  /** Removes a server; resolves with the new version, or undefined when the set had no such server. */
  async remove(name: string): Promise<number | undefined> {
    const version = await this.#change('remove', name, JSON.stringify({ by: this.#options.replica }));
    return version < 0 ? undefined : version;
  }

  /**
   * Tells `follower` each change after `from` (a snapshot's version and last stream id), on a
   * connection of its own, until the returned function is called. After a dropped connection it
   * goes on from the last change it saw; where the stream no longer holds what followed, or
   * Redis came back without the set (another epoch, or its version went back), it reads the
   * whole set again.
   */
  follow(from: { version: number; lastId: string; epoch: string }, follower: RegistryFollower): () => void {
    const reader = newClient(this.#options, 'follower');
    this.#followers.add(reader);
    let stopped = false;
    let { version, lastId, epoch } = from;
    const resync = async () => {
      const snapshot = await this.snapshot();
      ({ version, lastId, epoch } = snapshot);
      follower.resync(snapshot);
    };
    const loop = async () => {
      while (!stopped) {
        try {
          if (!reader.isOpen) await reader.connect();
          const reply = await reader.xRead({ key: this.#keys.changes, id: lastId }, { BLOCK: BLOCK_MS });
          const entries = (reply?.[0]?.messages ?? []) as { id: string; message: Record<string, string> }[];
          if (entries.length === 0 && (await this.#versionNow()) < version) await resync();
          for (const { id, message } of entries) {
            const change = this.#parseChange(message);
            if (change.version !== version + 1 || change.epoch !== epoch) {
              await resync();
              break;
            }
            version = change.version;
            lastId = id;
            follower.change(change);
          }
        } catch (error) {
          if (stopped) return;
          this.#options.logger.debug(`cluster: following the changes: ${messageOf(error)}; trying again`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    };
    void loop();
    return () => {
      stopped = true;
      this.#followers.delete(reader);
      reader.destroy();
    };
  }

  async close(): Promise<void> {
    for (const reader of this.#followers) reader.destroy();
    this.#followers.clear();
    this.#client.destroy();
  }

  #parseChange(fields: Record<string, string>): RegistryChange {
    const version = Number(fields['version']);
    const epoch = fields['epoch'] ?? '';
    const name = fields['name'] ?? '';
    if (fields['op'] === 'put')
      return { version, epoch, op: 'put', name, entry: this.#opened(name, fields['entry'] ?? '{}') };
    return {
      version,
      epoch,
      op: 'remove',
      name,
      by: String((JSON.parse(fields['entry'] ?? '{}') as StoredEntry).by),
    };
  }

  /** A stored entry opened; one that does not (another key, changed in Redis) says why instead. */
  #opened(name: string, json: string): ClusterEntry {
    let stored: StoredEntry;
    try {
      stored = JSON.parse(json) as StoredEntry;
    } catch {
      return {
        entry: undefined,
        problem: 'its value in Redis is not an entry mcpmux wrote',
        by: '?',
        at: '?',
      };
    }
    try {
      const entry = JSON.parse(
        this.#options.key.open('registry', this.#context(name), stored.sealed),
      ) as Record<string, unknown>;
      return {
        entry,
        by: stored.by,
        at: stored.at,
        ...(stored.generation !== undefined && { generation: stored.generation }),
      };
    } catch (error) {
      return { entry: undefined, problem: messageOf(error), by: stored.by, at: stored.at };
    }
  }

  /** What an entry is sealed to: its cluster and name (moved to another, it does not open). */
  #context(name: string): string {
    return `${this.#options.cluster}/${name}`;
  }

  async #versionNow(): Promise<number> {
    return Number((await this.#client.get(this.#keys.version)) ?? 0);
  }

  async #change(op: 'put' | 'remove', name: string, value: string): Promise<number> {
    const { servers, version, changes, epoch } = this.#keys;
    const keep = String(this.#options.keepChanges ?? 10_000);
    return Number(
      await this.#run(() =>
        this.#client.eval(CHANGE_SCRIPT, {
          keys: [servers, version, changes, epoch],
          arguments: [op, name, value, keep, randomUUID()],
        }),
      ),
    );
  }

  /** Runs a command; Redis out of reach is CLUSTER_UNAVAILABLE, at once (no queue of commands waits for it). */
  async #run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      if (error instanceof SyntaxError) throw error;
      throw unavailable(this.#options.url, error);
    }
  }
}

/** An entry as Redis holds it: sealed, with who set it and when in the clear (for list_servers). */
interface StoredEntry {
  readonly sealed: string;
  readonly generation?: string;
  readonly by: string;
  readonly at: string;
}
