// The command line: flags via node:util parseArgs, then checked with zod; servers given
// inline after `--` as `-- NAME CMD ARGS… [-- NAME2 CMD2 …]`. Every problem is a CliError,
// which main.ts reports on stderr with exit status 2 before anything is spawned.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from '../log.js';
import type { ServerSpec } from '../server-spec.js';
import type { ExposeMode } from '../proxy/mux-server.js';
import type { AgentProvider } from '../agent/model-choice.js';
import { DEFAULT_ANTHROPIC_MODEL } from '../agent/anthropic-model.js';
import { DEFAULT_MAX_TOOL_NAME, serverNameProblem } from '../router/tool-names.js';
import { hostnameOf, isLoopbackHost } from '../transport/host-names.js';

export class CliError extends Error {
  override readonly name = 'CliError';
}

export interface InlineServer {
  name: string;
  spec: ServerSpec;
}

export interface CliOptions {
  /** serve: the MCP server on stdio; inspect and call: one-shot commands for server authors; auth: sign in to a remote server. */
  command: 'serve' | 'inspect' | 'call' | 'auth';
  help: boolean;
  version: boolean;
  /** inspect: print JSON instead of text. */
  json: boolean;
  /** auth: the server to sign in to (or out of, with --logout). */
  auth?: { server: string; logout: boolean };
  /** call: the exposed tool name and its arguments. */
  call?: { tool: string; arguments: Record<string, unknown> };
  configPath?: string;
  inline: InlineServer[];
  logLevel: LogLevel;
  maxToolName: number;
  startupTimeoutMs: number;
  callTimeoutMs: number;
  /** 0 turns pinging off. */
  pingIntervalMs: number;
  allowCommands: string[];
  runtimeAdd: boolean;
  inheritEnv: boolean;
  passEnv: string[];
  root?: string;
  watchConfig: boolean;
  expose: ExposeMode;
  /** Whether --expose was given (a config file's setting applies otherwise). */
  exposeGiven: boolean;
  activePoolSize: number;
  /** How search_tools ranks: BM25 fused with the embedding model when its packages are installed (auto). */
  searchRanker: SearchRankerChoice;
  maxResultBytes: number;
  /** With --expose code: memory of one program (MB) and the tool calls it may make. */
  codeMemoryMb: number;
  codeMaxToolCalls: number;
  /** Largest JSON-RPC message accepted from the client or a server, and largest HTTP body. */
  maxMessageBytes: number;
  /** Serve over streamable HTTP instead of stdio. */
  http?: HttpOptions;
  /** The agent tool: where its model comes from, its limits and its transcripts. */
  agent: AgentOptions;
}

export interface AgentOptions {
  provider: AgentProvider;
  /** The Anthropic API's key (ANTHROPIC_API_KEY; never a flag, which any process could read). */
  apiKey?: string;
  /** The Anthropic model when the caller names none. */
  model: string;
  /** A gateway in front of the Anthropic API. */
  baseUrl?: string;
  /** Transcripts; default $XDG_STATE_HOME/mcpmux/agents. */
  dir?: string;
  maxToolCalls: number;
  timeoutMs: number;
  concurrency: number;
}

export type SearchRankerChoice = 'auto' | 'bm25' | 'semantic';

export interface HttpOptions {
  port: number;
  host: string;
  authToken?: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  sessionIdleTimeoutMs: number;
  maxSessions: number;
}

export const FLAG_HELP: ReadonlyArray<[flag: string, help: string]> = [
  ['-c, --config FILE', 'Start the servers of a config file ({"mcpServers": …} or VS Code {"servers": …}).'],
  [
    '--http PORT',
    'Serve MCP over streamable HTTP at http://HOST:PORT/mcp instead of stdio (0: any free port).',
  ],
  [
    '--host HOST',
    'With --http: the address to bind (default 127.0.0.1). Anything but loopback needs --auth-token.',
  ],
  ['--auth-token TOKEN', 'With --http: require "Authorization: Bearer TOKEN"; also MCPMUX_AUTH_TOKEN.'],
  [
    '--allowed-host NAME',
    "With --http: also answer requests whose Host is NAME (a reverse proxy's name); repeat for more. Default: loopback and the bound address.",
  ],
  [
    '--allowed-origin ORIGIN',
    'With --http: also accept browser requests from ORIGIN (https://app.example.com, or a host name); repeat for more. Default: loopback origins.',
  ],
  [
    '--session-idle-timeout SECONDS',
    'With --http: close a session with no request or stream open for this long (default 1800; 0 = never).',
  ],
  [
    '--max-sessions N',
    'With --http: how many sessions may be open at once (default 100); past it a new one gets 503.',
  ],
  [
    '--max-message-bytes N',
    'Largest JSON-RPC message taken from the client or a server, and largest HTTP body (default 16777216).',
  ],
  [
    '--expose all|search|code|agent',
    'all: list every tool (default); search: only the management tools, search_tools and call_tool; code: those and list_modules, read_module, execute_code (programs call the tools); agent: the management tools, agent and output (a sub-agent calls the tools).',
  ],
  [
    '--agent-provider auto|sampling|anthropic',
    "Where the agent tool's sub-agent gets its model: auto (default) uses the client's own through sampling when it can sample, else the Anthropic API when ANTHROPIC_API_KEY is set.",
  ],
  [
    '--agent-model NAME',
    `With the Anthropic API: the model when the caller names none (default ANTHROPIC_MODEL, else ${DEFAULT_ANTHROPIC_MODEL}).`,
  ],
  [
    '--agent-base-url URL',
    'With the Anthropic API: a gateway to send requests to (default ANTHROPIC_BASE_URL).',
  ],
  ['--agent-dir DIR', "Where agents' transcripts are kept (default $XDG_STATE_HOME/mcpmux/agents)."],
  ['--agent-max-tool-calls N', 'Tool calls one agent run may make (default 100).'],
  ['--agent-timeout SECONDS', 'How long one agent run may take (default 1800).'],
  ['--agent-concurrency N', 'Background agent runs at once (default 4); past it agent answers busy.'],
  [
    '--active-pool N',
    'With --expose search: how many found tools search_tools {activate: true} may list at once (default 15).',
  ],
  [
    '--search-ranker auto|bm25|semantic',
    'How search_tools ranks a whole task: bm25 (default) alone; semantic fuses BM25 with word-piece embeddings distilled at build time from the Universal Sentence Encoder; auto does when the build has them.',
  ],
  [
    '--max-result-bytes N',
    'Cut tool results with more text than this (default 16384) and keep them whole for read_result; 0: never.',
  ],
  ['--code-memory MB', 'With --expose code: the memory one program may use (default 128).'],
  ['--code-max-calls N', 'With --expose code: the tool calls one program may make (default 200).'],
  [
    '--watch-config',
    'Apply edits of the config file while running: only what changed is stopped, started or replaced (SIGHUP does the same).',
  ],
  [
    '-- NAME CMD [ARGS…]',
    'Start a server given inline; repeat "-- NAME CMD …" for more. Must come last. Also -- NAME -- CMD [ARGS…], and a remote server: -- NAME --transport http URL [-H "Name: value"]….',
  ],
  ['--log-level LEVEL', 'error, warn, info (default) or debug; also MCPMUX_LOG_LEVEL. Logs go to stderr.'],
  [
    '--max-tool-name N',
    `Longest exposed tool name (default ${DEFAULT_MAX_TOOL_NAME}); lower it by the prefix your client adds.`,
  ],
  ['--startup-timeout SECONDS', 'Default time a server may take to start (default 60).'],
  ['--call-timeout SECONDS', 'Time a tool call may go without an answer or progress (default 300).'],
  [
    '--ping-interval SECONDS',
    'How often each server is pinged to notice a hung one, shown in list_servers (default 30; 0 = never).',
  ],
  [
    '--allow-command PATTERN',
    'Let add_server run only programs matching this pattern, judged by the real file after PATH lookup and symlinks: a path glob or a name on mcpmux\'s PATH, then optional argument globs ("npx -y @modelcontextprotocol/*"; a final ... allows more). Repeat for more.',
  ],
  ['--no-runtime-add', 'Refuse add_server: servers come only from the config and the command line.'],
  [
    '--inherit-env',
    "Give children mcpmux's whole environment (default: PATH, HOME and the SDK's safe list, plus their own env).",
  ],
  ['--pass-env NAME', "Also pass this variable of mcpmux's environment to children; repeat for more."],
  ['--root DIR', "Keep every child's cwd under DIR (and start children there by default)."],
  ['--json', 'inspect: print JSON for scripts instead of text.'],
  ['-h, --help', 'Show this help.'],
  ['-V, --version', 'Show the version.'],
];

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

const httpSchema = z.object({
  sessionIdleTimeout: z.coerce
    .number({ error: '--session-idle-timeout must be a number of seconds' })
    .min(0, '--session-idle-timeout must be 0 (never) or more')
    .max(7 * 86_400, '--session-idle-timeout must be at most 604800 (a week)'),
  maxSessions: z.coerce
    .number({ error: '--max-sessions must be a whole number' })
    .int('--max-sessions must be a whole number')
    .min(1, '--max-sessions must be at least 1')
    .max(100_000),
});

const SUBCOMMANDS = ['inspect', 'call', 'auth'] as const;

export function parseCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliOptions {
  const command = (SUBCOMMANDS as readonly string[]).includes(argv[0] ?? '')
    ? (argv[0] as 'inspect' | 'call' | 'auth')
    : 'serve';
  const rest = command === 'serve' ? argv : argv.slice(1);
  const split = rest.indexOf('--');
  const flagArgs = split === -1 ? [...rest] : rest.slice(0, split);
  const inlineArgs = split === -1 ? [] : rest.slice(split + 1);
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: flagArgs,
      strict: true,
      allowPositionals: command === 'call' || command === 'auth',
      options: {
        config: { type: 'string', short: 'c' },
        'log-level': { type: 'string' },
        'max-tool-name': { type: 'string' },
        'startup-timeout': { type: 'string' },
        'call-timeout': { type: 'string' },
        'ping-interval': { type: 'string' },
        'allow-command': { type: 'string', multiple: true },
        'no-runtime-add': { type: 'boolean' },
        'inherit-env': { type: 'boolean' },
        'pass-env': { type: 'string', multiple: true },
        root: { type: 'string' },
        json: { type: 'boolean' },
        logout: { type: 'boolean' },
        'watch-config': { type: 'boolean' },
        expose: { type: 'string' },
        'active-pool': { type: 'string' },
        'search-ranker': { type: 'string' },
        'max-result-bytes': { type: 'string' },
        'code-memory': { type: 'string' },
        'code-max-calls': { type: 'string' },
        http: { type: 'string' },
        host: { type: 'string' },
        'auth-token': { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
        'allowed-origin': { type: 'string', multiple: true },
        'session-idle-timeout': { type: 'string' },
        'max-sessions': { type: 'string' },
        'max-message-bytes': { type: 'string' },
        'agent-provider': { type: 'string' },
        'agent-model': { type: 'string' },
        'agent-base-url': { type: 'string' },
        'agent-dir': { type: 'string' },
        'agent-max-tool-calls': { type: 'string' },
        'agent-timeout': { type: 'string' },
        'agent-concurrency': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    }));
  } catch (error) {
    throw new CliError(
      (error as Error).message.replace(/\. To specify a positional argument starting with a '-'.*$/s, ''),
    );
  }
  const flags = flagsSchema.safeParse({
    // One-shot commands print their result on stdout; only problems belong on stderr.
    logLevel: values['log-level'] ?? env['MCPMUX_LOG_LEVEL'] ?? (command === 'serve' ? 'info' : 'warn'),
    maxToolName: values['max-tool-name'] ?? DEFAULT_MAX_TOOL_NAME,
    startupTimeout: values['startup-timeout'] ?? 60,
    callTimeout: values['call-timeout'] ?? 300,
    pingInterval: values['ping-interval'] ?? 30,
    expose: values['expose'] ?? 'all',
    activePool: values['active-pool'] ?? 15,
    // BM25 alone: on the held-out halves the fusion with meaning no longer wins (docs/search.md).
    searchRanker: values['search-ranker'] ?? 'bm25',
    maxResultBytes: values['max-result-bytes'] ?? 16_384,
    codeMemory: values['code-memory'] ?? 128,
    codeMaxCalls: values['code-max-calls'] ?? 200,
    maxMessageBytes: values['max-message-bytes'] ?? 16 * 1024 * 1024,
  });
  if (!flags.success) throw new CliError(flags.error.issues.map((i) => i.message).join('; '));
  const {
    logLevel,
    maxToolName,
    startupTimeout,
    callTimeout,
    pingInterval,
    expose,
    activePool,
    searchRanker,
    maxResultBytes,
    codeMemory,
    codeMaxCalls,
    maxMessageBytes,
  } = flags.data;
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
    inline: split === -1 ? [] : parseInlineServers(inlineArgs, maxToolName),
    logLevel,
    maxToolName,
    startupTimeoutMs: startupTimeout * 1000,
    callTimeoutMs: callTimeout * 1000,
    pingIntervalMs: pingInterval * 1000,
    allowCommands: (values['allow-command'] as string[] | undefined) ?? [],
    runtimeAdd: values['no-runtime-add'] !== true,
    inheritEnv: values['inherit-env'] === true,
    passEnv: (values['pass-env'] as string[] | undefined) ?? [],
    agent: parseAgent(values, env),
  };
  if (typeof values['root'] === 'string') options.root = values['root'];
  if (command === 'call' && !options.help) options.call = parseCallArguments(positionals);
  if (command === 'auth' && !options.help) {
    const [server, ...extra] = positionals;
    if (server === undefined || extra.length > 0)
      throw new CliError('auth takes one server: mcpmux auth [--logout] NAME --config FILE');
    options.auth = { server, logout: values['logout'] === true };
  } else if (values['logout'] === true) throw new CliError('--logout goes with auth');
  if (command === 'serve' && options.json) throw new CliError('--json goes with inspect');
  if (typeof values['config'] === 'string') options.configPath = values['config'];
  if (options.watchConfig && options.configPath === undefined)
    throw new CliError('--watch-config needs --config FILE');
  const http = parseHttp(values, env);
  if (http) {
    if (command !== 'serve') throw new CliError(`--http goes with serving, not with ${command}`);
    options.http = http;
  }
  return options;
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

const HTTP_ONLY_FLAGS = [
  'host',
  'auth-token',
  'allowed-host',
  'allowed-origin',
  'session-idle-timeout',
  'max-sessions',
] as const;

function parseHttp(
  values: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): CliOptions['http'] {
  const port = values['http'];
  const host = typeof values['host'] === 'string' ? values['host'] : undefined;
  const token =
    typeof values['auth-token'] === 'string' ? values['auth-token'] : env['MCPMUX_AUTH_TOKEN'] || undefined;
  if (typeof port !== 'string') {
    const stray = HTTP_ONLY_FLAGS.filter((flag) => values[flag] !== undefined);
    if (stray.length > 0)
      throw new CliError(
        `${stray.map((f) => `--${f}`).join(', ')} go${stray.length === 1 ? 'es' : ''} with --http PORT`,
      );
    return undefined;
  }
  const number = Number(port);
  if (!Number.isInteger(number) || number < 0 || number > 65_535)
    throw new CliError(`--http must be a port number (0-65535), not '${port}'`);
  const bind = host ?? '127.0.0.1';
  if (!isLoopbackHost(bind) && token === undefined) {
    throw new CliError(
      `refusing to serve on ${bind} without --auth-token (or MCPMUX_AUTH_TOKEN): anyone who reaches it could make mcpmux run commands`,
    );
  }
  const checked = httpSchema.safeParse({
    sessionIdleTimeout: values['session-idle-timeout'] ?? 1800,
    maxSessions: values['max-sessions'] ?? 100,
  });
  if (!checked.success) throw new CliError(checked.error.issues.map((i) => i.message).join('; '));
  const allowedHosts = ((values['allowed-host'] as string[] | undefined) ?? []).map((name) =>
    checkedHost(name, '--allowed-host'),
  );
  const allowedOrigins = ((values['allowed-origin'] as string[] | undefined) ?? []).map((origin) =>
    checkedHost(origin, '--allowed-origin'),
  );
  return {
    port: number,
    host: bind,
    ...(token !== undefined && { authToken: token }),
    allowedHosts,
    allowedOrigins,
    sessionIdleTimeoutMs: checked.data.sessionIdleTimeout * 1000,
    maxSessions: checked.data.maxSessions,
  };
}

/** A host name or origin a flag names, refused when it is not one. */
function checkedHost(value: string, flag: string): string {
  try {
    hostnameOf(value);
    if (value.includes('://') && new URL(value).origin === 'null') throw new Error('no origin');
    return value;
  } catch {
    throw new CliError(
      `${flag} takes a host name (app.example.com) or an origin (https://app.example.com:8443), not '${value}'`,
    );
  }
}

/** `call TOOL [JSON]`: the tool's exposed name and its arguments, a JSON object. */
function parseCallArguments(positionals: readonly string[]): {
  tool: string;
  arguments: Record<string, unknown>;
} {
  const [tool, json, ...extra] = positionals;
  if (tool === undefined)
    throw new CliError(
      'call needs a tool: mcpmux call [options] SERVER__TOOL [\'{"arg": …}\'] [-- NAME CMD …]',
    );
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

/**
 * Servers given inline, in the forms wrapper servers' configs use: `NAME CMD ARGS…`,
 * `NAME -- CMD ARGS…` (a lone name takes the next group as its command), and remote servers
 * `NAME --transport http URL [-H "Header: value"]…`. Otherwise `--` separates servers.
 */
function parseInlineServers(args: readonly string[], maxToolName: number): InlineServer[] {
  const groups: string[][] = [[]];
  for (const arg of args) {
    if (arg === '--') groups.push([]);
    else groups[groups.length - 1]!.push(arg);
  }
  const seen = new Set<string>();
  const servers: InlineServer[] = [];
  for (let i = 0; i < groups.length; i++) {
    let group = groups[i]!;
    const number = servers.length + 1;
    if (group.length === 1 && i + 1 < groups.length) group = [group[0]!, ...groups[++i]!];
    const [name, first, ...rest] = group;
    if (name === undefined || first === undefined) {
      throw new CliError(
        `inline server #${number} needs a name and a command: -- NAME CMD [ARGS…], -- NAME -- CMD [ARGS…] or -- NAME --transport http URL`,
      );
    }
    const problem = serverNameProblem(name, maxToolName);
    if (problem) throw new CliError(`inline server: ${problem}`);
    if (seen.has(name)) throw new CliError(`inline server name '${name}' is given twice`);
    seen.add(name);
    servers.push({
      name,
      spec: first === '--transport' ? inlineTransport(name, rest) : stdioSpec(first, rest),
    });
  }
  return servers;
}

const stdioSpec = (command: string, args: string[]): ServerSpec => ({
  transport: 'stdio',
  command,
  args,
  env: {},
});

/** `--transport http|sse URL [-H "Name: value"]…`, or `--transport stdio CMD ARGS…`. */
function inlineTransport(name: string, words: readonly string[]): ServerSpec {
  const [transport, target, ...rest] = words;
  if (transport === 'stdio') {
    if (target === undefined)
      throw new CliError(`inline server '${name}': --transport stdio needs a command`);
    return stdioSpec(target, rest);
  }
  if (transport !== 'http' && transport !== 'sse' && transport !== 'streamable-http')
    throw new CliError(
      `inline server '${name}': --transport must be http, sse or stdio, not ${transport === undefined ? 'nothing' : `'${transport}'`}`,
    );
  if (target === undefined || !URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol))
    throw new CliError(
      `inline server '${name}': --transport ${transport} needs the server's http(s) URL, like https://mcp.example.com/mcp`,
    );
  const headers: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    if (flag !== '-H' && flag !== '--header')
      throw new CliError(
        `inline server '${name}': after the URL only -H "Name: value" may follow, not '${flag}'`,
      );
    const colon = value?.indexOf(':') ?? -1;
    const header = colon > 0 ? value!.slice(0, colon).trim() : '';
    // The value is a secret (a token, most often): the error names the header only.
    if (value === undefined || header === '' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header))
      throw new CliError(
        `inline server '${name}': ${flag} takes "Name: value", like -H "Authorization: Bearer …"`,
      );
    headers[header] = value!.slice(colon + 1).trim();
  }
  return { transport: 'http', url: target, headers };
}

export function helpText(version: string): string {
  const width = Math.max(...FLAG_HELP.map(([f]) => f.length)) + 2;
  return [
    `mcpmux ${version}: one MCP server in front of many, changed at run time.`,
    '',
    'Usage: mcpmux [options] [-- NAME CMD [ARGS…]]…',
    '       mcpmux inspect [--json] [options] [-- NAME CMD [ARGS…]]…',
    '       mcpmux call [options] SERVER__TOOL [\'{"arg": …}\'] [-- NAME CMD [ARGS…]]…',
    '       mcpmux auth [--logout] NAME --config FILE',
    '',
    'Serves MCP over stdio. With no servers given, the agent adds them with add_server.',
    'inspect starts the servers, prints their tools, prompts and resources, and exits;',
    'call starts them, calls one tool, prints its result, and exits (status 1 if it fails).',
    'auth signs in to the remote server NAME of the config (its "oauth"), keeping the tokens;',
    'with --logout it forgets them.',
    '',
    'Options:',
    ...FLAG_HELP.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`),
    '',
    'Examples:',
    '  mcpmux',
    '  mcpmux --config ~/.config/mcpmux.json',
    '  mcpmux -- memory npx -y @modelcontextprotocol/server-memory -- everything npx -y @modelcontextprotocol/server-everything',
    '  mcpmux inspect -- dev node build/index.js',
    `  mcpmux call dev__echo '{"message": "hi"}' -- dev node build/index.js`,
  ].join('\n');
}
