// The command line: flags via node:util parseArgs, then checked with zod; servers given
// inline after `--` (inline-servers.ts). Every problem is a CliError, which main.ts reports
// on stderr with exit status 2 before anything is spawned.
import { QUARANTINE_MODES } from '../trust/quarantine.js';
import { SANDBOX_MODES } from '../child/sandbox-setting.js';
import { parseArgs } from 'node:util';
import { OPTIONS, nearest, nearestOption } from './cli-flags.js';
import { z } from 'zod';
import { DEFAULT_ANTHROPIC_MODEL } from '../agent/anthropic-model.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../child/child-types.js';
import { LOG_LEVELS } from '../common/log.js';
import { DEFAULT_MAX_TOOL_NAME } from '../router/tool-names.js';
import { OFFICIAL_REGISTRY } from '../mcp-registry/mcp-registries.js';
import { CliError, type AgentOptions, type CliOptions } from './cli-options.js';
import { parseHttp } from './http-flags.js';
import { parseCluster } from './cluster-flags.js';
import { parseInlineServers } from './inline-servers.js';

const flagsSchema = z.object({
  logLevel: z.enum(LOG_LEVELS, { error: `--log-level must be one of ${LOG_LEVELS.join(', ')}` }),
  maxToolName: z.coerce
    .number({ error: '--max-tool-name must be a whole number' })
    .int('--max-tool-name must be a whole number')
    .min(16, '--max-tool-name must be at least 16')
    .max(128, '--max-tool-name must be at most 128'),
  startupTimeout: z.coerce
    .number({ error: '--startup-timeout must be a number of seconds' })
    .positive('--startup-timeout must be positive')
    .max(3600),
  waitForServers: z.coerce
    .number({ error: '--wait-for-servers must be a number of seconds' })
    .min(0, '--wait-for-servers must be 0 or more')
    .max(3600)
    .optional(),
  callTimeout: z.coerce
    .number({ error: '--call-timeout must be a number of seconds' })
    .positive('--call-timeout must be positive')
    .max(86_400),
  pingInterval: z.coerce
    .number({ error: '--ping-interval must be a number of seconds' })
    .min(0, '--ping-interval must be 0 or more')
    .max(86_400),
  expose: z.enum(['all', 'search', 'code', 'agent'], {
    error: '--expose must be all, search, code or agent',
  }),
  quarantine: z.enum(QUARANTINE_MODES, {
    error: '--quarantine must be strangers, all-added or all',
  }),
  sandbox: z.enum(SANDBOX_MODES, { error: '--sandbox must be added, all or off (--sandbox alone: added)' }),
  searchRanker: z.enum(['auto', 'bm25', 'semantic'], {
    error: '--search-ranker must be auto, bm25 or semantic',
  }),
  maxResultBytes: z.coerce
    .number({ error: '--max-result-bytes must be a whole number' })
    .int('--max-result-bytes must be a whole number')
    .refine((n) => n === 0 || n >= 1024, '--max-result-bytes must be 0 (never cut) or at least 1024'),
  codeMemory: z.coerce
    .number({ error: '--code-memory must be a whole number of MB' })
    .int('--code-memory must be a whole number of MB')
    .min(8, '--code-memory must be at least 8 (MB)')
    .max(4096, '--code-memory must be at most 4096 (MB)'),
  codeMaxCalls: z.coerce
    .number({ error: '--code-max-calls must be a whole number' })
    .int('--code-max-calls must be a whole number')
    .min(1, '--code-max-calls must be at least 1')
    .max(100_000),
  activePool: z.coerce
    .number({ error: '--active-pool must be a whole number' })
    .int('--active-pool must be a whole number')
    .min(1, '--active-pool must be at least 1')
    .max(500),
  maxMessageBytes: z.coerce
    .number({ error: '--max-message-bytes must be a whole number' })
    .int('--max-message-bytes must be a whole number')
    .min(4096, '--max-message-bytes must be at least 4096')
    .max(1024 * 1024 * 1024, '--max-message-bytes must be at most 1073741824 (1 GiB)'),
  clientMetadataUrl: z
    .url({
      protocol: /^https?$/,
      error: '--client-metadata-url must be an http(s) URL, like https://example.com/mcpmux-client.json',
    })
    .optional(),
});

const agentSchema = z.object({
  provider: z.enum(['auto', 'sampling', 'anthropic'], {
    error: '--agent-provider must be auto, sampling or anthropic',
  }),
  maxToolCalls: z.coerce
    .number({ error: '--agent-max-tool-calls must be a whole number' })
    .int('--agent-max-tool-calls must be a whole number')
    .min(1, '--agent-max-tool-calls must be at least 1')
    .max(100_000),
  timeout: z.coerce
    .number({ error: '--agent-timeout must be a number of seconds' })
    .positive('--agent-timeout must be positive')
    .max(7 * 86_400, '--agent-timeout must be at most 604800 (a week)'),
  concurrency: z.coerce
    .number({ error: '--agent-concurrency must be a whole number' })
    .int('--agent-concurrency must be a whole number')
    .min(1, '--agent-concurrency must be at least 1')
    .max(1000),
  baseUrl: z.url({ error: '--agent-base-url must be a URL, like https://gateway.example.com' }).optional(),
});

const SUBCOMMANDS = ['inspect', 'call', 'auth'] as const;
/** Every subcommand, those main.ts runs before this parser included. */
const ALL_SUBCOMMANDS = [...SUBCOMMANDS, 'import', 'install', 'secrets', 'help'];

type FlagValues = Record<string, string | boolean | string[] | undefined>;
type Command = CliOptions['command'];

export function parseCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliOptions {
  const command = (SUBCOMMANDS as readonly string[]).includes(argv[0] ?? '')
    ? (argv[0] as 'inspect' | 'call' | 'auth')
    : 'serve';
  const rest = command === 'serve' ? argv : argv.slice(1);
  const split = rest.indexOf('--');
  const { values, positionals } = readFlags(
    command,
    withSandboxValue(split === -1 ? [...rest] : rest.slice(0, split)),
  );
  const {
    logLevel,
    maxToolName,
    startupTimeout,
    waitForServers,
    callTimeout,
    pingInterval,
    expose,
    quarantine,
    sandbox,
    activePool,
    searchRanker,
    maxResultBytes,
    codeMemory,
    codeMaxCalls,
    maxMessageBytes,
    clientMetadataUrl,
  } = checkedFlags(command, values, env);
  const options: CliOptions = {
    command,
    json: values['json'] === true,
    watchConfig: values['watch-config'] === true,
    expose,
    exposeGiven: values['expose'] !== undefined,
    activePoolSize: activePool,
    searchRanker,
    maxResultBytes,
    codeMemoryMb: codeMemory,
    codeMaxToolCalls: codeMaxCalls,
    maxMessageBytes,
    help: values['help'] === true,
    version: values['version'] === true,
    inline: split === -1 ? [] : parseInlineServers(rest.slice(split + 1), maxToolName),
    logLevel,
    maxToolName,
    startupTimeoutMs: startupTimeout * 1000,
    ...(waitForServers !== undefined && { waitForServersMs: waitForServers * 1000 }),
    callTimeoutMs: callTimeout * 1000,
    pingIntervalMs: pingInterval * 1000,
    allowCommands: (values['allow-command'] as string[] | undefined) ?? [],
    allowEnv: (values['allow-env'] as string[] | undefined) ?? [],
    runtimeAdd: values['no-runtime-add'] !== true,
    quarantine,
    quarantineGiven: values['quarantine'] !== undefined,
    sandbox,
    ...registriesOf(values),
    allowModelSecrets: values['allow-model-secrets'] === true,
    traceContent: values['trace-content'] === true,
    inheritEnv: values['inherit-env'] === true,
    passEnv: (values['pass-env'] as string[] | undefined) ?? [],
    agent: parseAgent(values, env),
    ...(clientMetadataUrl !== undefined && { clientMetadataUrl }),
  };
  addFiles(options, values);
  addSubcommand(options, values, positionals);
  const http = parseHttp(values, env);
  if (http) {
    if (command !== 'serve') throw new CliError(`--http goes with serving, not with ${command}`);
    options.http = http;
  }
  const cluster = parseCluster(values, env, http);
  if (cluster) options.cluster = cluster;
  return options;
}

/**
 * `--sandbox` may stand alone (the servers added at run time) or take a mode; parseArgs knows
 * no flag with an optional value, so a bare one is given its default here.
 */
function withSandboxValue(args: string[]): string[] {
  return args.map((arg, i) =>
    arg === '--sandbox' && !(SANDBOX_MODES as readonly string[]).includes(args[i + 1] ?? '')
      ? '--sandbox=added'
      : arg,
  );
}

/** The flags as node's parseArgs reads them; an unknown one is told the nearest known. */
function readFlags(command: Command, args: string[]): { values: FlagValues; positionals: string[] } {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: command === 'call' || command === 'auth',
      options: OPTIONS,
    });
  } catch (error) {
    const message = (error as Error).message.replace(
      /\. To specify a positional argument starting with a '-'.*$/s,
      '',
    );
    const unknown = /^Unknown option '--([^']+)'/.exec(message)?.[1];
    const near = unknown === undefined ? undefined : nearestOption(unknown);
    if (near) throw new CliError(`${message}; did you mean '--${near}'?`);
    // A word where serving takes none: most likely a subcommand, mistyped.
    const word = command === 'serve' ? /^Unexpected argument '([^']+)'/.exec(message)?.[1] : undefined;
    if (word !== undefined) {
      const meant = nearest(word, ALL_SUBCOMMANDS);
      throw new CliError(
        meant
          ? `'${word}' is not a subcommand; did you mean 'mcpmux ${meant}'?`
          : `'${word}' is not a subcommand (${ALL_SUBCOMMANDS.join(', ')}); servers go after --: mcpmux -- NAME CMD [ARGS…]`,
      );
    }
    throw new CliError(message);
  }
}

/** The flags that take a value, checked and with their defaults. */
function checkedFlags(
  command: Command,
  values: FlagValues,
  env: Readonly<Record<string, string | undefined>>,
): z.infer<typeof flagsSchema> {
  const flags = flagsSchema.safeParse({
    // One-shot commands print their result on stdout; only problems belong on stderr.
    logLevel: values['log-level'] ?? env['MCPMUX_LOG_LEVEL'] ?? (command === 'serve' ? 'info' : 'warn'),
    maxToolName: values['max-tool-name'] ?? DEFAULT_MAX_TOOL_NAME,
    startupTimeout: values['startup-timeout'] ?? 60,
    waitForServers: values['wait-for-servers'],
    callTimeout: values['call-timeout'] ?? DEFAULT_CALL_TIMEOUT_MS / 1000,
    pingInterval: values['ping-interval'] ?? 30,
    expose: values['expose'] ?? 'all',
    quarantine: values['quarantine'] ?? 'strangers',
    sandbox: values['sandbox'] ?? 'off',
    activePool: values['active-pool'] ?? 15,
    // Meaning as a view of a task's servers where the build has the table: it wins or ties
    // every held-out half (docs/search.md).
    searchRanker: values['search-ranker'] ?? 'auto',
    maxResultBytes: values['max-result-bytes'] ?? 16_384,
    codeMemory: values['code-memory'] ?? 128,
    codeMaxCalls: values['code-max-calls'] ?? 200,
    maxMessageBytes: values['max-message-bytes'] ?? 16 * 1024 * 1024,
    clientMetadataUrl: values['client-metadata-url'],
  });
  if (!flags.success) throw new CliError(flags.error.issues.map((i) => i.message).join('; '));
  return flags.data;
}

/** --root, --call-log and --config (with --watch-config). */
function addFiles(options: CliOptions, values: FlagValues): void {
  if (typeof values['root'] === 'string') options.root = values['root'];
  if (typeof values['call-log'] === 'string')
    options.callLog = { path: values['call-log'], content: values['call-log-content'] === true };
  else if (values['call-log-content'] === true)
    throw new CliError('--call-log-content goes with --call-log FILE');
  if (typeof values['config'] === 'string') options.configPath = values['config'];
  if (options.watchConfig && options.configPath === undefined)
    throw new CliError('--watch-config needs --config FILE');
}

/** call's and auth's arguments, and the flags that go with one subcommand only. */
function addSubcommand(options: CliOptions, values: FlagValues, positionals: string[]): void {
  const { command } = options;
  if (command === 'call' && !options.help) options.call = parseCallArguments(positionals);
  if (command === 'auth' && !options.help) {
    const [server, ...extra] = positionals;
    if (server === undefined || extra.length > 0)
      throw new CliError('auth takes one server: mcpmux auth [--logout] NAME --config FILE');
    options.auth = { server, logout: values['logout'] === true };
  } else if (values['logout'] === true) throw new CliError('--logout goes with auth');
  if (command === 'serve' && options.json) throw new CliError('--json goes with inspect');
}

function parseAgent(
  values: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): AgentOptions {
  const checked = agentSchema.safeParse({
    provider: values['agent-provider'] ?? 'auto',
    maxToolCalls: values['agent-max-tool-calls'] ?? 100,
    timeout: values['agent-timeout'] ?? 1800,
    concurrency: values['agent-concurrency'] ?? 4,
    baseUrl: values['agent-base-url'] ?? (env['ANTHROPIC_BASE_URL'] || undefined),
  });
  if (!checked.success) throw new CliError(checked.error.issues.map((i) => i.message).join('; '));
  const apiKey = env['ANTHROPIC_API_KEY'] || undefined;
  if (checked.data.provider === 'anthropic' && apiKey === undefined)
    throw new CliError(
      '--agent-provider anthropic needs the API key in the environment variable ANTHROPIC_API_KEY',
    );
  const dir = values['agent-dir'];
  return {
    provider: checked.data.provider,
    ...(apiKey !== undefined && { apiKey }),
    model:
      (values['agent-model'] as string | undefined) ?? (env['ANTHROPIC_MODEL'] || DEFAULT_ANTHROPIC_MODEL),
    ...(checked.data.baseUrl !== undefined && { baseUrl: checked.data.baseUrl }),
    ...(typeof dir === 'string' && { dir }),
    maxToolCalls: checked.data.maxToolCalls,
    timeoutMs: checked.data.timeout * 1000,
    concurrency: checked.data.concurrency,
  };
}

/** `call TOOL [JSON]`: the tool's exposed name and its arguments, a JSON object. */
function parseCallArguments(positionals: readonly string[]): {
  tool: string;
  arguments: Record<string, unknown>;
} {
  const [tool, json, ...extra] = positionals;
  if (tool === undefined)
    throw new CliError('call needs a tool: mcpmux call [options] TOOL [\'{"arg": …}\'] [-- NAME CMD …]');
  if (extra.length > 0)
    throw new CliError(`call takes one tool and one JSON object; unexpected '${extra[0]}'`);
  if (json === undefined) return { tool, arguments: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new CliError(`the arguments of ${tool} are not valid JSON (${(error as Error).message}): ${json}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliError(`the arguments of ${tool} must be a JSON object, like '{"message": "hi"}'`);
  return { tool, arguments: parsed as Record<string, unknown> };
}

/** --registry URL…, --no-registry, and --no-runtime-add (which turns registries off with the rest of add_server). */
function registriesOf(values: Record<string, unknown>): Pick<CliOptions, 'registries' | 'registriesGiven'> {
  const given = (values['registry'] as string[] | undefined) ?? [];
  const off = values['no-registry'] === true || values['no-runtime-add'] === true;
  if (values['no-registry'] === true && given.length > 0)
    throw new CliError('give --registry URL or --no-registry, not both');
  for (const url of given)
    if (!/^https?:\/\//.test(url) || !URL.canParse(url))
      throw new CliError(
        `--registry ${url}: give the registry's base URL, e.g. https://registry.modelcontextprotocol.io`,
      );
  return {
    registries: off ? [] : given.length > 0 ? given : [OFFICIAL_REGISTRY],
    registriesGiven: off || given.length > 0,
  };
}
