// Agent runs shared by a cluster's replicas, in Redis: each agent's transcript as a list of
// lines sealed with the state key (bound to the agent's id; kept for a week after its last
// line), and, while it runs, a key naming the replica it runs on, renewed every few seconds
// and gone soon after that replica is (so a run cut off by a replica's death reads as stopped,
// and may be resumed elsewhere). A cancel for a run elsewhere is published to its replica.
import type { AnnouncedRun, RunElsewhere, SharedRuns } from '../agent/shared-runs.js';
import type { TranscriptLine } from '../agent/transcript.js';
import { messageOf } from '../common/errors.js';
import { connected, newClient, type Client, type RedisConnectionOptions } from './redis-connection.js';
import type { StateKey } from './state-key.js';

export interface RedisAgentRunsOptions extends RedisConnectionOptions {
  readonly cluster: string;
  readonly key: StateKey;
  /** How long a run's key outlives its last renewal (renewed at a third of it). */
  readonly runningTtlMs?: number;
}

const TRANSCRIPT_TTL_MS = 7 * 24 * 3600_000;
const RUNNING_TTL_MS = 15_000;

export class RedisAgentRuns implements SharedRuns {
  readonly #options: RedisAgentRunsOptions;
  readonly #client: Client;
  readonly #subscriber: Client;
  /** This replica's runs, by id: what a cancel from another replica stops. */
  readonly #mine = new Map<string, AnnouncedRun>();

  private constructor(options: RedisAgentRunsOptions, client: Client, subscriber: Client) {
    this.#options = options;
    this.#client = client;
    this.#subscriber = subscriber;
  }

  static async connect(options: RedisAgentRunsOptions): Promise<RedisAgentRuns> {
    const client = await connected(options, 'agents');
    const subscriber = newClient(options, 'agents-cancel');
    const runs = new RedisAgentRuns(options, client, subscriber);
    try {
      await subscriber.connect();
      await subscriber.subscribe(runs.#channel(), (id) => runs.#mine.get(id)?.cancel());
    } catch (error) {
      runs.close();
      throw error;
    }
    return runs;
  }

  async append(line: TranscriptLine): Promise<void> {
    const id = line.session_id;
    const sealed = this.#options.key.seal('agent-runs', this.#context(id), JSON.stringify(line));
    await this.#client
      .multi()
      .rPush(this.#transcript(id), sealed)
      .pExpire(this.#transcript(id), TRANSCRIPT_TTL_MS)
      .exec();
  }

  async read(id: string): Promise<TranscriptLine[] | undefined> {
    const sealed = await this.#client.lRange(this.#transcript(id), 0, -1);
    if (sealed.length === 0) return undefined;
    return sealed.map(
      (line) => JSON.parse(this.#options.key.open('agent-runs', this.#context(id), line)) as TranscriptLine,
    );
  }

  announce(id: string, startedAt: number, run: AnnouncedRun): { ready: Promise<void>; ended(): void } {
    const ttl = this.#options.runningTtlMs ?? RUNNING_TTL_MS;
    this.#mine.set(id, run);
    const say = async () => {
      const value: RunElsewhere = { replica: this.#options.replica, startedAt, ...run.progress() };
      await this.#client
        .set(this.#running(id), JSON.stringify(value), { expiration: { type: 'PX', value: ttl } })
        .catch((error: unknown) =>
          this.#options.logger.debug(`cluster: agent ${id}: not announced: ${messageOf(error)}`),
        );
    };
    const ready = say();
    const timer = setInterval(() => void say(), ttl / 3);
    timer.unref();
    return {
      ready,
      ended: () => {
        clearInterval(timer);
        this.#mine.delete(id);
        this.#client.del(this.#running(id)).catch(() => {});
      },
    };
  }

  async elsewhere(id: string): Promise<RunElsewhere | undefined> {
    if (this.#mine.has(id)) return undefined;
    const value = await this.#client.get(this.#running(id));
    if (value === null) return undefined;
    const run = JSON.parse(value) as RunElsewhere;
    return run.replica === this.#options.replica ? undefined : run;
  }

  async cancel(id: string): Promise<boolean> {
    if ((await this.elsewhere(id)) === undefined) return false;
    await this.#client.publish(this.#channel(), id);
    return true;
  }

  close(): void {
    this.#client.destroy();
    this.#subscriber.destroy();
  }

  #transcript(id: string): string {
    return `mcpmux:${this.#options.cluster}:agent:${id}:transcript`;
  }

  #running(id: string): string {
    return `mcpmux:${this.#options.cluster}:agent:${id}:running`;
  }

  #channel(): string {
    return `mcpmux:${this.#options.cluster}:agent-cancel`;
  }

  #context(id: string): string {
    return `${this.#options.cluster}/${id}`;
  }
}
