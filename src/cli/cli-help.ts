// mcpmux's help: `--help` fits a screen (the usage, what people do most, where to read more);
// `mcpmux help TOPIC` lists the flags of one topic, each with one line on what it does, and
// `mcpmux help all` every one (a test checks that each flag is listed and known to the parser);
// `inspect`, `call` and `auth` have a --help of their own.
import { DEFAULT_ANTHROPIC_MODEL } from '../agent/anthropic-model.js';
import { DEFAULT_MAX_TOOL_NAME } from '../router/tool-names.js';

/** Flags that belong together, as `mcpmux help TOPIC` shows them. */
export interface FlagTopic {
  readonly topic: string;
  readonly title: string;
  readonly flags: ReadonlyArray<readonly [flag: string, help: string]>;
}

export const FLAG_TOPICS: readonly FlagTopic[] = [
  {
    topic: 'servers',
    title: 'Servers and config',
    flags: [
      [
        '-c, --config FILE',
        'Start the servers of a config file ({"mcpServers": …} or VS Code {"servers": …}).',
      ],
      [
        '--watch-config',
        'Apply edits of the config file while running: only what changed is stopped, started or replaced (SIGHUP does the same).',
      ],
      [
        '-- NAME CMD [ARGS…]',
        'Start a server given inline; repeat "-- NAME CMD …" for more. Must come last. Also -- NAME -- CMD [ARGS…], and a remote server: -- NAME --transport http URL [-H "Name: value"]….',
      ],
      ['--root DIR', "Keep every child's cwd under DIR (and start children there by default)."],
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
        '--max-tool-name N',
        `Longest exposed tool name (default ${DEFAULT_MAX_TOOL_NAME}); lower it by the prefix your client adds.`,
      ],
      [
        '--max-message-bytes N',
        'Largest JSON-RPC message taken from the client or a server (stdio or remote), and largest HTTP body (default 16777216).',
      ],
      [
        '--client-metadata-url URL',
        "OAuth: mcpmux's client ID metadata document (an https URL you host), its client ID where an authorization server supports them; an entry's oauth.client_metadata_url wins. Default: dynamic registration.",
      ],
    ],
  },
  {
    topic: 'serving',
    title: 'Serving over HTTP',
    flags: [
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
        '--drain-seconds N',
        'With --http: on SIGTERM, refuse new requests (503) and let those in flight finish for up to N seconds (default 10) before ending. GET /healthz and /readyz answer probes.',
      ],
      [
        '--redis URL',
        "With --http: be a replica of a cluster whose set of servers is kept in Redis at URL (redis:// or rediss://; also MCPMUX_REDIS_URL): add_server and remove_server through any replica change every replica's servers, each started through the replica's own policy. Needs MCPMUX_STATE_KEY, the same secret on every replica (openssl rand -base64 32). /readyz waits for the set. docs/deploying.md.",
      ],
      ['--cluster NAME', "With --redis: the cluster's name, its keys in Redis (default mcpmux)."],
      ['--replica NAME', "With --redis: this replica's name, unique in the cluster (default HOSTNAME-PID)."],
      [
        '--replica-url URL',
        "With --redis: where the other replicas reach this one's internal hop (default the address it serves at; a host name for 0.0.0.0), e.g. http://$POD_IP:8931.",
      ],
    ],
  },
  {
    topic: 'policy',
    title: 'Policy and security: what add_server may run',
    flags: [
      [
        '--allow-command PATTERN',
        'Let add_server run only programs matching this pattern, judged by the real file after PATH lookup and symlinks: a path glob or a name on mcpmux\'s PATH, then optional argument globs ("npx -y @modelcontextprotocol/*"; a final ... allows more). Repeat for more.',
      ],
      [
        '--allow-env NAME',
        'Under --allow-command, let add_server set this variable all the same though it changes what a program loads (NODE_OPTIONS, PATH, LD_*, npm_config_*, …: refused otherwise); a glob; repeat for more.',
      ],
      [
        '--inherit-env',
        "Give children mcpmux's whole environment (default: PATH, HOME and the SDK's safe list, plus their own env).",
      ],
      ['--pass-env NAME', "Also pass this variable of mcpmux's environment to children; repeat for more."],
      [
        '--no-runtime-add',
        'Refuse add_server: servers come only from the config and the command line (and find_servers is off).',
      ],
      [
        '--quarantine strangers|all-added|all',
        "Which servers are held, their text kept from the model, until a person approves them (add_server's form, or mcpmux approve NAME): strangers (default): what the agent adds from a registry, a package runner (npx, uvx, docker run, …) or a URL off this machine; all-added: everything the agent adds; all: the config's servers too. A hard flag of the poisoning scanner holds any server.",
      ],
      [
        '--sandbox [added|all|off]',
        'Run servers in the OS sandbox (bubblewrap on Linux, sandbox-exec on macOS) when their own "sandbox" says nothing: added (--sandbox alone): every server added at run time; all: the config\'s servers too; off (default). The default profile writes only its working folder and a private one, reads no credentials (~/.ssh, ~/.aws, mcpmux\'s secrets…) and reaches no host but its package registry. Needs bubblewrap, socat and ripgrep on Linux; a server that asks for it where it cannot be had does not start.',
      ],
    ],
  },
  {
    topic: 'search',
    title: 'Search and context: which tools the client lists',
    flags: [
      [
        '--expose all|search|code|agent',
        'all: list every tool (default); search: only the management tools, search_tools and call_tool; code: those and list_modules, read_module, execute_code (programs call the tools); agent: the management tools, agent and output (a sub-agent calls the tools).',
      ],
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
    ],
  },
  {
    topic: 'agent',
    title: 'The agent tool and code mode',
    flags: [
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
      ['--code-memory MB', 'With --expose code: the memory one program may use (default 128).'],
      ['--code-max-calls N', 'With --expose code: the tool calls one program may make (default 200).'],
    ],
  },
  {
    topic: 'registries',
    title: 'MCP registries and secrets',
    flags: [
      [
        '--registry URL',
        'An MCP registry find_servers searches and add_server {registry} starts entries of (default: https://registry.modelcontextprotocol.io, or the config\'s "mcpmux": {"registries": [...]}). Repeat for more; asked in order.',
      ],
      [
        '--no-registry',
        'Turn MCP registries off: no find_servers, and add_server takes only command or url.',
      ],
      [
        '--allow-model-secrets',
        "Let the model pass a value in add_server's env for a variable its registry entry marks secret (default: refused; the person is asked instead).",
      ],
    ],
  },
  {
    topic: 'observability',
    title: 'Logs, the call log and traces',
    flags: [
      [
        '--log-level LEVEL',
        'error, warn, info (default) or debug; also MCPMUX_LOG_LEVEL. Logs go to stderr.',
      ],
      [
        '--call-log FILE',
        'Append a JSON line per tool call, resource read and prompt get to FILE (0600): time, session, client, server, tool, duration, outcome, bytes, trace id. SIGHUP reopens it.',
      ],
      ['--call-log-content', 'With --call-log: also the arguments and results.'],
      [
        '--trace-content',
        "With OpenTelemetry on (OTEL_* variables): record tool calls' arguments and results in their spans.",
      ],
    ],
  },
  {
    topic: 'commands',
    title: "inspect, call and auth's own",
    flags: [
      ['--json', 'inspect: print JSON for scripts instead of text.'],
      ['--logout', "auth: forget NAME's kept sign-in (its tokens) instead of signing in."],
      ['-h, --help', 'Show this help.'],
      ['-V, --version', 'Show the version.'],
    ],
  },
];

/** Every flag with its line, in the order of the topics. */
export const FLAG_HELP: ReadonlyArray<readonly [flag: string, help: string]> = FLAG_TOPICS.flatMap(
  (t) => t.flags,
);

const USAGE = [
  'Usage: mcpmux [options] [-- NAME CMD [ARGS…]]…',
  '       mcpmux inspect [--json] [options] [-- NAME CMD [ARGS…]]…',
  '       mcpmux call [--json] [options] TOOL [\'{"arg": …}\'] [-- NAME CMD [ARGS…]]…',
  '       mcpmux auth [--logout] NAME --config FILE',
  '       mcpmux import [--from CLIENT]… [--out FILE] [--dry-run] [--keep-secrets] [--project DIR]',
  '       mcpmux install --client CLIENT [--config FILE] [--replace] [--scope user|project] [--dry-run]',
  '       mcpmux secrets list | forget ENTRY [NAME] | forget --all',
  '       mcpmux approve NAME [ITEM…] [--yes] | mcpmux pins list | diff NAME | forget NAME',
  '       mcpmux help [TOPIC | all]',
];

/** What `mcpmux --help` shows: the usage, what people do most, and where to read more. One screen. */
export function helpText(version: string): string {
  return [
    `mcpmux ${version}: one MCP server in front of many, changed at run time.`,
    '',
    ...USAGE,
    '',
    'What people do most:',
    "  mcpmux import && mcpmux install --client claude-code   bring your clients' servers behind mcpmux",
    '  mcpmux --config ~/.config/mcpmux/servers.json           serve a config over stdio (what a client starts)',
    '  mcpmux                                                  serve none: the agent adds them with add_server',
    '  mcpmux inspect -- dev node build/index.js               see what a client would see of your server',
    `  mcpmux call dev__echo '{"message": "hi"}' -- dev node build/index.js   call one tool (or list_servers…)`,
    '',
    `Every flag, by topic: mcpmux help TOPIC (${FLAG_TOPICS.map((t) => t.topic).join(', ')}, clients), or mcpmux help all.`,
    'Each subcommand has its own: mcpmux inspect --help, mcpmux import --help, … Docs: docs/cli.md.',
  ].join('\n');
}

/** The names `mcpmux help` takes: each topic, clients (import, install, secrets), and all. */
export const HELP_TOPICS: readonly string[] = [...FLAG_TOPICS.map((t) => t.topic), 'clients', 'all'];

/** `mcpmux help TOPIC`: that topic's flags (all: every one), each with its line; undefined for a name it does not know. */
export function topicHelp(topic: string, clientsHelp: string): string | undefined {
  if (topic === 'clients') return clientsHelp;
  const chosen = topic === 'all' ? FLAG_TOPICS : FLAG_TOPICS.filter((t) => t.topic === topic);
  if (chosen.length === 0) return undefined;
  const parts = chosen.map((t) => flagLines(t.title, t.flags));
  return (topic === 'all' ? [USAGE.join('\n'), ...parts, clientsHelp] : parts).join('\n\n');
}

/** `mcpmux inspect|call|auth --help`: its usage, what it does, and the flags it takes. */
export function subcommandHelp(command: 'inspect' | 'call' | 'auth'): string {
  const topic = (name: string) => FLAG_TOPICS.find((t) => t.topic === name)!;
  const what = {
    inspect: [
      USAGE[1]!.trim(),
      'Starts the servers given, prints their tools, prompts, resources and instructions as a client would see',
      'them, and exits: 1 if a server failed to start or listed something that is not valid MCP (named).',
    ],
    call: [
      USAGE[2]!.trim(),
      "Calls one tool through a session of mcpmux's own and prints its result: a child's tool by its exposed name",
      "(dev__echo), or one of mcpmux's (list_servers, find_servers, search_tools, read_result…), which needs no",
      'server given. Exits 1 if the call fails or a server it needs did not start.',
    ],
    auth: [
      USAGE[3]!.trim(),
      'Signs in to the remote server NAME of the config (OAuth), keeping the tokens; --logout forgets them.',
    ],
  }[command];
  return [
    what.join('\n'),
    flagLines(
      'Its flags',
      topic('commands').flags.filter(([f]) => !f.includes('--version')),
    ),
    flagLines(topic('servers').title, topic('servers').flags),
    flagLines(topic('policy').title, topic('policy').flags),
  ].join('\n\n');
}

function flagLines(title: string, flags: readonly (readonly [string, string])[]): string {
  const width = Math.max(...flags.map(([f]) => f.length)) + 2;
  return [`${title}:`, ...flags.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`)].join('\n');
}
