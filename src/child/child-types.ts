// The shapes a child connection is made with and speaks in: its options, what it can reach
// of the client on the other side of mcpmux, its events, and the options of one call.
import type {
  ClientCapabilities,
  LoggingLevel,
  Progress,
  ServerCapabilities,
} from '@modelcontextprotocol/client';
import type { Logger } from '../common/log.js';
import type { Catalog } from '../protocol/capabilities.js';
import type { ServerSpec, StdioServerSpec } from './server-spec.js';
import type { SandboxSetting } from './sandbox-setting.js';
import type { ChildProcess, StopTimings } from './process/child-process.js';

/** How long a call may go without an answer or progress (--call-timeout's default, 300 s). */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000;

export type ChildEvent =
  | { type: 'crashed'; name: string; generation: number; error: string }
  | { type: 'catalog-changed'; name: string; generation: number; catalog: Catalog }
  | { type: 'sources-changed'; name: string; generation: number; paths: string[] };

export type StopReason = 'removed' | 'reloading' | 'shutdown';

/**
 * How a local child's processes start: as the operator's spawn policy says (policy/spawn-policy.ts
 * is the one), declared here so that child/ needs nothing of policy/.
 */
export interface Spawner {
  /** Starts a server's process (its cwd, its environment) and leaves the audit line. */
  spawn(name: string, spec: Extract<ServerSpec, { transport: 'stdio' }>): Promise<ChildProcess>;
  /** The cwd a child runs in (under --root when it is set); throws when the spec's is refused. */
  workingDirectory(name: string, spec: StdioServerSpec): string | undefined;
  /** The environment a child starts from; its spec's env goes on top. */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Whether a server runs in the OS sandbox: its spec's `sandbox`, else the operator's default. */
  sandboxOf(spec: ServerSpec): SandboxSetting | undefined;
}

export interface ChildConnectionOptions {
  name: string;
  spec: ServerSpec;
  /** What may run and how: base environment, cwd confinement, the audit line. */
  spawnPolicy: Spawner;
  logger: Logger;
  /** Start-up timeout when the spec gives none. Default 60 000 ms (a cold `npx` takes 20–60 s). */
  startupTimeoutMs?: number;
  /** Per-call timeout, restarted by each progress notification. Default DEFAULT_CALL_TIMEOUT_MS. */
  callTimeoutMs?: number;
  /** Grace periods of the stop ladder (see child-process.ts for defaults). */
  stopTimings?: StopTimings;
  /** The client on the other side of mcpmux, for what a child sends up. Default: none (nothing is relayed). */
  upstream?: ChildUpstream;
  /**
   * How often a running child is pinged to notice that it hangs (shown in list_servers;
   * a missed ping never marks it crashed: a busy child may answer late). Default 30 000 ms; 0 = never.
   */
  pingIntervalMs?: number;
  /** How long a ping may take. Default 10 000 ms. */
  pingTimeoutMs?: number;
  /** How long a build (watch.build) may run. Default 300 000 ms. */
  buildTimeoutMs?: number;
  /** Lines of stderr kept for status and errors. Default 50. */
  stderrLines?: number;
  /** Largest message taken from a stdio child; past it the line is dropped and logged. Default 16 MiB. */
  maxMessageBytes?: number;
  /** mcpmux's OAuth client ID metadata document, for a remote server whose oauth block names none. */
  clientMetadataUrl?: string;
  /** Told about crashes and catalog changes of the current generation. */
  onEvent?: (event: ChildEvent) => void;
  /**
   * Opens a new session with a remote server that ended mcpmux's (a reload of the connection,
   * its catalog kept listed: session-renewal.ts); settles when it is open or could not be.
   */
  renewSession?: () => Promise<void>;
}

/** Tells one client a notification outside any request (its session, or its listen streams). */
export type NotifyClient = (notification: JSONRPCRequestLike) => Promise<void>;

/** What a child can reach of the client connected to mcpmux. */
export interface ChildUpstream {
  /** What the client can do; each child is told exactly this (sampling, elicitation, roots) when it starts. */
  clientCapabilities(): ClientCapabilities;
  /**
   * A request of the child for the client (sampling, elicitation, roots), with the client of
   * the call in flight it belongs to, when there is one.
   */
  request(
    server: string,
    request: JSONRPCRequestLike,
    signal: AbortSignal,
    origin?: InputOrigin,
  ): Promise<Record<string, unknown>>;
  /**
   * A notification of the child for the client (log messages, resource updates); `callers`:
   * the clients of the child's requests in flight (its generation's origins).
   */
  notify(server: string, notification: JSONRPCRequestLike, callers?: readonly InputOrigin[]): void;
  /**
   * The level 2025 sessions want a child's log messages at: the most verbose any set, 'debug'
   * for one that set none (a 2025 server sends such a session every message); undefined with no
   * 2025 session. A 2026-07-28 child, which has no logging/setLevel, is told it on each request.
   */
  sessionLogLevel?(): LoggingLevel | undefined;
  /**
   * The era to speak to a child whose spec names none, instead of probing for the newest:
   * 'legacy' where mcpmux's one client (stdio) speaks 2025. A server on a v2 SDK serves both
   * eras, but its push-style requests (elicitInput, createMessage, listRoots) fail in
   * 2026-07-28, so a 2025 client's servers are spoken to as the client itself would.
   */
  childEra?(): 'legacy' | undefined;
  /** A request's error named URL elicitations (-32042): their ends are for the client `notify` reaches. */
  elicitationsRequired?(server: string, error: unknown, notify: NotifyClient | undefined): void;
  /** Called once a generation runs, before start() resolves, to bring it up to date (log level, subscriptions). */
  started?(server: string, connection: StartedChild): Promise<void>;
  /** Called when a running generation ends: it crashed, or it is being stopped. */
  ended?(server: string, reason: 'crashed' | StopReason): void;
}

export interface JSONRPCRequestLike {
  method: string;
  params?: Record<string, unknown> | undefined;
}

export interface CallOptions {
  /** The caller's cancellation; aborting it sends notifications/cancelled to the child. */
  signal?: AbortSignal;
  /** Receives the child's progress notifications for this call. */
  onprogress?: (progress: Progress) => void;
  /**
   * The client this call is made for: what the child asks during it (sampling, elicitation,
   * roots) goes there, and a 2026-07-28 child is told per request what that client can do.
   */
  origin?: InputOrigin;
  /** A 2026-07-28 child's input_required result is handed back as it is, not fulfilled here. */
  allowInputRequired?: boolean;
}

/** The client a call is made for, as a child's requests during that call reach it. */
export interface InputOrigin {
  /** What that client declared it can do (undefined: nothing known). */
  readonly capabilities: ClientCapabilities | undefined;
  /**
   * Asks that client; resolves with its answer. `timeoutMs` replaces the SDK's 60 s default
   * (a sampling request may wait for a person, then for a model).
   */
  ask(request: JSONRPCRequestLike, signal: AbortSignal, timeoutMs?: number): Promise<Record<string, unknown>>;
  /**
   * Tells that client something outside any request, as the completion of a URL-mode
   * elicitation it was asked (a 2025 client, on its session; absent for a 2026-07-28 one).
   */
  notify?(notification: JSONRPCRequestLike): Promise<void>;
  /**
   * A 2026-07-28 client's request that asked for the log messages sent while it is served
   * (request-logs.ts); absent, the child's log messages during it do not reach that client.
   */
  readonly logs?: RequestLogs | undefined;
}

/** What a 2026-07-28 request asked to hear, and where its log messages go (request-logs.ts). */
export interface RequestLogs {
  readonly level: LoggingLevel;
  send(notification: JSONRPCRequestLike): Promise<void>;
}

/** A child whose generation has just started, as the client's settings are brought to it. */
export interface StartedChild {
  readonly name: string;
  readonly capabilities: ServerCapabilities | undefined;
  setLogLevel(level: LoggingLevel): Promise<void>;
  subscribeResource(uri: string, signal?: AbortSignal): Promise<void>;
}
