// A mcpmux as a replica of a cluster (--redis): it joins its cluster's set of servers in Redis
// (started through its own spawn policy) and shares the adds and removes its clients make. Redis
// out of reach at start: the replica serves what it has of its own, tries again every second,
// and /readyz says not ready until it has read the set. Loaded only with --redis: the Redis
// client costs every other mcpmux its start time.
import { hostname } from 'node:os';
import type { ServerSpec } from '../child/server-spec.js';
import { StateKey } from '../cluster/state-key.js';
import { specFromWire } from '../child/server-spec.js';
import type { ClusterOptions } from '../cli/cli-options.js';
import { MuxError, messageOf } from '../common/errors.js';
import { addServerInput } from '../session/tools/management-schemas.js';
import type { ClusterLink } from '../session/tools/tool-context.js';
import type { ClusterServers } from '../cluster/cluster-servers.js';
import type { RedisResults, RedisResultsOptions } from '../cluster/shared-results.js';
import type { SharedFolder, SharedFolders } from '../cluster/shared-folders.js';
import { lockAcrossMachines } from '../oauth/sign-in-lock.js';
import { stateDir } from '../common/state-dir.js';
import { oauthStateDir } from '../oauth/credential-store.js';
import { secretsDir } from '../secrets/kept-secrets.js';
import type { SharedResults } from '../results/result-store.js';
import type { Core } from './core.js';

const RETRY_MS = 1000;

export class ClusterReplica {
  readonly #options: ClusterOptions;
  readonly #core: Core;
  #servers: ClusterServers | undefined;
  #closeRegistry: (() => Promise<void>) | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  /** What add_server, remove_server and list_servers use. */
  readonly link: ClusterLink;
  /** Results kept for modern clients' read_result, readable on every replica (here alone until Redis is reached). */
  readonly sharedResults: SharedResults;
  #results: RedisResults | undefined;
  /** Where the other replicas reach this one's hop; known once it serves HTTP. */
  #hopUrl = '';
  readonly #key: StateKey;

  constructor(options: ClusterOptions, core: Core) {
    this.#options = options;
    this.#core = core;
    this.#key = StateKey.from(options.stateKey);
    this.link = {
      replica: options.replica,
      reachable: async () => this.#joined().reachable(),
      published: (name, entry) => this.#joined().published(name, entry),
      unpublished: (name) => this.#joined().unpublished(name),
      reloaded: (name) => this.#joined().reloaded(name),
      has: (name) => this.#servers?.has(name) ?? false,
      refusals: () => this.#servers?.refusals() ?? [],
      placement: (name) => this.#servers?.placement(name),
    };
    this.sharedResults = {
      put: async (handle, text, stored, ttlMs) => this.#results?.put(handle, text, stored, ttlMs),
      get: async (handle) => this.#results?.get(handle),
      drop: async (handle) => this.#results?.drop(handle),
    };
  }

  /**
   * Joins (after the replica's own servers are registered: a cluster entry of one of their
   * names is refused); `servedAt`: the URL this replica serves MCP at, whose origin the others
   * reach its hop by (unless --replica-url says another).
   */
  start(servedAt: string): void {
    this.#hopUrl = this.#options.replicaUrl ?? hopOrigin(servedAt);
    void this.#attempt();
  }

  /** The internal hop's settings for the HTTP server: the cluster's token, and the servers run here for the others. */
  get hop(): { accepts(token: string): boolean; runs(name: string): boolean } {
    return {
      accepts: (token) => this.#key.isHopToken(token),
      runs: (name) => this.#servers?.owns(name) ?? false,
    };
  }

  /** Whether the cluster's set has been read and applied. */
  ready(): boolean {
    return this.#servers?.ready ?? false;
  }

  /** A drain begins: the servers this replica runs for the cluster go to the others now. */
  async handOver(): Promise<void> {
    await this.#servers
      ?.handOver()
      .catch((error: unknown) =>
        this.#core.logger.warn(
          `cluster '${this.#options.name}': handing its servers over: ${messageOf(error)}`,
        ),
      );
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#closeRegistry?.();
  }

  async #attempt(): Promise<void> {
    const { logger } = this.#core;
    const { name, replica } = this.#options;
    try {
      const servers = await this.#connect();
      if (this.#closed) return void (await this.#closeRegistry?.());
      await servers.join();
      this.#servers = servers;
      logger.info(`cluster '${name}': replica ${replica} joined`);
    } catch (error) {
      await this.#closeRegistry?.();
      this.#closeRegistry = undefined;
      if (this.#closed) return;
      logger.warn(`cluster '${name}': ${messageOf(error)}; trying again in ${RETRY_MS / 1000} s`);
      this.#retry = setTimeout(() => void this.#attempt(), RETRY_MS);
    }
  }

  async #connect(): Promise<ClusterServers> {
    const [{ ClusterRegistry }, { ClusterServers }] = await Promise.all([
      import('../cluster/cluster-registry.js'),
      import('../cluster/cluster-servers.js'),
    ]);
    const { logger, children, policy, agents } = this.#core;
    const { redisUrl, name, replica } = this.#options;
    const connection = { url: redisUrl, cluster: name, replica, key: this.#key, logger };
    const registry = await ClusterRegistry.connect({ ...connection, hopUrl: this.#hopUrl });
    const shared = await sharedParts(connection, agents !== undefined).catch(async (error: unknown) => {
      await registry.close();
      throw error;
    });
    const servers: ClusterServers = new ClusterServers({
      registry,
      children,
      policy,
      replica,
      logger,
      ownNames: (): ReadonlySet<string> =>
        new Set(
          children
            .list()
            .map((s) => s.name)
            .filter((server) => !servers.has(server)),
        ),
      specOf,
      leases: shared.leases,
      hopToken: this.#key.hopToken(),
    });
    this.#results = shared.results;
    agents?.runs.share(shared.agentRuns);
    this.#closeRegistry = async () => {
      agents?.runs.share(undefined);
      await servers.close();
      await registry.close();
      await shared.close();
      this.#results = undefined;
    };
    return servers;
  }

  #joined(): ClusterServers {
    if (this.#servers) return this.#servers;
    throw new MuxError(
      'CLUSTER_UNAVAILABLE',
      `replica ${this.#options.replica} has not read its cluster's set of servers from Redis yet: the set cannot change through it until it has`,
    );
  }
}

/** The origin of the URL MCP is served at, with a host the other replicas can reach (not 0.0.0.0). */
function hopOrigin(servedAt: string): string {
  const url = new URL(servedAt);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = hostname();
  return url.origin;
}

/**
 * What the replicas share beside the set of servers: kept results, the servers' leases, what a
 * person gave once (secrets, sign-ins, pins), and the agents' runs (when the agent tools are on).
 */
async function sharedParts(connection: RedisResultsOptions, agents: boolean) {
  const [{ RedisResults }, { ServerLeases }, { SharedFolders }, { RedisAgentRuns }, { SignInLocks }] =
    await Promise.all([
      import('../cluster/shared-results.js'),
      import('../cluster/server-leases.js'),
      import('../cluster/shared-folders.js'),
      import('../cluster/shared-agent-runs.js'),
      import('../cluster/sign-in-locks.js'),
    ]);
  const opened: { close(): unknown }[] = [];
  const opening = <T extends { close(): unknown }>(part: Promise<T>) => part.then((p) => (opened.push(p), p));
  const close = async () => {
    lockAcrossMachines(oauthStateDir(), undefined);
    for (const part of opened) await part.close();
  };
  // Sign-ins and renewals of one server wait for each other on every replica, as on one machine.
  const signInLocks = async (folders: SharedFolders) =>
    lockAcrossMachines(oauthStateDir(), await opening(SignInLocks.connect({ ...connection, folders })));
  const [results, leases, , agentRuns] = await Promise.all([
    opening(RedisResults.connect(connection)),
    opening(ServerLeases.connect(connection)),
    opening(SharedFolders.connect({ ...connection, folders: keptFolders() })).then(signInLocks),
    agents ? opening(RedisAgentRuns.connect(connection)) : undefined,
  ]).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return { results, leases, agentRuns, close };
}

/** What a person gave once and every replica uses: kept secrets, OAuth sign-ins, approved pins. */
function keptFolders(): SharedFolder[] {
  return [
    { name: 'secrets', dir: secretsDir(), purpose: 'secrets' },
    { name: 'oauth', dir: oauthStateDir(), purpose: 'tokens' },
    { name: 'pins', dir: stateDir('pins'), purpose: 'pins' },
  ];
}

/** An entry of the cluster's set, checked as add_server checks its arguments. */
function specOf(name: string, entry: Readonly<Record<string, unknown>>): ServerSpec | string {
  const parsed = addServerInput.safeParse({ ...entry, name });
  if (!parsed.success) return `its entry is not one add_server takes: ${parsed.error.issues[0]?.message}`;
  return specFromWire(parsed.data);
}
