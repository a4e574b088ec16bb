// The command line: flags via node:util parseArgs, then checked with zod; servers given
// inline after `--` as `-- NAME CMD ARGS… [-- NAME2 CMD2 …]`. Every problem is a CliError,
// which main.ts reports on stderr with exit status 2 before anything is spawned.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from '../log.js';
import type { ServerSpec } from '../server-spec.js';
import { DEFAULT_MAX_TOOL_NAME, serverNameProblem } from '../router/tool-names.js';

export class CliError extends Error {
  override readonly name = 'CliError';
}

export interface InlineServer {
  name: string;
  spec: ServerSpec;
}

export interface CliOptions {
  help: boolean;
  version: boolean;
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
}

export const FLAG_HELP: ReadonlyArray<[flag: string, help: string]> = [
  ['-c, --config FILE', 'Start the servers of a config file ({"mcpServers": …} or VS Code {"servers": …}).'],
  ['-- NAME CMD [ARGS…]', 'Start a server given inline; repeat "-- NAME CMD …" for more. Must come last.'],
  ['--log-level LEVEL', 'error, warn, info (default) or debug; also MCPMUX_LOG_LEVEL. Logs go to stderr.'],
  ['--max-tool-name N', `Longest exposed tool name (default ${DEFAULT_MAX_TOOL_NAME}); lower it by the prefix your client adds.`],
  ['--startup-timeout SECONDS', 'Default time a server may take to start (default 60).'],
  ['--call-timeout SECONDS', 'Time a tool call may go without an answer or progress (default 300).'],
  ['--ping-interval SECONDS', 'How often each server is pinged to notice a hung one, shown in list_servers (default 30; 0 = never).'],
  ['--allow-command PATTERN', 'Let add_server run only commands matching this glob (as given, or by base name); repeat for more.'],
  ['--no-runtime-add', 'Refuse add_server: servers come only from the config and the command line.'],
  ['--inherit-env', "Give children mcpmux's whole environment (default: PATH, HOME and the SDK's safe list, plus their own env)."],
  ['--pass-env NAME', 'Also pass this variable of mcpmux\'s environment to children; repeat for more.'],
  ['--root DIR', "Keep every child's cwd under DIR (and start children there by default)."],
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
  startupTimeout: z.coerce.number({ error: '--startup-timeout must be a number of seconds' }).positive('--startup-timeout must be positive').max(3600),
  callTimeout: z.coerce.number({ error: '--call-timeout must be a number of seconds' }).positive('--call-timeout must be positive').max(86_400),
  pingInterval: z.coerce.number({ error: '--ping-interval must be a number of seconds' }).min(0, '--ping-interval must be 0 or more').max(86_400),
});

export function parseCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliOptions {
  const split = argv.indexOf('--');
  const flagArgs = split === -1 ? [...argv] : argv.slice(0, split);
  const inlineArgs = split === -1 ? [] : argv.slice(split + 1);
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: flagArgs,
      strict: true,
      allowPositionals: false,
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
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    }));
  } catch (error) {
    throw new CliError((error as Error).message.replace(/\. To specify a positional argument starting with a '-'.*$/s, ''));
  }
  const flags = flagsSchema.safeParse({
    logLevel: values['log-level'] ?? env['MCPMUX_LOG_LEVEL'] ?? 'info',
    maxToolName: values['max-tool-name'] ?? DEFAULT_MAX_TOOL_NAME,
    startupTimeout: values['startup-timeout'] ?? 60,
    callTimeout: values['call-timeout'] ?? 300,
    pingInterval: values['ping-interval'] ?? 30,
  });
  if (!flags.success) throw new CliError(flags.error.issues.map((i) => i.message).join('; '));
  const { logLevel, maxToolName, startupTimeout, callTimeout, pingInterval } = flags.data;
  const options: CliOptions = {
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
  };
  if (typeof values['root'] === 'string') options.root = values['root'];
  if (typeof values['config'] === 'string') options.configPath = values['config'];
  return options;
}

/** `NAME CMD ARGS… -- NAME2 CMD2 …` → servers; `--` always separates servers. */
function parseInlineServers(args: readonly string[], maxToolName: number): InlineServer[] {
  const groups: string[][] = [[]];
  for (const arg of args) {
    if (arg === '--') groups.push([]);
    else groups[groups.length - 1]!.push(arg);
  }
  const seen = new Set<string>();
  return groups.map((group, i) => {
    const [name, command, ...rest] = group;
    if (name === undefined || command === undefined) {
      throw new CliError(`inline server #${i + 1} needs a name and a command: -- NAME CMD [ARGS…]`);
    }
    const problem = serverNameProblem(name, maxToolName);
    if (problem) throw new CliError(`inline server: ${problem}`);
    if (seen.has(name)) throw new CliError(`inline server name '${name}' is given twice`);
    seen.add(name);
    return { name, spec: { transport: 'stdio', command, args: rest, env: {} } };
  });
}

export function helpText(version: string): string {
  const width = Math.max(...FLAG_HELP.map(([f]) => f.length)) + 2;
  return [
    `mcpmux ${version}: one MCP server in front of many, changed at run time.`,
    '',
    'Usage: mcpmux [options] [-- NAME CMD [ARGS…]]…',
    '',
    'Serves MCP over stdio. With no servers given, the agent adds them with add_server.',
    '',
    'Options:',
    ...FLAG_HELP.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`),
    '',
    'Examples:',
    '  mcpmux',
    '  mcpmux --config ~/.config/mcpmux.json',
    '  mcpmux -- memory npx -y @modelcontextprotocol/server-memory -- everything npx -y @modelcontextprotocol/server-everything',
  ].join('\n');
}
