// What the command line comes to: the options mcpmux runs with, and the error every mistake
// in it is (main.ts reports it on stderr with exit status 2, before anything is spawned).
import type { QuarantineMode } from '../trust/quarantine.js';
import type { SandboxMode } from '../child/sandbox-setting.js';
import type { AgentProvider } from '../agent/model-choice.js';
import type { LogLevel } from '../common/log.js';
import type { ExposeMode } from '../session/exposure.js';
import type { SearchRankerChoice } from '../search/semantic/ranker-choice.js';
import type { ServerSpec } from '../child/server-spec.js';

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
  /**
   * How long the first lists and calls wait for the servers given at start; unset, until each
   * has started or failed (each bounded by its start-up timeout).
   */
  waitForServersMs?: number;
  callTimeoutMs: number;
  /** 0 turns pinging off. */
  pingIntervalMs: number;
  allowCommands: string[];
  /** Loader variables (NODE_OPTIONS, PATH, …) a runtime add may set under --allow-command. */
  allowEnv: string[];
  runtimeAdd: boolean;
  /** Which servers start held until a person approves them (--quarantine). */
  quarantine: QuarantineMode;
  /** Whether --quarantine was given (a config file's setting applies otherwise). */
  quarantineGiven: boolean;
  /** Which servers run in the OS sandbox when their own `sandbox` says nothing (--sandbox). */
  sandbox: SandboxMode;
  /**
   * The MCP registries find_servers and add_server {registry} use: --registry URLs, else the
   * config's "registries", else the official one; empty with --no-registry or --no-runtime-add.
   */
  registries: string[];
  /** Whether --registry or --no-registry was given (the config file's "registries" apply otherwise). */
  registriesGiven: boolean;
  /** A secret the model passes in add_server's env is used rather than refused. */
  allowModelSecrets: boolean;
  /** --call-log FILE: a JSON line per tool call, resource read and prompt get; with their content (--call-log-content). */
  callLog?: { path: string; content: boolean };
  /** --trace-content: tool calls' arguments and results go into their spans. */
  traceContent: boolean;
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
  /** mcpmux's OAuth client ID metadata document, for every remote server whose entry names none. */
  clientMetadataUrl?: string;
  /** Serve over streamable HTTP instead of stdio. */
  http?: HttpOptions;
  /** A replica of a cluster (--redis); undefined: one mcpmux on its own. */
  cluster?: ClusterOptions;
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

export interface ClusterOptions {
  /** redis:// or rediss:// (--redis or MCPMUX_REDIS_URL). */
  redisUrl: string;
  /** The cluster's name (--cluster): its keys in Redis. */
  name: string;
  /** This replica's name (--replica), unique in the cluster. */
  replica: string;
  /** MCPMUX_STATE_KEY, the same on every replica. */
  stateKey: string;
  /** Where the other replicas reach this one (--replica-url); default the address it serves at. */
  replicaUrl?: string;
}

export interface HttpOptions {
  port: number;
  host: string;
  authToken?: string;
  /** Where the token came from: a command-line token shows in the process list, and start-up says so. */
  authTokenFrom?: 'flag' | 'file' | 'env';
  allowedHosts: string[];
  allowedOrigins: string[];
  sessionIdleTimeoutMs: number;
  maxSessions: number;
  /** On SIGTERM, how long requests in flight may take to finish while new ones are refused. */
  drainMs: number;
}
