// Serving MCP: the registry of children, the client's sessions (stdio, or HTTP), the
// configured servers started, and the process's end wired to stopping them all. Loaded by
// main.ts once it has spawned the configured servers, so that their start overlaps this load.
import type { Era } from './protocol/era.js';
import type { ChildProcess } from './child/process/child-process.js';
import type { CliOptions } from './cli/cli-options.js';
import { ToolIndex } from './search/tool-index.js';
import { toolRanker } from './search/semantic/ranker-choice.js';
import { ConfigSync } from './config/config-sync.js';
import type { ConfiguredServer } from './config/load-config.js';
import { messageOf } from './common/errors.js';
import type { Logger } from './common/log.js';
import type { SpawnPolicy } from './policy/spawn-policy.js';
import { IdleCollection } from './common/idle-collection.js';
import { exitWith, installExitHandlers } from './process-exit.js';
import { MuxServer, type MuxServerOptions, type PerRequestState } from './session/mux-server.js';
import { newActivationPool, ownToolNames } from './session/exposure.js';
import { formatBytes } from './common/byte-sizes.js';
import { newResultStore } from './results/result-store.js';
import { ListChangePublisher } from './session/list-changes/list-change-publisher.js';
import { InputRelay } from './session/relay/input-relay.js';
import { CallLog } from './session/call-log.js';
import { watchResources } from './session/list-changes/resource-watch.js';
import { UpstreamLink } from './session/relay/upstream-link.js';
import { Registry } from './children/registry.js';
import { serverNameProblem } from './router/tool-names.js';
import { StartupGate } from './children/startup-gate.js';
import { CatalogRouter } from './router/catalog-router.js';
import { serveMuxOverStdio } from './transport/stdio-serving.js';
import { sessionInstructions } from './session/session-instructions.js';
import { AgentRuns } from './agent/agent-runs.js';
import { ModelChoice } from './agent/model-choice.js';
import { defaultAgentDir } from './agent/transcript.js';
import { cacheDir } from './common/state-dir.js';
import { telemetry } from './common/telemetry.js';
import { setTimeout as delay } from 'node:timers/promises';
import { KeptSecrets } from './secrets/kept-secrets.js';
import { McpRegistries } from './mcp-registry/mcp-registries.js';

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
  const router = new CatalogRouter({
    maxToolName: options.maxToolName,
    reservedToolNames: ownToolNames(),
    logger: log,
  });
  // Over HTTP, children are told what mcpmux can relay (clients come and go); on stdio, what the client declared.
  const upstream = new UpstreamLink({
    router,
    logger: log,
    declareRelayable: options.http !== undefined,
    followClientEra: options.http === undefined,
  });
  const registry = new Registry({
    logger: log,
    validateName: (name) => serverNameProblem(name, options.maxToolName),
    connection: {
      spawnPolicy: policy,
      startupTimeoutMs: options.startupTimeoutMs,
      callTimeoutMs: options.callTimeoutMs,
      pingIntervalMs: options.pingIntervalMs,
      maxMessageBytes: options.maxMessageBytes,
      upstream,
      ...(options.clientMetadataUrl !== undefined && { clientMetadataUrl: options.clientMetadataUrl }),
    },
  });
  const configSync =
    options.configPath === undefined
      ? undefined
      : new ConfigSync({
          path: options.configPath,
          registry,
          logger: log,
          env: process.env,
          validateName: (name) => serverNameProblem(name, options.maxToolName),
          inline: options.inline,
        });
  configSync?.adopt(servers);
  telemetry.observe('mcpmux.servers', () => {
    const byStatus = new Map<string, number>();
    for (const { status } of registry.list()) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    return [...byStatus].map(([status, value]) => ({
      value,
      attributes: { 'mcpmux.server.status': status },
    }));
  });
  const callLog = options.callLog && openCallLog(options.callLog, log);
  const index = new ToolIndex({ router, ranker: toolRanker(options.searchRanker, log) });
  // find_servers ranks registry entries as search_tools ranks tools, with a ranker of its own.
  const registries =
    options.registries.length === 0
      ? undefined
      : {
          registries: new McpRegistries({
            urls: options.registries,
            dir: cacheDir('registries'),
            ranker: toolRanker(options.searchRanker, log),
          }),
          kept: new KeptSecrets(),
          allowModelSecrets: options.allowModelSecrets,
        };
  // Loaded only for --expose code: esbuild, json-schema-to-typescript and QuickJS cost every other start time.
  const code =
    options.expose === 'code'
      ? new (await import('./code/code-mode.js')).CodeMode({
          logger: log,
          memoryBytes: options.codeMemoryMb * 1024 * 1024,
          maxToolCalls: options.codeMaxToolCalls,
        })
      : undefined;
  code?.follow(registry, log);
  // Where search is how tools are found, the ranker prepares as servers come (the model embeds them).
  if (options.expose === 'search')
    registry.onChange((change) => {
      if (change.kinds.includes('tools')) index.prepare(registry.snapshot);
    });
  // Start-up, a burst of servers (a config's, or an agent's adds), of lists or of HTTP
  // sessions leave the heap at its burst size: given back once quiet.
  // The heap is read after each collection only when the debug line that shows it is written.
  const idleCollection = new IdleCollection(
    log.enabled('debug')
      ? {
          onCollected: ({ usedBytes, totalBytes }) =>
            log.debug(`idle collection: ${formatBytes(usedBytes)} live of a ${formatBytes(totalBytes)} heap`),
        }
      : {},
  );
  idleCollection.activity();
  registry.onChange(() => idleCollection.activity());
  // The agent tool's runs outlive the request (and the session) that started them.
  const agent = options.agent;
  const agents = {
    runs: new AgentRuns({
      dir: agent.dir ?? defaultAgentDir(),
      logger: log,
      maxToolCalls: agent.maxToolCalls,
      timeoutMs: agent.timeoutMs,
      concurrency: agent.concurrency,
    }),
    models: new ModelChoice({
      provider: agent.provider,
      ...(agent.apiKey && {
        anthropic: { apiKey: agent.apiKey, baseURL: agent.baseUrl, model: agent.model },
      }),
    }),
  };
  // A 2026-07-28 client's rounds may reach different servers (one per HTTP request): one relay for all.
  const inputRelay = new InputRelay();
  // The servers given at start: a client's first lists and calls wait until each has started or failed.
  let startup: StartupGate | undefined;
  const sessionOptions = (era: Era): MuxServerOptions => ({
    onListed: () => idleCollection.activity(),
    era,
    inputRelay,
    ...(startup && { startup }),
    registry,
    router,
    upstream,
    policy,
    index,
    agents,
    expose: options.expose,
    ...(code && { code }),
    activePoolSize: options.activePoolSize,
    maxResultBytes: options.maxResultBytes,
    ...(configSync && { config: configSync }),
    ...(registries && { registries }),
    network: options.http ? 'tcp' : 'pipe',
    ...(callLog && { callLog }),
    traceContent: options.traceContent,
    logger: log,
    version,
  });
  const newSession = (era: Era = 'legacy') => new MuxServer(sessionOptions(era));
  // With a config, SIGHUP means "read it again", and with a call log "reopen it", as for
  // daemons; with neither it ends mcpmux.
  const onHangup =
    (configSync || callLog) &&
    (() => {
      callLog?.reopen();
      if (configSync) void configSync.sync();
    });
  // A modern (2026-07-28) HTTP client has no session: each of its requests gets a server of
  // its own, and what must outlive a request (kept results, the search pool) is shared.
  let publisher: ListChangePublisher | undefined;
  const perRequest: PerRequestState = {
    // Shared by clients with no session, a handle is the only key: 128 random bits.
    results: newResultStore(options.maxResultBytes, 16),
    pool: newActivationPool(options.expose, options.activePoolSize),
    publish: (method) => publisher?.changed(method),
    flush: async () => publisher?.flush(),
  };
  // Updates of the resources modern HTTP clients listen for go out on their listen streams.
  let updateListeners: ((uri: string) => void) | undefined;
  const deliverUpdate = async (n: { params?: Record<string, unknown> | undefined }): Promise<void> =>
    updateListeners?.(String(n.params?.['uri']));
  // One client on stdio (in the era it opens with), or a session per client over HTTP.
  const stdio = options.http
    ? undefined
    : serveMuxOverStdio({
        newSession,
        logger: log,
        maxMessageBytes: options.maxMessageBytes,
        opening: {
          // Not held for a server that waits on the client (one asking for its roots as it starts).
          wait: () => {
            const opening = startup?.openingWait();
            return opening && Promise.race([opening, upstream.clientAwaited]);
          },
          instructions: () => sessionInstructions(registry.snapshot),
        },
        onRequestCapabilities: (capabilities) => upstream.declaredInRequest(capabilities),
      });
  const http = options.http
    ? // Loaded only when serving HTTP: the HTTP adapter and its framework cost a stdio session memory for nothing.
      await (
        await import('./transport/http-server.js')
      ).McpHttpServer.listen({
        ...options.http,
        maxBodyBytes: options.maxMessageBytes,
        createSession: () => newSession(),
        // A session opened while the configured servers start is given their instructions too.
        beforeSession: () => startup?.openingWait(),
        // A wave of sessions that ended leaves their garbage in a heap at its burst size.
        onSessionEnd: () => idleCollection.activity(),
        createRequestServer: () => new MuxServer({ ...sessionOptions('modern'), perRequest }).server,
        onListen: (uris) => watchResources({ registry, router, upstream, logger: log }, uris, deliverUpdate),
        toolInputSchema: (name) => router.toolRoute(registry.snapshot, name)?.item.inputSchema,
        // Ready once the configured servers have each started or failed, as the first answers wait for.
        ready: () => startup !== undefined && !startup.wait(),
        logger: log,
      }).catch((error: unknown) =>
        exitWith(
          1,
          `mcpmux: cannot serve HTTP on ${options.http!.host}:${options.http!.port}: ${messageOf(error)}`,
        ),
      )
    : undefined;
  // With --expose search or code, a modern client's tools are mcpmux's own and the shared
  // pool's: a request server of the publisher's own tells whether a change touched them.
  const toolsView =
    http && (options.expose ?? 'all') !== 'all'
      ? new MuxServer({ ...sessionOptions('modern'), perRequest })
      : undefined;
  publisher =
    http &&
    new ListChangePublisher({
      registry,
      publish: (method) => http.publish(method),
      ...(toolsView && { toolsChangedSinceAsked: () => toolsView.toolsChangedSinceLastList() }),
    });
  updateListeners = http && ((uri) => http.resourceUpdated(uri));
  let shuttingDown = false;
  installExitHandlers(
    log,
    async () => {
      shuttingDown = true;
      idleCollection.close();
      configSync?.close();
      publisher?.close();
      await toolsView?.close();
      await http?.close();
      inputRelay.close();
      await agents.runs.close();
      await perRequest.results.close();
      await registry.close();
      await stdio?.close();
      await code?.close();
      await index.close();
      callLog?.close();
      // What the exporters hold goes out last, with the spans of the end itself.
      // Bounded: an unreachable collector must not hold the end up (its export times out at 10 s).
      await Promise.race([telemetry.shutdown().catch(() => {}), delay(3000, undefined, { ref: false })]);
    },
    // Over HTTP, stdin means nothing: mcpmux runs until a signal.
    {
      watchStdin: stdio !== undefined,
      ...(onHangup && { onHangup }),
      ...(stdio && { finishAnswering: stdio.finishAnswering }),
      ...(http && {
        drain: async () => {
          const left = await http.drain(options.http!.drainMs);
          if (left > 0)
            log.warn(`${left} request(s) still in flight after --drain-seconds end with the shutdown`);
        },
      }),
    },
  );
  if (stdio) {
    log.info(
      `mcpmux ${version} serving MCP on stdio${servers.length ? `; starting ${servers.length} server(s)` : ''}`,
    );
  } else {
    log.info(
      `mcpmux ${version} serving MCP over HTTP at ${http!.url}${options.http!.authToken ? ' (bearer token required)' : ''}`,
    );
    if (options.http!.authTokenFrom === 'flag')
      log.warn(
        '--auth-token puts the token on the command line, where every user of this machine can read it (ps): ' +
          'give it with --auth-token-file FILE or MCPMUX_AUTH_TOKEN instead',
      );
  }
  const clientInitialized = stdio?.declared;
  // Configured servers are registered and spawned now, in the background (an npx download
  // overlaps the client's handshake). On stdio each is spoken to once the client has said what
  // it can do (in initialize, whose answer waits for them a few seconds, so that it carries
  // their instructions); over HTTP, clients come and go, so at once. The first lists wait for
  // the servers (the startup gate); one server that fails is reported (log, list_servers)
  // without stopping others, and one that waits for a person to sign in holds nothing back
  // (a person may take minutes, a client's list times out): list_changed brings its tools.
  startup = new StartupGate(
    servers.map(({ name, spec }) =>
      registry
        .add(name, spec, {
          keepOnFailure: true,
          returnWhenSigningIn: true,
          ...(clientInitialized && { handshakeAfter: clientInitialized }),
          ...(spawned.has(name) && { spawned: spawned.get(name)! }),
        })
        .then(
          ({ status, tools }) =>
            log.info(
              status.status === 'needs_auth'
                ? `server '${name}' waits for a sign-in (list_servers shows where); its tools come once it is done`
                : `server '${name}' is running with ${tools.length} tool(s)`,
            ),
          // One that mcpmux's own shutdown cut short did not fail.
          (error) =>
            (shuttingDown ? log.debug : log.error)(`server '${name}' failed to start: ${messageOf(error)}`),
        ),
    ),
    options.waitForServersMs,
  );
  if (options.watchConfig) configSync?.watch();
}

/** The call log's file, opened before anything is served: one that cannot be written stops mcpmux. */
function openCallLog(options: { path: string; content: boolean }, log: Logger): CallLog {
  try {
    return new CallLog({ ...options, logger: log });
  } catch (error) {
    return exitWith(2, `mcpmux: --call-log ${options.path} cannot be written: ${messageOf(error)}`);
  }
}
