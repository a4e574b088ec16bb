// mcpmux --help: every flag with one line on what it does (a test checks that each is listed),
// the usage of the subcommands, and examples.
import { DEFAULT_ANTHROPIC_MODEL } from '../agent/anthropic-model.js';
import { DEFAULT_MAX_TOOL_NAME } from '../router/tool-names.js';

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
  [
    '--auth-token-file FILE',
    'With --http: require "Authorization: Bearer TOKEN", TOKEN the first line of FILE; also MCPMUX_AUTH_TOKEN.',
  ],
  [
    '--auth-token TOKEN',
    'As --auth-token-file, with the token itself (it then shows in the process list: a warning says so).',
  ],
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
    'With --http: how many sessions may be open at once (default 100); past it a new one takes the place of the one idle longest (a minute at least), else gets 503.',
  ],
  [
    '--max-message-bytes N',
    'Largest JSON-RPC message taken from the client or a server (stdio or remote), and largest HTTP body (default 16777216).',
  ],
  [
    '--client-metadata-url URL',
    "OAuth: mcpmux's client ID metadata document (an https URL you host), its client ID where an authorization server supports them; an entry's oauth.client_metadata_url wins. Default: dynamic registration.",
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
  [
    '--drain-seconds N',
    'With --http: on SIGTERM, refuse new requests (503) and let those in flight finish for up to N seconds (default 10) before ending. GET /healthz and /readyz answer probes.',
  ],
  ['--agent-concurrency N', 'Background agent runs at once (default 4); past it agent answers busy.'],
  [
    '--active-pool N',
    'With --expose search: how many found tools search_tools {activate: true} may list at once (default 15).',
  ],
  [
    '--search-ranker auto|bm25|semantic',
    'How search_tools ranks a whole task: auto (default) as semantic when the build has its embeddings, else as bm25; bm25: BM25 alone; semantic: BM25, with the servers closest to the task in meaning (word-piece embeddings distilled at build time from the Universal Sentence Encoder) as one more view of which servers it is about.',
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
  [
    '--wait-for-servers SECONDS',
    'How long the first lists and calls wait for the configured servers (default: until each has started or failed); past it they are answered with what runs, and list_changed tells of the rest. 0 answers at once.',
  ],
  ['--call-timeout SECONDS', 'Time a tool call may go without an answer or progress (default 300).'],
  [
    '--ping-interval SECONDS',
    'How often each server is pinged to notice a hung one, shown in list_servers (default 30; 0 = never).',
  ],
  [
    '--allow-command PATTERN',
    'Let add_server run only programs matching this pattern, judged by the real file after PATH lookup and symlinks: a path glob or a name on mcpmux\'s PATH, then optional argument globs ("npx -y @modelcontextprotocol/*"; a final ... allows more). Repeat for more.',
  ],
  [
    '--allow-env NAME',
    'Under --allow-command, let add_server set this variable all the same though it changes what a program loads (NODE_OPTIONS, PATH, LD_*, npm_config_*, …: refused otherwise); a glob; repeat for more.',
  ],
  [
    '--no-runtime-add',
    'Refuse add_server: servers come only from the config and the command line (and find_servers is off).',
  ],
  [
    '--registry URL',
    'An MCP registry find_servers searches and add_server {registry} starts entries of (default: https://registry.modelcontextprotocol.io, or the config\'s "mcpmux": {"registries": [...]}). Repeat for more; asked in order.',
  ],
  ['--no-registry', 'Turn MCP registries off: no find_servers, and add_server takes only command or url.'],
  [
    '--allow-model-secrets',
    "Let the model pass a value in add_server's env for a variable its registry entry marks secret (default: refused; the person is asked instead).",
  ],
  [
    '--inherit-env',
    "Give children mcpmux's whole environment (default: PATH, HOME and the SDK's safe list, plus their own env).",
  ],
  ['--pass-env NAME', "Also pass this variable of mcpmux's environment to children; repeat for more."],
  ['--root DIR', "Keep every child's cwd under DIR (and start children there by default)."],
  [
    '--call-log FILE',
    'Append a JSON line per tool call, resource read and prompt get to FILE (0600): time, session, client, server, tool, duration, outcome, bytes, trace id. SIGHUP reopens it.',
  ],
  ['--call-log-content', 'With --call-log: also the arguments and results.'],
  [
    '--trace-content',
    "With OpenTelemetry on (OTEL_* variables): record tool calls' arguments and results in their spans.",
  ],
  ['--json', 'inspect: print JSON for scripts instead of text.'],
  ['--logout', "auth: forget NAME's kept sign-in (its tokens) instead of signing in."],
  ['-h, --help', 'Show this help.'],
  ['-V, --version', 'Show the version.'],
];

export function helpText(version: string): string {
  const width = Math.max(...FLAG_HELP.map(([f]) => f.length)) + 2;
  return [
    `mcpmux ${version}: one MCP server in front of many, changed at run time.`,
    '',
    'Usage: mcpmux [options] [-- NAME CMD [ARGS…]]…',
    '       mcpmux inspect [--json] [options] [-- NAME CMD [ARGS…]]…',
    '       mcpmux call [options] TOOL [\'{"arg": …}\'] [-- NAME CMD [ARGS…]]…',
    '       mcpmux auth [--logout] NAME --config FILE',
    '       mcpmux import [--from CLIENT]… [--out FILE] [--dry-run] [--keep-secrets]',
    '       mcpmux install --client CLIENT [--config FILE] [--replace] [--dry-run]',
    '       mcpmux secrets list | forget ENTRY [NAME] | forget --all',
    '',
    'Serves MCP over stdio. With no servers given, the agent adds them with add_server.',
    'inspect starts the servers, prints their tools, prompts and resources, and exits (status 1',
    'if a server failed to start or listed something that is not valid MCP, which it names);',
    'call starts them, calls one tool, prints its result, and exits (status 1 if it fails).',
    'auth signs in to the remote server NAME of the config, keeping the tokens; with --logout',
    'it forgets them. import reads the servers your other clients have into one mcpmux config;',
    "install registers mcpmux in a client's config (mcpmux import --help tells more). secrets",
    'lists or forgets the secrets people kept for servers added from an MCP registry.',
    '',
    'Options:',
    ...FLAG_HELP.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`),
    '',
    'Examples:',
    '  mcpmux',
    '  mcpmux import && mcpmux install --client claude-code --replace',
    '  mcpmux --config ~/.config/mcpmux/servers.json',
    '  mcpmux -- memory npx -y @modelcontextprotocol/server-memory -- everything npx -y @modelcontextprotocol/server-everything',
    '  mcpmux inspect -- dev node build/index.js',
    `  mcpmux call dev__echo '{"message": "hi"}' -- dev node build/index.js`,
  ].join('\n');
}
