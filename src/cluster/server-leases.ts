// Which replica runs a server placed on one of them ("placement": "one"): a lease in Redis, the
// replica's name under the server's key with an expiry, renewed by a heartbeat. The others try
// to take it at each beat; when its holder dies (no renewal) or gives it up (a drain), the next
// one that tries takes it, and starts the server there. Renewing and giving up are Lua scripts
// that act only while the lease is still this replica's: a holder that was away too long finds it
// lost, never takes it back from the one that took it.
import { messageOf } from '../common/errors.js';
import { connected, type Client, type RedisConnectionOptions } from './redis-connection.js';

export interface ServerLeasesOptions extends RedisConnectionOptions {
  readonly cluster: string;
  /** How long a lease lasts without renewal. Default 5000 ms; it is renewed every third of it. */
  readonly ttlMs?: number;
}

/** Told when this replica comes to hold a server's lease, and when it loses it. */
export interface LeaseHolder {
  acquired(): void;
  lost(): void;
}

/** Renews (PEXPIRE ARGV[2]) the key KEYS[1] only while ARGV[1] holds it. */
export const RENEW_IF_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
/** Deletes the key KEYS[1] only while ARGV[1] holds it. */
export const RELEASE_IF_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class ServerLeases {
  readonly #options: ServerLeasesOptions;
  readonly #client: Client;
  readonly #ttlMs: number;
  readonly #held = new Map<string, () => Promise<void>>();

  private constructor(options: ServerLeasesOptions, client: Client) {
    this.#options = options;
    this.#client = client;
    this.#ttlMs = options.ttlMs ?? 5000;
  }

  static async connect(options: ServerLeasesOptions): Promise<ServerLeases> {
    return new ServerLeases(options, await connected(options, 'leases'));
  }

  /** Takes `name`'s lease if no replica holds it; whether it did. */
  async acquire(name: string): Promise<boolean> {
    return this.#acquire(name);
  }

  /** The replica holding `name`'s lease, if one does. */
  async owner(name: string): Promise<string | undefined> {
    return (await this.#client.get(this.#key(name))) ?? undefined;
  }

  /**
   * Takes part in `name`'s lease until the returned function is called: tries to take it at
   * each beat, renews it while held, tells `holder` when it is taken and when it is lost to
   * another replica. Redis out of reach loses nothing: no replica can take it meanwhile (one
   * cut off from Redis while the others reach it may; it learns so when it is back, and loses
   * it then). A Redis back without its data has no lease: its holder takes it again at once.
   * `held`: this replica took it already (acquire); `mayTake`: asked before each try to take a
   * free lease. The returned function gives the lease up, so that another replica takes it at
   * its next beat.
   */
  hold(
    name: string,
    holder: LeaseHolder,
    { held: heldAlready = false, mayTake }: { held?: boolean; mayTake?: () => Promise<boolean> } = {},
  ): () => Promise<void> {
    let held = heldAlready;
    let stopped = false;
    const beat = async () => {
      try {
        const ok = held
          ? (await this.#renew(name)) || (await this.#acquire(name))
          : (mayTake ? await mayTake() : true) && (await this.#acquire(name));
        if (stopped) return;
        if (ok && !held) {
          held = true;
          holder.acquired();
        } else if (!ok && held) {
          held = false;
          holder.lost();
        }
      } catch (error) {
        this.#options.logger.debug(`cluster: lease of '${name}': ${messageOf(error)}`);
      }
    };
    const timer = setInterval(() => void beat(), Math.max(50, Math.floor(this.#ttlMs / 3)));
    timer.unref();
    void beat();
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      this.#held.delete(name);
      if (held) {
        held = false;
        await this.#release(name).catch(() => {});
      }
    };
    this.#held.set(name, stop);
    return stop;
  }

  /** Gives up every lease held (a drain), then closes the connection. */
  async close(): Promise<void> {
    await Promise.all([...this.#held.values()].map((stop) => stop()));
    this.#client.destroy();
  }

  #key(name: string): string {
    return `mcpmux:${this.#options.cluster}:lease:${name}`;
  }

  async #acquire(name: string): Promise<boolean> {
    const set = await this.#client.set(this.#key(name), this.#options.replica, {
      condition: 'NX',
      expiration: { type: 'PX', value: this.#ttlMs },
    });
    return set === 'OK';
  }

  async #renew(name: string): Promise<boolean> {
    const renewed = await this.#client.eval(RENEW_IF_HELD, {
      keys: [this.#key(name)],
      arguments: [this.#options.replica, String(this.#ttlMs)],
    });
    return Number(renewed) === 1;
  }

  async #release(name: string): Promise<void> {
    await this.#client.eval(RELEASE_IF_HELD, { keys: [this.#key(name)], arguments: [this.#options.replica] });
  }
}
