#!/usr/bin/env node
// The only impure entry: reads argv and env, serves MCP on stdio, and owns the process's
// fate (signals, stdin EOF, fatal errors, exit codes). Whatever way mcpmux ends, every
// child process group it started is killed first.
import { createRequire } from 'node:module';
import { killAllProcessGroupsSync, setProcessGroupObserver } from './child/child-process.js';
import { startOrphanReaper } from './child/orphan-reaper.js';
import { runOneShot } from './cli/one-shot.js';
import { CliError, helpText, parseCli, type CliOptions } from './cli/parse-cli.js';
import { ToolIndex } from './catalog/tool-index.js';
import { ConfigSync } from './config/config-sync.js';
import {
  ConfigError,
  loadConfigFile,
  loadConfigSettings,
  type ConfiguredServer,
} from './config/load-config.js';
import { messageOf } from './errors.js';
import { createLogger, type Logger } from './log.js';
import { SpawnPolicy } from './policy/spawn-policy.js';
import {
  MuxServer,
  newActivationPool,
  newResultStore,
  ownToolNames,
  type MuxServerOptions,
  type PerRequestState,
} from './proxy/mux-server.js';
import { ListChangePublisher } from './proxy/list-change-publisher.js';
import { InputRelay } from './proxy/input-relay.js';
import { watchResources } from './proxy/resource-watch.js';
import { UpstreamLink } from './proxy/upstream-link.js';
import { Registry } from './registry/registry.js';
import { serverNameProblem } from './router/tool-names.js';
import { StartupGate } from './registry/startup-gate.js';
import { CatalogRouter } from './router/catalog-router.js';
import { serveMuxOverStdio } from './transport/stdio-serving.js';

const EXIT_USAGE = 2;
/** Longest a graceful shutdown may take before the remaining groups are SIGKILLed. */
const SHUTDOWN_DEADLINE_MS = 10_000;
const version: string = createRequire(import.meta.url)('../package.json').version;

async function main(): Promise<void> {
  const options = readOptions();
  const servers = await readServers(options);
  const log = createLogger({ level: options.logLevel });
  if (options.command !== 'serve') return runOneShotCommand(options, servers, log);
  // The exit hooks below cover every end but SIGKILL; the reaper covers that one too.
  setProcessGroupObserver(
    startOrphanReaper((error) =>
      log.warn(`the orphan reaper failed (${messageOf(error)}); children may outlive a SIGKILL of mcpmux`),
    ),
  );
  const router = new CatalogRouter({
    maxToolName: options.maxToolName,
    reservedToolNames: ownToolNames(),
    logger: log,
  });
  // Over HTTP, children are told what mcpmux can relay (clients come and go); on stdio, what the client declared.
  const upstream = new UpstreamLink({ router, logger: log, declareRelayable: options.http !== undefined });
  const policy = spawnPolicy(options, log);
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
  const index = new ToolIndex({ router });
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
  // A 2026-07-28 client's rounds may reach different servers (one per HTTP request): one relay for all.
  const inputRelay = new InputRelay();
  // The servers given at start: a client's first lists and calls wait until each has started or failed.
  let startup: StartupGate | undefined;
  const sessionOptions = (era: 'legacy' | 'modern'): MuxServerOptions => ({
    era,
    inputRelay,
    ...(startup && { startup }),
    registry,
    router,
    upstream,
    policy,
    index,
    expose: options.expose,
    ...(code && { code }),
    activePoolSize: options.activePoolSize,
    maxResultBytes: options.maxResultBytes,
    ...(configSync && { config: configSync }),
    logger: log,
    version,
  });
  const newSession = (era: 'legacy' | 'modern' = 'legacy') => new MuxServer(sessionOptions(era));
  // With a config, SIGHUP means "read it again", as for daemons; without one it ends mcpmux.
  const onHangup = configSync && (() => void configSync.sync());
  // A modern (2026-07-28) HTTP client has no session: each of its requests gets a server of
  // its own, and what must outlive a request (kept results, the search pool) is shared.
  let publisher: ListChangePublisher | undefined;
  const perRequest: PerRequestState = {
    // Shared by clients with no session, a handle is the only key: 128 random bits.
    results: newResultStore(options.maxResultBytes, 16),
    pool: newActivationPool(options.expose, options.activePoolSize),
    publish: (method) => publisher?.changed(method),
  };
  // Updates of the resources modern HTTP clients listen for go out on their listen streams.
  let updateListeners: ((uri: string) => void) | undefined;
  const deliverUpdate = async (n: { params?: Record<string, unknown> | undefined }): Promise<void> =>
    updateListeners?.(String(n.params?.['uri']));
  // One client on stdio (in the era it opens with), or a session per client over HTTP.
  const stdio = options.http
    ? undefined
    : serveMuxOverStdio({ newSession, logger: log, maxMessageBytes: options.maxMessageBytes });
  const http = options.http
    ? // Loaded only when serving HTTP: the HTTP adapter and its framework cost a stdio session memory for nothing.
      await (
        await import('./transport/http-server.js')
      ).McpHttpServer.listen({
        ...options.http,
        maxBodyBytes: options.maxMessageBytes,
        createSession: () => newSession(),
        createRequestServer: () => new MuxServer({ ...sessionOptions('modern'), perRequest }).server,
        onListen: (uris) => watchResources({ registry, router, upstream, logger: log }, uris, deliverUpdate),
        logger: log,
      }).catch((error: unknown) =>
        exitWith(
          1,
          `mcpmux: cannot serve HTTP on ${options.http!.host}:${options.http!.port}: ${messageOf(error)}`,
        ),
      )
    : undefined;
  publisher = http && new ListChangePublisher({ registry, publish: (method) => http.publish(method) });
  updateListeners = http && ((uri) => http.resourceUpdated(uri));
  installExitHandlers(
    log,
    async () => {
      configSync?.close();
      publisher?.close();
      await http?.close();
      inputRelay.close();
      await perRequest.results.close();
      await registry.close();
      await stdio?.close();
      await code?.close();
    },
    // Over HTTP, stdin means nothing: mcpmux runs until a signal.
    { watchStdin: stdio !== undefined, ...(onHangup && { onHangup }) },
  );
  if (stdio) {
    log.info(
      `mcpmux ${version} serving MCP on stdio${servers.length ? `; starting ${servers.length} server(s)` : ''}`,
    );
  } else {
    log.info(
      `mcpmux ${version} serving MCP over HTTP at ${http!.url}${options.http!.authToken ? ' (bearer token required)' : ''}`,
    );
  }
  const clientInitialized = stdio?.ready;
  // Configured servers are registered and spawned now, in the background (an npx download
  // overlaps the client's handshake). On stdio each is spoken to once the client has opened
  // (after initialize, it is told what the client can do); over HTTP, clients come and go, so
  // at once. The opening is answered at once; the first lists wait for the servers (the
  // startup gate); one server that fails is reported (log, list_servers) without stopping others.
  startup = new StartupGate(
    servers.map(({ name, spec }) =>
      registry
        .add(name, spec, {
          keepOnFailure: true,
          ...(clientInitialized && { handshakeAfter: clientInitialized }),
        })
        .then(
          ({ tools }) => log.info(`server '${name}' is running with ${tools.length} tool(s)`),
          (error) => log.error(`server '${name}' failed to start: ${messageOf(error)}`),
        ),
    ),
  );
  if (options.watchConfig) configSync?.watch();
}

/** inspect and call: no MCP on stdout, just their output; children are stopped before exit. */
async function runOneShotCommand(
  options: CliOptions,
  servers: ConfiguredServer[],
  log: Logger,
): Promise<void> {
  if (servers.length === 0)
    exitWith(
      EXIT_USAGE,
      `mcpmux ${options.command}: give the servers with --config FILE or -- NAME CMD [ARGS…]`,
    );
  setProcessGroupObserver(
    startOrphanReaper((error) => log.warn(`the orphan reaper failed: ${messageOf(error)}`)),
  );
  installExitHandlers(log, async () => {}, { watchStdin: false });
  const policy = spawnPolicy(options, log);
  const router = new CatalogRouter({ maxToolName: options.maxToolName, logger: log });
  const status = await runOneShot({
    options,
    servers,
    policy,
    router,
    logger: log,
    out: (text) => process.stdout.write(text + '\n'),
    err: (text) => process.stderr.write(text + '\n'),
  });
  process.exitCode = status;
}

function spawnPolicy(options: CliOptions, log: Logger): SpawnPolicy {
  return new SpawnPolicy({
    allowCommands: options.allowCommands,
    runtimeAdd: options.runtimeAdd,
    inheritEnv: options.inheritEnv,
    passEnv: options.passEnv,
    ...(options.root !== undefined && { root: options.root }),
    logger: log,
  });
}

function readOptions(): CliOptions {
  try {
    const options = parseCli(process.argv.slice(2), process.env);
    if (options.help) exitWith(0, helpText(version), process.stdout);
    if (options.version) exitWith(0, version, process.stdout);
    return options;
  } catch (error) {
    if (error instanceof CliError)
      exitWith(EXIT_USAGE, `mcpmux: ${error.message}\nRun 'mcpmux --help' for usage.`);
    throw error;
  }
}

async function readServers(options: CliOptions): Promise<ConfiguredServer[]> {
  const validate = (name: string) => serverNameProblem(name, options.maxToolName);
  let configured: ConfiguredServer[] = [];
  if (options.configPath !== undefined) {
    try {
      configured = await loadConfigFile(options.configPath, process.env, validate);
      const settings = await loadConfigSettings(options.configPath);
      if (!options.exposeGiven && settings.expose) options.expose = settings.expose;
    } catch (error) {
      if (error instanceof ConfigError) exitWith(EXIT_USAGE, `mcpmux: ${error.message}`);
      throw error;
    }
  }
  const all = [...configured, ...options.inline];
  const names = new Set<string>();
  for (const { name } of all) {
    if (names.has(name))
      exitWith(EXIT_USAGE, `mcpmux: server '${name}' is defined both in the config file and inline`);
    names.add(name);
  }
  return all;
}

/** However mcpmux ends (stdin EOF when serving, a signal, a fatal error, exit), its children end first. */
function installExitHandlers(
  log: Logger,
  close: () => Promise<void>,
  { watchStdin = true, onHangup }: { watchStdin?: boolean; onHangup?: () => void } = {},
): void {
  let shuttingDown = false;
  const shutdown = (why: string, code: number) => {
    if (shuttingDown) {
      // A second signal while shutting down: stop waiting.
      killAllProcessGroupsSync();
      process.exit(code);
    }
    shuttingDown = true;
    log.info(`shutting down (${why})`);
    const deadline = setTimeout(() => {
      log.warn('shutdown took too long; killing the remaining servers');
      killAllProcessGroupsSync();
      process.exit(code);
    }, SHUTDOWN_DEADLINE_MS);
    close()
      .catch((error) => log.error(`error while shutting down: ${messageOf(error)}`))
      .finally(() => {
        clearTimeout(deadline);
        killAllProcessGroupsSync();
        process.exit(code);
      });
  };
  if (watchStdin) {
    // The client closing our stdin is the normal end of a stdio session.
    process.stdin.once('end', () => shutdown('stdin closed', 0));
    process.stdin.once('close', () => shutdown('stdin closed', 0));
  }
  process.stdout.on('error', () => shutdown('stdout closed', 0));
  for (const [signal, number] of [
    ['SIGINT', 2],
    ['SIGTERM', 15],
    ['SIGHUP', 1],
  ] as const) {
    if (signal === 'SIGHUP' && onHangup) process.on(signal, () => onHangup());
    else process.on(signal, () => shutdown(signal, 128 + number));
  }
  const fatal = (kind: string) => (error: unknown) => {
    log.error(`${kind}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killAllProcessGroupsSync();
    process.exit(1);
  };
  process.on('uncaughtException', fatal('uncaught exception'));
  process.on('unhandledRejection', fatal('unhandled rejection'));
  // Last line of defence: whatever path leads to exit, no group outlives us.
  process.on('exit', () => killAllProcessGroupsSync());
}

function exitWith(code: number, text: string, stream: NodeJS.WriteStream = process.stderr): never {
  stream.write(text + '\n');
  process.exit(code);
}

main().catch((error) => {
  process.stderr.write(
    `mcpmux: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  killAllProcessGroupsSync();
  process.exit(1);
});
