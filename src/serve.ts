// Serving MCP, wired once here: the core every session shares (wiring/core.ts), the config
// file followed, the session factory, the client's transport (stdio, or HTTP), the end of
// the process wired to stopping it all, and the configured servers started. Loaded by main.ts
// once it has spawned the configured servers, so that their start overlaps this load.
import { setTimeout as delay } from 'node:timers/promises';
import type { ChildProcess } from './child/process/child-process.js';
import type { StartupGate } from './children/startup-gate.js';
import type { CliOptions } from './cli/cli-options.js';
import { messageOf } from './common/errors.js';
import type { Logger } from './common/log.js';
import { telemetry } from './common/telemetry.js';
import { ConfigSync } from './config/config-sync.js';
import type { ConfiguredServer } from './config/load-config.js';
import type { SpawnPolicy } from './policy/spawn-policy.js';
import { exitWith, installExitHandlers } from './process-exit.js';
import { serverNameProblem } from './router/tool-names.js';
import { CallLog } from './session/call-log.js';
import { startConfiguredServers } from './wiring/configured-servers.js';
import { ClusterReplica } from './wiring/cluster-replica.js';
import { StateKey } from './cluster/state-key.js';
import { connectionFromCli, createCore, type Core, type CoreOptions } from './wiring/core.js';
import { serveHttp, type HttpServing } from './wiring/serve-http.js';
import { serveStdio, type StdioServing } from './wiring/serve-stdio.js';
import { sessionFactory } from './wiring/sessions.js';

export interface ServeOptions {
  options: CliOptions;
  servers: ConfiguredServer[];
  log: Logger;
  policy: SpawnPolicy;
  /** Configured servers already spawned by main.ts, by name: their first generation's process. */
  spawned: ReadonlyMap<string, Promise<ChildProcess>>;
  version: string;
}

export async function serve({
  options,
  servers,
  log,
  policy,
  spawned,
  version,
}: ServeOptions): Promise<void> {
  const core = await createCore(coreOptions(options, log, policy));
  const configSync = followConfig(options, core, log);
  const cluster = options.cluster && new ClusterReplica(options.cluster, core);
  configSync?.adopt(servers);
  const callLog =
    options.callLog && openCallLog({ ...options.callLog, replica: options.cluster?.replica }, log);
  // The servers given at start: a client's first lists and calls wait until each has started or failed.
  let startup: StartupGate | undefined;
  const sessions = sessionFactory(core, {
    activePoolSize: options.activePoolSize,
    maxResultBytes: options.maxResultBytes,
    ...(configSync && { config: configSync }),
    ...(cluster && { cluster: cluster.link }),
    network: options.http ? 'tcp' : 'pipe',
    ...(callLog && { callLog }),
    traceContent: options.traceContent,
    version,
    startup: () => startup,
  });
  const stdio = options.http
    ? undefined
    : serveStdio(core, sessions, { maxMessageBytes: options.maxMessageBytes, startup: () => startup });
  const http = options.http
    ? await httpServing(options, core, sessions, { startup: () => startup, cluster, version })
    : undefined;
  let shuttingDown = false;
  installExitHandlers(
    log,
    async () => {
      shuttingDown = true;
      await shutDown({ core, configSync, cluster, http, stdio, callLog, policy });
    },
    {
      // Over HTTP, stdin means nothing: mcpmux runs until a signal.
      watchStdin: stdio !== undefined,
      ...(hangupOf(configSync, callLog) && { onHangup: hangupOf(configSync, callLog)! }),
      ...(stdio && { finishAnswering: stdio.finishAnswering }),
      ...(http && {
        drain: async () => {
          await cluster?.handOver();
          await drained(http, options.http!.drainMs, log, options.cluster !== undefined);
        },
      }),
    },
  );
  logServing(options, log, version, servers.length, http);
  startup = startConfiguredServers(core.children, servers, {
    logger: log,
    clientInitialized: stdio?.declared,
    spawned,
    waitForServersMs: options.waitForServersMs,
    shuttingDown: () => shuttingDown,
  });
  if (cluster && http) cluster.start(http.http.url);
  if (options.watchConfig) configSync?.watch();
}

/** Clients by URL: the HTTP server, and for a replica its part in the cluster (readiness, shared results, the hop). */
function httpServing(
  options: CliOptions,
  core: Core,
  sessions: ReturnType<typeof sessionFactory>,
  parts: { startup: () => StartupGate | undefined; cluster: ClusterReplica | undefined; version: string },
): Promise<HttpServing> {
  const { cluster } = parts;
  return serveHttp(core, sessions, {
    http: options.http!,
    expose: options.expose,
    activePoolSize: options.activePoolSize,
    maxResultBytes: options.maxResultBytes,
    maxMessageBytes: options.maxMessageBytes,
    startup: parts.startup,
    ...(cluster && {
      replica: {
        ready: () => cluster.ready(),
        sharedResults: cluster.sharedResults,
        hop: cluster.hop,
        version: parts.version,
      },
    }),
  });
}

const REPLICA_DRAIN_MS = 3000;

/** The core's settings from the command line. */
function coreOptions(options: CliOptions, log: Logger, policy: SpawnPolicy): CoreOptions {
  return {
    logger: log,
    policy,
    maxToolName: options.maxToolName,
    upstream: { declareRelayable: options.http !== undefined, followClientEra: options.http === undefined },
    connection: connectionFromCli(options, { pings: true }),
    expose: options.expose,
    searchRanker: options.searchRanker,
    code: { memoryBytes: options.codeMemoryMb * 1024 * 1024, maxToolCalls: options.codeMaxToolCalls },
    agent: options.agent,
    registries: { urls: options.registries, allowModelSecrets: options.allowModelSecrets },
    quarantine: options.quarantine,
    // A round of a 2026-07-28 call may land on another replica: they sign requestStates alike.
    ...(options.cluster && {
      replica: {
        requestStateKey: StateKey.from(options.cluster.stateKey).requestStateKey(),
        name: options.cluster.replica,
      },
    }),
  };
}

/**
 * A drain (SIGTERM over HTTP): the requests in flight are given --drain-seconds to finish. A
 * replica answers 503 for REPLICA_DRAIN_MS at least, so that its load balancer (checking /readyz
 * every second, down after two failures) has stopped sending it requests before it closes.
 */
async function drained(http: HttpServing, drainMs: number, log: Logger, replica: boolean): Promise<void> {
  const left = await http.http.drain(drainMs, replica ? REPLICA_DRAIN_MS : 0);
  if (left > 0) log.warn(`${left} request(s) still in flight after --drain-seconds end with the shutdown`);
}

/** The config file followed (add/remove from its changes, persist into it), when there is one. */
function followConfig(options: CliOptions, core: Core, log: Logger): ConfigSync | undefined {
  if (options.configPath === undefined) return undefined;
  return new ConfigSync({
    path: options.configPath,
    children: core.children,
    logger: log,
    env: process.env,
    validateName: (name) => serverNameProblem(name, options.maxToolName),
    inline: options.inline,
  });
}

/**
 * With a config, SIGHUP means "read it again", and with a call log "reopen it", as for
 * daemons; with neither it ends mcpmux.
 */
function hangupOf(
  configSync: ConfigSync | undefined,
  callLog: CallLog | undefined,
): (() => void) | undefined {
  if (!configSync && !callLog) return undefined;
  return () => {
    callLog?.reopen();
    if (configSync) void configSync.sync();
  };
}

/** Everything ended in order: what takes requests first, the children, then what they used, telemetry last. */
async function shutDown(parts: {
  core: Core;
  configSync: ConfigSync | undefined;
  cluster: ClusterReplica | undefined;
  http: HttpServing | undefined;
  stdio: StdioServing | undefined;
  callLog: CallLog | undefined;
  policy: SpawnPolicy;
}): Promise<void> {
  const { core, configSync, cluster, http, stdio, callLog, policy } = parts;
  core.idleCollection.close();
  configSync?.close();
  await http?.close();
  // No change of the cluster's set is followed once the children stop (this replica's end is not the cluster's).
  await cluster?.close();
  core.inputRelay.close();
  await core.agents?.runs.close();
  await http?.perRequest.results.close();
  await core.children.close();
  await policy.close();
  await stdio?.close();
  await core.code?.close();
  await core.index.close();
  callLog?.close();
  // What the exporters hold goes out last, with the spans of the end itself.
  // Bounded: an unreachable collector must not hold the end up (its export times out at 10 s).
  await Promise.race([telemetry.shutdown().catch(() => {}), delay(3000, undefined, { ref: false })]);
}

function logServing(
  options: CliOptions,
  log: Logger,
  version: string,
  servers: number,
  http: HttpServing | undefined,
): void {
  if (!http) {
    log.info(`mcpmux ${version} serving MCP on stdio${servers ? `; starting ${servers} server(s)` : ''}`);
    return;
  }
  log.info(
    `mcpmux ${version} serving MCP over HTTP at ${http.http.url}${options.http!.authToken ? ' (bearer token required)' : ''}`,
  );
  if (options.http!.authTokenFrom === 'flag')
    log.warn(
      '--auth-token puts the token on the command line, where every user of this machine can read it (ps): ' +
        'give it with --auth-token-file FILE or MCPMUX_AUTH_TOKEN instead',
    );
}

/** The call log's file, opened before anything is served: one that cannot be written stops mcpmux. */
function openCallLog(
  options: { path: string; content: boolean; replica: string | undefined },
  log: Logger,
): CallLog {
  try {
    return new CallLog({ ...options, logger: log });
  } catch (error) {
    return exitWith(2, `mcpmux: --call-log ${options.path} cannot be written: ${messageOf(error)}`);
  }
}
