// Results kept for read_result, shared by a cluster's replicas: a modern (2026-07-28) client's
// read_result may land on another replica than the call that was cut. Each is one Redis key,
// sealed with the state key (bound to its handle) and expiring with its time to live.
import type { SharedResults, StoredResult } from '../results/result-store.js';
import { connected, type Client, type RedisConnectionOptions } from './redis-connection.js';
import type { StateKey } from './state-key.js';

export interface RedisResultsOptions extends RedisConnectionOptions {
  readonly cluster: string;
  readonly key: StateKey;
}

export class RedisResults implements SharedResults {
  readonly #options: RedisResultsOptions;
  readonly #client: Client;

  private constructor(options: RedisResultsOptions, client: Client) {
    this.#options = options;
    this.#client = client;
  }

  static async connect(options: RedisResultsOptions): Promise<RedisResults> {
    return new RedisResults(options, await connected(options, 'results'));
  }

  async put(handle: string, text: string, stored: StoredResult, ttlMs: number): Promise<void> {
    const sealed = this.#options.key.seal('results', this.#context(handle), JSON.stringify({ stored, text }));
    await this.#client.set(this.#redisKey(handle), sealed, { expiration: { type: 'PX', value: ttlMs } });
  }

  async get(handle: string): Promise<{ text: string; stored: StoredResult } | undefined> {
    const sealed = await this.#client.get(this.#redisKey(handle));
    if (sealed === null) return undefined;
    return JSON.parse(this.#options.key.open('results', this.#context(handle), sealed)) as {
      text: string;
      stored: StoredResult;
    };
  }

  async drop(handle: string): Promise<void> {
    await this.#client.del(this.#redisKey(handle));
  }

  close(): void {
    this.#client.destroy();
  }

  #redisKey(handle: string): string {
    return `mcpmux:${this.#options.cluster}:result:${handle}`;
  }

  #context(handle: string): string {
    return `${this.#options.cluster}/${handle}`;
  }
}
