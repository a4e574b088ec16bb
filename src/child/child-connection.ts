// One child server across its generations: spawns it, shakes hands, lists its catalog
// (tools, prompts, resources, templates), forwards requests, watches for a crash, and
// stops it with confirmed death. Each start is a
// new generation; events of an older generation's process are ignored.
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  ProtocolError,
  ProtocolErrorCode,
  SdkErrorCode,
  SdkError,
  SdkHttpError,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
} from '@modelcontextprotocol/client';
import type {
  CallToolRequest,
  CallToolResult,
  ClientCapabilities,
  LoggingLevel,
  PriorDiscovery,
  Progress,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/client';
import { MuxError, WireError, messageOf } from '../errors.js';
import type { Logger } from '../log.js';
import type { RemoteServerSpec, ServerSpec, StdioServerSpec } from '../server-spec.js';
import { runToCompletion, type ChildProcess, type ExitInfo, type StopTimings } from './child-process.js';
import { SourceWatcher } from './source-watcher.js';
import { transition, type ChildState } from './child-state.js';
import { StderrTail } from './stderr-tail.js';
import {
  CAPABILITY_ROWS,
  EMPTY_CATALOG,
  rowsChangedBy,
  type CapabilityRow,
  type Catalog,
  type CatalogKind,
} from '../router/capabilities.js';
import type { SpawnPolicy } from '../policy/spawn-policy.js';
import { UncheckedResult } from '../relay.js';
import { filterTools } from '../router/tool-filter.js';
import { ChildLane, callTimeoutError } from '../forwarding/fast-path.js';
import { StdioChildTransport } from '../transport/stdio-child-transport.js';
import { StreamClosedError } from '../transport/json-lines.js';
import { bridgeMissingResultType } from './result-type-bridge.js';
import { ResourceListen } from './resource-listen.js';

export type ChildEvent =
  | { type: 'crashed'; name: string; generation: number; error: string }
  | { type: 'catalog-changed'; name: string; generation: number; catalog: Catalog }
  | { type: 'sources-changed'; name: string; generation: number; paths: string[] };

export type StopReason = 'removed' | 'reloading' | 'shutdown';

export interface ChildConnectionOptions {
  name: string;
  spec: ServerSpec;
  /** What may run and how: base environment, cwd confinement, the audit line. */
  spawnPolicy: SpawnPolicy;
  logger: Logger;
  /** Start-up timeout when the spec gives none. Default 60 000 ms (a cold `npx` takes 20–60 s). */
  startupTimeoutMs?: number;
  /** Per-call timeout, restarted by each progress notification. Default 300 000 ms. */
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
  /** Told about crashes and catalog changes of the current generation. */
  onEvent?: (event: ChildEvent) => void;
}

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
  /** A notification of the child for the client (log messages, resource updates). */
  notify(server: string, notification: JSONRPCRequestLike): void;
  /** Called once a generation runs, before start() resolves, to bring it up to date (log level, subscriptions). */
  started?(server: string, connection: ChildConnection): Promise<void>;
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
  /** Asks that client; resolves with its answer. */
  ask(request: JSONRPCRequestLike, signal: AbortSignal): Promise<Record<string, unknown>>;
}

/** The status of a child as list_servers shows it (secrets are never included). */
export interface ChildStatus {
  name: string;
  status: 'starting' | 'running' | 'stopping' | 'crashed' | 'restarting';
  /** While it waits to be started again after a crash (restart policy), or once it gave up. */
  restart?: { attempt: number; max_attempts: number; next_try_in_seconds?: number; gave_up?: boolean };
  transport: ServerSpec['transport'];
  command?: string;
  args?: string[];
  url?: string;
  cwd?: string;
  env?: string[];
  headers?: string[];
  pid?: number;
  tools: string[];
  /** The last build (watch.build), with its output's end when it failed. */
  last_build?: { ok: boolean; seconds: number; output_tail?: string[] };
  /** A remote server: the HTTP transport that reached it. */
  http_transport?: 'streamable-http' | 'sse';
  /** The protocol revision it speaks (2025-11-25 and older: the 2025 era; 2026-07-28: the modern one). */
  protocol_version?: string;
  /** The filter its tools pass through, when it has one. */
  tool_filter?: { allow?: string[]; deny?: string[] };
  /** The prefix its tools and prompts are exposed under, when it is not the default `NAME__`. */
  prefix?: string;
  /** Prompt names, and how many resources and resource templates it lists (only when it has any). */
  prompts?: string[];
  resources?: number;
  resource_templates?: number;
  uptime_seconds?: number;
  /** Seconds since the child last answered a ping, and how many pings in a row it has missed since. */
  last_ping_ok_seconds_ago?: number;
  missed_pings?: number;
  exit?: ExitInfo;
  stderr_tail?: string[];
  last_error?: string;
}

const CLIENT_INFO = { name: 'mcpmux', version: '0.1.0' };
/**
 * How long a child may take to answer the 2026-07-28 probe (server/discover) before it is
 * taken for a 2025 server. A 2025 server answers an unknown method at once; this only
 * bounds one that ignores it or is slow to start (then initialize follows the probe on the
 * same pipe), and only on its first start (the verdict is remembered). A stdio child only:
 * for a remote one the SDK takes a probe without answer for a failed connection.
 */
const ERA_PROBE_TIMEOUT_MS = 3000;

/** The SDK's negotiation mode for a spec's `era` (auto when it names none). */
function negotiationMode(era: ServerSpec['era']): 'auto' | 'legacy' | { pin: '2026-07-28' } {
  return era === 'modern' ? { pin: '2026-07-28' } : (era ?? 'auto');
}
const DRAIN_AFTER_EXIT_MS = 250;
/** Quiet time after a child's list_changed before it is re-listed, and the longest a burst may defer it. */
const REFRESH_QUIET_MS = 30;
const REFRESH_MAX_WAIT_MS = 250;

interface Generation {
  readonly number: number;
  readonly tail: StderrTail;
  readonly startup: AbortController;
  process?: ChildProcess;
  client?: Client;
  transportClosed?: Promise<void>;
  cleanup?: Promise<unknown>;
  /** Settles once an unexpected end has been judged (crash recorded), for calls that saw the close first. */
  ended?: Promise<void>;
  /** Why the calls of this generation were ended, once they were (the error each in-flight call gets). */
  callsEnded?: MuxError;
  /** A remote server: which HTTP transport reached it. */
  remote?: 'streamable-http' | 'sse';
  /** Why the connection was judged lost when no process exit says so (a remote server that stopped answering). */
  lostBecause?: string;
  /** The liveness pings of this generation. */
  ping?: { timer: NodeJS.Timeout; lastOk: number; missed: number; inFlight: boolean };
  /**
   * The clients of the calls in flight, oldest first. A 2025 server's request names no call,
   * so it goes to the client of the most recent one (in a 2026-07-28 round it is that call's).
   */
  readonly origins: InputOrigin[];
  /** A 2026-07-28 server's stream of the resources its client subscribed to. */
  resourceListen?: ResourceListen;
  /** The log level a 2026-07-28 server is told on each request (it has no logging/setLevel). */
  logLevel?: LoggingLevel;
  /** The forwarding fast path's calls to this generation (a stdio child). */
  lane?: ChildLane;
  /** The lists a burst of the child's list_changed asks to re-list, once it is quiet. */
  pendingRefresh?: { rows: Set<CapabilityRow>; since: number; timer: NodeJS.Timeout | undefined } | undefined;
}

export class ChildConnection {
  readonly name: string;
  readonly spec: ServerSpec;
  readonly #options: ChildConnectionOptions;
  readonly #log: Logger;
  #state: ChildState = { kind: 'idle' };
  #gen: Generation | undefined;
  #generationCounter = 0;
  #starting: Promise<readonly Tool[]> | undefined;
  /** A process spawned for this server before it was started (a configured server): the next start adopts it. */
  #spawned: Promise<ChildProcess> | undefined;
  #stopping: Promise<void> | undefined;
  #watcher: SourceWatcher | undefined;
  #lastBuild: ChildStatus['last_build'];
  /** Which era the server spoke last time, so that a restart skips the probe. */
  #era: PriorDiscovery | undefined;
  /** The last start failed because the server exited on the era probe (it is then known as 2025). */
  #exitedOnProbe = false;
  /** Settles when a restart under way (a reload) is over; calls wait for it. */
  #held: Promise<void> | undefined;
  /** How many restarts the policy tried before it gave up (shown while it stays crashed). */
  #gaveUpAfter: number | undefined;

  constructor(options: ChildConnectionOptions) {
    this.name = options.name;
    this.spec = options.spec;
    this.#options = options;
    this.#log = options.logger;
    this.#watchSources();
  }

  /**
   * Runs the server's build (watch.build) in its cwd and environment. The running process is
   * not touched; a failure throws BUILD_FAILED with the end of the build's output.
   */
  /** Whether the server has a build command (watch.build). */
  get canBuild(): boolean {
    return this.spec.transport === 'stdio' && this.spec.watch?.build !== undefined;
  }

  async build(): Promise<void> {
    const spec = this.spec;
    const build = spec.transport === 'stdio' ? spec.watch?.build : undefined;
    if (spec.transport !== 'stdio' || !build) {
      throw new MuxError(
        'INVALID_ARGUMENTS',
        `server '${this.name}' has no build command; give watch.build (e.g. ["npm", "run", "build"]) when adding it`,
      );
    }
    const policy = this.#options.spawnPolicy;
    const cwd = policy.workingDirectory(this.name, spec);
    const line = [build.command, ...build.args].join(' ');
    const run = await runToCompletion(
      {
        command: build.command,
        args: build.args,
        env: { ...policy.baseEnv, ...spec.env },
        ...(cwd !== undefined && { cwd }),
      },
      { timeoutMs: this.#options.buildTimeoutMs ?? 300_000 },
    );
    const ok = run.exit.code === 0 && !run.timedOut;
    const tail = run.output.trimEnd().split('\n').slice(-20);
    this.#lastBuild = { ok, seconds: Math.round(run.ms / 100) / 10, ...(!ok && { output_tail: tail }) };
    if (ok) return;
    const why = run.timedOut ? 'timed out' : `failed (${describeEnd(run.exit)})`;
    throw new MuxError(
      'BUILD_FAILED',
      `build of server '${this.name}' (${line}) ${why}; the running process is kept\n${tail.join('\n')}`,
    );
  }

  /** The author's dev loop: a change of the watched files is reported to the registry, which rebuilds and reloads. */
  #watchSources(): void {
    const spec = this.spec;
    if (spec.transport !== 'stdio' || !spec.watch) return;
    let cwd: string;
    try {
      cwd = this.#options.spawnPolicy.workingDirectory(this.name, spec) ?? process.cwd();
    } catch (error) {
      this.#log.warn(`[${this.name}] not watching its sources: ${messageOf(error)}`);
      return;
    }
    this.#watcher = new SourceWatcher({
      cwd,
      globs: spec.watch.paths,
      debounceMs: spec.watch.debounceMs,
      onChange: (paths) =>
        this.#options.onEvent?.({
          type: 'sources-changed',
          name: this.name,
          generation: this.generation,
          paths,
        }),
      onError: (error) => this.#log.warn(`[${this.name}] watching its sources: ${error.message}`),
    });
  }

  get state(): ChildState {
    return this.#state;
  }

  get generation(): number {
    return this.#gen?.number ?? 0;
  }

  /** What the running generation publishes (empty otherwise). */
  get catalog(): Catalog {
    return this.#state.kind === 'running' ? this.#state.catalog : EMPTY_CATALOG;
  }

  /** Tools of the running generation (empty otherwise). */
  get tools(): readonly Tool[] {
    return this.catalog.tools;
  }

  /** What the running generation said it can do at initialize. */
  get capabilities(): ServerCapabilities | undefined {
    return this.#state.kind === 'running' ? this.#gen?.client?.getServerCapabilities() : undefined;
  }

  /** What the running child says about itself: its name, version, title and instructions. */
  get about(): { name?: string; version?: string; title?: string; instructions?: string } | undefined {
    const client = this.#state.kind === 'running' ? this.#gen?.client : undefined;
    if (!client) return undefined;
    const info = client.getServerVersion();
    const instructions = client.getInstructions();
    return {
      ...(info?.name !== undefined && { name: info.name }),
      ...(info?.version !== undefined && { version: info.version }),
      ...(info?.title !== undefined && { title: info.title }),
      ...(instructions !== undefined && { instructions }),
    };
  }

  /**
   * Starts a new generation; resolves with its tools once it answered initialize and listed
   * its catalog. With `handshakeAfter`, a local server is spawned at once but spoken to only
   * once that settles (the client has said what it can do): its start-up (an `npx`
   * download) overlaps the client's handshake. With `spawned`, its process already runs.
   */
  start(
    options: { handshakeAfter?: Promise<unknown>; spawned?: Promise<ChildProcess> } = {},
  ): Promise<readonly Tool[]> {
    if (options.spawned) this.#spawned = options.spawned;
    this.#starting ??= this.#startOrRetryLegacy(options.handshakeAfter).finally(
      () => (this.#starting = undefined),
    );
    return this.#starting;
  }

  /** Starts; a server that exited on the era probe is started again at once, with initialize. */
  async #startOrRetryLegacy(handshakeAfter: Promise<unknown> | undefined): Promise<readonly Tool[]> {
    try {
      return await this.#start(handshakeAfter);
    } catch (error) {
      if (!this.#exitedOnProbe) throw error;
      this.#exitedOnProbe = false;
      return await this.#start(undefined);
    }
  }

  /** Stops the current generation; in-flight calls fail at once. Joins a stop under way. */
  stop(reason: StopReason): Promise<void> {
    this.#stopping ??= this.#stop(reason).finally(() => (this.#stopping = undefined));
    return this.#stopping;
  }

  /** Forwards a tools/call with the caller's cancellation and progress. */
  callTool(params: CallToolRequest['params'], options: CallOptions = {}): Promise<CallToolResult> {
    return this.request('tools/call', params, options) as Promise<CallToolResult>;
  }

  /**
   * Forwards one request to the running generation with the caller's cancellation and
   * progress, and returns the child's result unchecked (the client checks it). Errors say
   * what happened to the child: removed, reloaded, crashed, timed out.
   */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    if (this.#state.kind !== 'running' && this.#held) await this.#held;
    const gen = this.#gen;
    if (this.#state.kind !== 'running' || !gen?.client) throw this.#notRunningError();
    const { origin } = options;
    if (origin) gen.origins.push(origin);
    // A 2026-07-28 server reads from each request what the client can do (the caller's, not
    // all of them) and how much it wants to hear.
    if (gen.client.getProtocolEra() === 'modern')
      params = withEnvelope(
        params,
        origin?.capabilities && childCapabilities(origin.capabilities),
        gen.logLevel,
      );
    try {
      return await gen.client.request({ method, ...(params !== undefined && { params }) }, UncheckedResult, {
        ...(options.signal && { signal: options.signal }),
        timeout: this.#options.callTimeoutMs ?? 300_000,
        resetTimeoutOnProgress: true,
        ...(options.onprogress && { onprogress: options.onprogress }),
        ...(options.allowInputRequired && { allowInputRequired: true }),
      });
    } catch (error) {
      // The generation's calls were ended by us (removed, reloaded, crashed): say why.
      if (gen.callsEnded) throw gen.callsEnded;
      if (this.#lostRemote(gen, error)) {
        await gen.ended;
        throw gen.callsEnded ?? this.#notRunningError();
      }
      if (
        (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) ||
        error instanceof StreamClosedError
      ) {
        // The close is seen here before the crash is recorded (a write to a dying child fails even
        // before its pipe is seen closed): wait for the verdict so the error says why.
        const judged = delay(3 * DRAIN_AFTER_EXIT_MS + 100);
        await Promise.race([gen.transportClosed, judged]);
        await Promise.race([gen.ended, judged]);
        throw gen.callsEnded ?? this.#notRunningError();
      }
      if (
        error instanceof SdkError &&
        error.code === SdkErrorCode.RequestTimeout &&
        !options.signal?.aborted
      ) {
        const what = method === 'tools/call' ? `tool '${String(params?.['name'])}'` : method;
        throw callTimeoutError(this.name, what, this.#options.callTimeoutMs ?? 300_000);
      }
      throw error;
    } finally {
      if (origin) gen.origins.splice(gen.origins.lastIndexOf(origin), 1);
    }
  }

  /**
   * Subscribes to a resource's updates (they come to the upstream's notify): resources/subscribe
   * for a 2025 server, the resource set of a subscriptions/listen stream for a 2026-07-28 one.
   */
  async subscribeResource(uri: string, signal?: AbortSignal): Promise<void> {
    const gen = this.#gen;
    if (this.#state.kind !== 'running' || !gen?.client) throw this.#notRunningError();
    if (!this.speaksModern) {
      await this.request('resources/subscribe', { uri }, signal && { signal });
      return;
    }
    if (!gen.client.getServerCapabilities()?.resources?.subscribe)
      throw new MuxError('NOT_SUPPORTED', `server '${this.name}' does not offer resource subscriptions`);
    await (gen.resourceListen ??= new ResourceListen(this.name, gen.client)).add(uri);
  }

  async unsubscribeResource(uri: string, signal?: AbortSignal): Promise<void> {
    const gen = this.#gen;
    if (this.#state.kind !== 'running' || !gen?.client) return;
    if (this.speaksModern) await gen.resourceListen?.remove(uri);
    else await this.request('resources/unsubscribe', { uri }, signal && { signal });
  }

  /** Sets the level of log messages the child sends (a 2026-07-28 one is told on each request). */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    const gen = this.#gen;
    if (this.#state.kind !== 'running' || !gen?.client) throw this.#notRunningError();
    if (this.speaksModern) gen.logLevel = level;
    else await this.request('logging/setLevel', { level });
  }

  /** The restart policy's next attempt waits (the crash is kept, for list_servers and errors). */
  markRestarting(attempt: number, maxAttempts: number, nextAt: number): void {
    const s = this.#state;
    if (s.kind !== 'crashed' && s.kind !== 'restarting') return;
    this.#gaveUpAfter = undefined;
    this.#setState({ ...s, kind: 'restarting', attempt, maxAttempts, nextAt });
  }

  /** The restart policy gave up after `attempts`: crashed, as without one, saying how often it tried. */
  giveUpRestarting(attempts: number): void {
    const s = this.#state;
    if (s.kind !== 'restarting' && s.kind !== 'crashed') return;
    this.#gaveUpAfter = attempts;
    if (s.kind === 'crashed') return; // (its last attempt's failure already says why)
    const { at, error, exit } = s;
    this.#setState({ kind: 'crashed', at, error, ...(exit && { exit }) });
  }

  /**
   * Calls that arrive while `restart` runs (a reload: stop, then start) wait for it, then go
   * to the new process, instead of failing because none is running for a moment.
   */
  holdCallsDuring(restart: Promise<unknown>): void {
    const held = restart.then(
      () => {},
      () => {},
    );
    this.#held = held;
    void held.then(() => {
      if (this.#held === held) this.#held = undefined;
    });
  }

  /** Whether the running generation speaks the 2026-07-28 protocol (input arrives as input_required results). */
  /**
   * The fast path's way to this child: only a running 2025 server on stdio has one (a
   * 2026-07-28 server's calls carry the client's envelope and may come back input_required).
   */
  get lane(): ChildLane | undefined {
    const gen = this.#gen;
    return this.#state.kind === 'running' && gen?.lane && gen.client?.getProtocolEra() !== 'modern'
      ? gen.lane
      : undefined;
  }

  get speaksModern(): boolean {
    return this.#gen?.client?.getProtocolEra() === 'modern';
  }

  /** Sends a notification to the running generation (dropped when none runs: a new one starts up to date). */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const client = this.#state.kind === 'running' ? this.#gen?.client : undefined;
    await client?.notification({ method, ...(params !== undefined && { params }) });
  }

  /** A snapshot of this child for list_servers. */
  status(now = Date.now()): ChildStatus {
    const s = this.#state;
    const spec = this.spec;
    const out: ChildStatus = {
      name: this.name,
      // 'stopped' is only seen between the two halves of a reload.
      status: s.kind === 'idle' ? 'starting' : s.kind === 'stopped' ? 'stopping' : s.kind,
      transport: spec.transport,
      tools: [],
      ...(spec.prefix !== undefined && { prefix: spec.prefix }),
    };
    if (spec.transport === 'stdio') {
      out.command = spec.command;
      out.args = [...spec.args];
      if (spec.cwd !== undefined) out.cwd = spec.cwd;
      const envNames = Object.keys(spec.env);
      if (envNames.length > 0) out.env = envNames;
    } else {
      out.url = spec.url;
      const headerNames = Object.keys(spec.headers);
      if (headerNames.length > 0) out.headers = headerNames;
    }
    if (spec.toolFilter) {
      const { allow, deny } = spec.toolFilter;
      out.tool_filter = { ...(allow && { allow: [...allow] }), ...(deny && { deny: [...deny] }) };
    }
    if (this.#lastBuild) out.last_build = this.#lastBuild;
    const pid = this.#gen?.process?.pid;
    if (pid !== undefined && (s.kind === 'running' || s.kind === 'starting' || s.kind === 'stopping'))
      out.pid = pid;
    if (s.kind === 'running') {
      out.tools = s.catalog.tools.map((t) => t.name);
      if (s.catalog.prompts.length > 0) out.prompts = s.catalog.prompts.map((p) => p.name);
      if (s.catalog.resources.length > 0) out.resources = s.catalog.resources.length;
      if (s.catalog.resourceTemplates.length > 0) out.resource_templates = s.catalog.resourceTemplates.length;
      out.uptime_seconds = Math.round((now - s.since) / 100) / 10;
      if (this.#gen?.remote) out.http_transport = this.#gen.remote;
      const version = this.#gen?.client?.getNegotiatedProtocolVersion();
      if (version !== undefined) out.protocol_version = version;
      const ping = this.#gen?.ping;
      if (ping) {
        out.last_ping_ok_seconds_ago = Math.round((now - ping.lastOk) / 100) / 10;
        out.missed_pings = ping.missed;
      }
    }
    if (s.kind === 'crashed' || s.kind === 'restarting') {
      if (s.exit) out.exit = s.exit;
      out.last_error = s.error;
    }
    if (s.kind === 'restarting')
      out.restart = {
        attempt: s.attempt,
        max_attempts: s.maxAttempts,
        next_try_in_seconds: Math.max(0, Math.round((s.nextAt - now) / 100) / 10),
      };
    else if (s.kind === 'crashed' && this.#gaveUpAfter !== undefined)
      out.restart = { attempt: this.#gaveUpAfter, max_attempts: this.#gaveUpAfter, gave_up: true };
    if (s.kind === 'stopped' && s.exit) out.exit = s.exit;
    const crashed = s.kind === 'crashed' || s.kind === 'restarting';
    const tail = this.#gen?.tail.lines(crashed ? undefined : 10) ?? [];
    if (tail.length > 0) out.stderr_tail = tail;
    return out;
  }

  #setState(next: ChildState): void {
    this.#state = transition(this.#state, next);
  }

  #notRunningError(): MuxError {
    const s = this.#state;
    const reload = `call reload_server {"name":"${this.name}"}`;
    switch (s.kind) {
      case 'crashed':
        return new MuxError(
          'SERVER_CRASHED',
          `server '${this.name}' crashed (${describeEnd(s.exit, s.error)}); ${reload}`,
        );
      case 'restarting':
        return new MuxError(
          'SERVER_CRASHED',
          `server '${this.name}' crashed (${describeEnd(s.exit, s.error)}) and is being restarted (attempt ${s.attempt} of ${s.maxAttempts})`,
        );
      case 'starting':
        return new MuxError('SERVER_BUSY', `server '${this.name}' is starting; try again when it is running`);
      case 'stopping':
        return new MuxError('SERVER_STOPPED', `server '${this.name}' is stopping`);
      default:
        return new MuxError('SERVER_STOPPED', `server '${this.name}' is not running; ${reload}`);
    }
  }

  async #start(handshakeAfter: Promise<unknown> | undefined): Promise<readonly Tool[]> {
    await this.#gen?.cleanup; // a crashed generation's group must be gone first
    const spec = this.spec;
    const gen: Generation = {
      number: ++this.#generationCounter,
      tail: new StderrTail({
        maxLines: this.#options.stderrLines ?? 50,
        onLine: (line) => this.#log.info(`[${this.name}] ${line}`),
      }),
      startup: new AbortController(),
      origins: [],
    };
    this.#gen = gen;
    this.#setState({ kind: 'starting', since: Date.now() });
    const timeoutMs = spec.startupTimeoutMs ?? this.#options.startupTimeoutMs ?? 60_000;
    const armTimeout = () =>
      setTimeout(
        () =>
          gen.startup.abort(
            new MuxError(
              'STARTUP_TIMEOUT',
              `server '${this.name}' did not finish start-up (initialize and tools/list) within ${timeoutMs / 1000} s`,
            ),
          ),
        timeoutMs,
      );
    // The time spent waiting for the client to open does not count against the server.
    let settled = false;
    let timer = handshakeAfter ? undefined : armTimeout();
    void handshakeAfter?.then(() => {
      if (!settled) timer = armTimeout();
    });
    try {
      const catalog = await this.#handshake(gen, spec, handshakeAfter);
      if (this.#gen !== gen || this.#state.kind !== 'starting')
        throw gen.startup.signal.reason ?? this.#notRunningError();
      this.#setState({
        kind: 'running',
        since: Date.now(),
        ...(gen.process && { pid: gen.process.pid }),
        catalog,
      });
      this.#startPinging(gen);
      await this.#options.upstream?.started?.(this.name, this).catch((error: unknown) => {
        this.#log.warn(
          `[${this.name}] bringing the new process up to date (log level, subscriptions) failed: ${messageOf(error)}`,
        );
      });
      return catalog.tools;
    } catch (error) {
      const failure = await this.#startFailure(gen, error);
      if (this.#gen === gen && this.#state.kind === 'starting') {
        this.#setState({
          kind: 'crashed',
          at: Date.now(),
          error: failure.message,
          ...(gen.process?.exit && { exit: gen.process.exit }),
        });
        gen.cleanup = this.#release(gen);
      }
      throw failure;
    } finally {
      settled = true;
      clearTimeout(timer);
    }
  }

  /** Connects the generation (spawn, or reach the URL), shakes hands and lists its catalog. */
  async #handshake(
    gen: Generation,
    spec: ServerSpec,
    handshakeAfter: Promise<unknown> | undefined,
  ): Promise<Catalog> {
    const options = { signal: gen.startup.signal, timeout: 2 ** 31 - 1 };
    if (spec.transport === 'http') {
      await handshakeAfter;
      const client = await this.#connectRemote(gen, spec, options);
      return this.#listCatalog(client, CAPABILITY_ROWS, EMPTY_CATALOG, options);
    }
    return this.#spawnAndConnect(gen, spec, options, handshakeAfter);
  }

  /**
   * A remote server: streamable HTTP first; a server that answers that with 400, 404 or
   * 405 is taken for one of the older HTTP+SSE kind and tried again that way (the SDK's
   * advice for clients that must reach both).
   */
  async #connectRemote(
    gen: Generation,
    spec: RemoteServerSpec,
    options: { signal: AbortSignal; timeout: number },
  ): Promise<Client> {
    const url = new URL(spec.url);
    const requestInit: RequestInit = { headers: { ...spec.headers } };
    const streamable = this.#newClient(gen);
    try {
      await streamable.connect(
        new StreamableHTTPClientTransport(url, { requestInit }),
        this.#connectOptions(options),
      );
      gen.remote = 'streamable-http';
      this.#settleEra(gen, streamable);
      return streamable;
    } catch (error) {
      if (
        gen.startup.signal.aborted ||
        !(error instanceof SdkHttpError && [400, 404, 405].includes(error.status ?? 0))
      )
        throw error;
      this.#log.info(
        `[${this.name}] ${spec.url} does not speak streamable HTTP (${error.message}); trying HTTP+SSE`,
      );
      await streamable.close().catch(() => {});
    }
    const sse = this.#newClient(gen);
    const headers = { ...spec.headers };
    await sse.connect(
      new SSEClientTransport(url, {
        requestInit,
        eventSourceInit: {
          fetch: (input, init) =>
            fetch(input, {
              ...init,
              headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers },
            }),
        },
      }),
      options,
    );
    gen.remote = 'sse';
    this.#settleEra(gen, sse);
    return sse;
  }

  async #spawnAndConnect(
    gen: Generation,
    spec: StdioServerSpec,
    options: { signal: AbortSignal; timeout: number },
    handshakeAfter: Promise<unknown> | undefined,
  ): Promise<Catalog> {
    const signal = options.signal;
    // A configured server was spawned by main.ts before the rest of mcpmux loaded: its first start adopts that process.
    const spawned = this.#spawned;
    this.#spawned = undefined;
    const proc = await (spawned ?? this.#options.spawnPolicy.spawn(this.name, spec));
    gen.process = proc;
    gen.tail.follow(proc.stderr);
    // Spawned; spoken to once the client has said what it can do (or at once if it exits meanwhile).
    if (handshakeAfter) await Promise.race([handshakeAfter, proc.exited]);
    if (signal.aborted) throw signal.reason;
    const transport = new StdioChildTransport(proc, {
      onSkippedLine: (line) =>
        this.#log.warn(`[${this.name}] skipped a non-JSON line on stdout: ${line.slice(0, 200)}`),
      onDropped: (why) => this.#log.warn(`[${this.name}] ${why}`),
      ...(this.#options.maxMessageBytes !== undefined && { maxMessageBytes: this.#options.maxMessageBytes }),
    });
    const lane = new ChildLane({
      server: this.name,
      send: (message) => transport.send(message),
      callTimeoutMs: this.#options.callTimeoutMs ?? 300_000,
    });
    transport.divert = (message, bytes) => lane.divert(message, bytes);
    gen.lane = lane;
    const client = this.#newClient(gen);
    void proc.exited.then(() => this.#noticeEnd(gen));
    // An exit during start-up must fail the start at once, not wait for the timeout.
    const exitedEarly = proc.exited.then(() => Promise.reject(new MuxError('STARTUP_FAILED', 'exited')));
    exitedEarly.catch(() => {});
    const probing = this.#era === undefined;
    const connecting = client.connect(transport, this.#connectOptions(options));
    try {
      await Promise.race([connecting, exitedEarly]);
    } catch (error) {
      // A server pinned to 2026-07-28 that does not speak it: the SDK's verdict, not the exit it caused.
      const refusal = await Promise.race([
        connecting.then(
          () => undefined,
          (e: unknown) => e,
        ),
        delay(100),
      ]);
      // (Only a pinned server is refused for its era; a closed connection is the process's doing.)
      const refused =
        this.spec.era === 'modern' &&
        refusal instanceof SdkError &&
        refusal.code === SdkErrorCode.EraNegotiationFailed &&
        !/connection closed/i.test(refusal.message);
      if (refused) {
        throw new MuxError(
          'PROTOCOL_MISMATCH',
          `server '${this.name}' does not speak the 2026-07-28 protocol (its era is set to modern): ${refusal.message}; set era to auto or legacy`,
        );
      }
      // Some servers exit on any request before initialize: next time, go straight to it.
      if (probing && this.spec.era === undefined)
        await Promise.race([proc.exited, delay(DRAIN_AFTER_EXIT_MS)]);
      if (probing && this.spec.era === undefined && proc.exit !== undefined) {
        this.#era = { kind: 'legacy' };
        this.#exitedOnProbe = true;
        this.#log.warn(
          `[${this.name}] exited while asked server/discover (the 2026-07-28 probe); starting it again with initialize`,
        );
      }
      throw error;
    }
    this.#settleEra(gen, client);
    return await Promise.race([
      this.#listCatalog(client, CAPABILITY_ROWS, EMPTY_CATALOG, options),
      exitedEarly,
    ]);
  }

  /** Connect options with the era this server spoke last time, when it is known. */
  #connectOptions(options: { signal: AbortSignal; timeout: number }) {
    return this.#era ? { ...options, prior: this.#era } : options;
  }

  /**
   * Remembers the era the server speaks; a 2026-07-28 server's list changes come on a
   * subscriptions/listen stream, which is opened here for every list it says can change.
   */
  #settleEra(gen: Generation, client: Client): void {
    const discover = client.getDiscoverResult();
    this.#era = discover ? { kind: 'modern', discover } : { kind: 'legacy' };
    if (client.getProtocolEra() !== 'modern') return;
    if (client.transport)
      bridgeMissingResultType(client.transport, () =>
        this.#log.warn(
          `[${this.name}] answers without resultType, which 2026-07-28 requires; such results are taken as complete`,
        ),
      );
    const capabilities = client.getServerCapabilities() ?? {};
    const filter = {
      ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
      ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
      ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
    };
    if (Object.keys(filter).length === 0) return;
    // Not awaited: a server that never acknowledges the stream must not hold up its start;
    // it only means its changes go unheard, which is logged. Once it is acknowledged, the lists
    // are read again, so a change made before the stream was open is not missed.
    client.listen(filter).then(
      (subscription) => {
        this.#log.debug(
          () =>
            `[${this.name}] listening for ${Object.keys(subscription.honoredFilter ?? filter).join(', ')}`,
        );
        this.#refresh(
          gen,
          CAPABILITY_ROWS.filter((row) => capabilities[row.capability]?.listChanged),
        );
      },
      (error: unknown) =>
        this.#log.warn(
          `[${this.name}] its list changes will not be heard: subscriptions/listen failed (${messageOf(error)})`,
        ),
    );
  }

  /** The generation's SDK client, told what mcpmux's client can do, with every relay and watch in place. */
  #newClient(gen: Generation): Client {
    const upstream = this.#options.upstream;
    const declared = upstream ? childCapabilities(upstream.clientCapabilities()) : {};
    // Both eras: probe with server/discover, fall back to initialize (2025) when it is not understood.
    const client = new Client(CLIENT_INFO, {
      capabilities: declared,
      versionNegotiation: {
        mode: negotiationMode(this.spec.era),
        probe: { timeoutMs: ERA_PROBE_TIMEOUT_MS },
      },
    });
    gen.client = client;
    if (upstream) this.#relayToUpstream(gen, client, upstream, declared);
    gen.transportClosed = new Promise<void>((resolve) => {
      client.onclose = () => {
        resolve();
        if (gen.client === client) this.#noticeEnd(gen);
      };
    });
    client.onerror = (error) => this.#log.debug(() => `[${this.name}] protocol: ${messageOf(error)}`);
    for (const row of CAPABILITY_ROWS) {
      client.setNotificationHandler(row.listChanged, () =>
        this.#refreshWhenQuiet(gen, rowsChangedBy(row.listChanged)),
      );
    }
    return client;
  }

  /**
   * Requests of the child for what the client declared go up and their answers come back;
   * anything else gets an error that says the client cannot do it. Log messages and
   * resource updates go up as they come.
   */
  #relayToUpstream(
    gen: Generation,
    client: Client,
    upstream: ChildUpstream,
    declared: ClientCapabilities,
  ): void {
    const relay = (request: JSONRPCRequestLike, ctx: { mcpReq: { signal: AbortSignal } }) =>
      upstream.request(this.name, request, ctx.mcpReq.signal, gen.origins.at(-1)) as Promise<never>;
    if (declared.sampling) client.setRequestHandler('sampling/createMessage', relay);
    if (declared.elicitation) client.setRequestHandler('elicitation/create', relay);
    if (declared.roots) client.setRequestHandler('roots/list', relay);
    client.fallbackRequestHandler = async (request) => {
      throw new WireError(ProtocolErrorCode.MethodNotFound, undeclaredRequestMessage(request.method));
    };
    client.setNotificationHandler('notifications/message', (n) => upstream.notify(this.name, n));
    client.setNotificationHandler('notifications/resources/updated', (n) => upstream.notify(this.name, n));
    client.fallbackNotificationHandler = async (n) =>
      this.#log.debug(() => `[${this.name}] ${n.method} is not relayed to the client`);
  }

  /** Lists `rows` (those the child declared) on top of `base`, every page of each. */
  async #listCatalog(
    client: Client,
    rows: readonly CapabilityRow[],
    base: Catalog,
    options: { signal: AbortSignal; timeout: number },
  ): Promise<Catalog> {
    const capabilities = client.getServerCapabilities() ?? {};
    const lists = await Promise.all(
      rows.map(
        async (row) =>
          [row.kind, capabilities[row.capability] ? await this.#listAll(client, row, options) : []] as const,
      ),
    );
    return Object.freeze({ ...base, ...Object.fromEntries(lists) }) as Catalog;
  }

  async #listAll<K extends CatalogKind>(
    client: Client,
    row: CapabilityRow<K>,
    options: { signal: AbortSignal; timeout: number },
  ) {
    const items: unknown[] = [];
    let cursor: string | undefined;
    do {
      let page;
      try {
        page = await client.request(
          { method: row.listMethod, params: cursor === undefined ? {} : { cursor } },
          row.listResultSchema,
          options,
        );
      } catch (error) {
        if (!this.#isEmptyList(row, error, options.signal)) throw error;
        break;
      }
      items.push(...(page[row.kind] as unknown[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    // A filtered-out tool is not there at all, for every part of mcpmux.
    return Object.freeze(row.kind === 'tools' ? filterTools(items as Tool[], this.spec.toolFilter) : items);
  }

  /**
   * Many servers declare `resources` but serve no resources/templates/list, or declare a
   * capability they never implemented; others fail resources/list when a backend is down.
   * Such a list is empty, not a failed start: only tools/list is essential. A timeout or an
   * abort still fails the start.
   */
  #isEmptyList(
    row: Pick<CapabilityRow, 'kind' | 'capability' | 'listMethod'>,
    error: unknown,
    signal: AbortSignal,
  ): boolean {
    // A timeout or a closed connection is the SDK's own error (SdkError), never an empty list.
    if (signal.aborted || !(error instanceof ProtocolError)) return false;
    if (error.code === ProtocolErrorCode.MethodNotFound) {
      this.#log.debug(
        () => `[${this.name}] declares '${row.capability}' but has no ${row.listMethod}; taking it as empty`,
      );
      return true;
    }
    if (row.kind === 'tools') return false;
    this.#log.warn(`[${this.name}] ${row.listMethod} failed (${error.message}); taking it as empty`);
    return true;
  }

  /** Builds the error a failed start reports: why, the exit, and the last stderr lines. */
  async #startFailure(gen: Generation, error: unknown): Promise<MuxError> {
    const signal = gen.startup.signal;
    if (signal.aborted && signal.reason instanceof MuxError && signal.reason.code !== 'STARTUP_TIMEOUT')
      return signal.reason;
    if (
      error instanceof MuxError &&
      (error.code === 'SPAWN_FAILED' ||
        error.code === 'NOT_SUPPORTED' ||
        error.code === 'NOT_ALLOWED' ||
        error.code === 'PROTOCOL_MISMATCH')
    )
      return error;
    const proc = gen.process;
    // Give a dying process a moment so the report has its exit code and last words.
    if (proc && !proc.exit) await Promise.race([proc.exited, delay(200)]);
    await Promise.race([gen.transportClosed, delay(50)]);
    let why: string;
    if (signal.aborted && signal.reason instanceof MuxError) why = signal.reason.message;
    else if (this.spec.transport === 'http') {
      why = `server '${this.name}' could not be reached at ${this.spec.url}: ${connectionFailureCode(error) ?? messageOf(error)}`;
    } else if (proc?.exit) {
      why = `server '${this.name}' exited (${describeEnd(proc.exit)}) before it finished the MCP handshake; is '${this.#commandLine()}' an MCP server speaking JSON-RPC on stdio?`;
    } else why = `server '${this.name}' failed during start-up: ${messageOf(error)}`;
    const tail = gen.tail.lines(20);
    const message =
      tail.length > 0
        ? `${why}\nlast stderr lines:\n${tail.join('\n')}`
        : `${why} (it wrote nothing on stderr)`;
    return new MuxError(signal.reason instanceof MuxError ? signal.reason.code : 'STARTUP_FAILED', message, {
      cause: error,
    });
  }

  #commandLine(): string {
    const spec = this.spec;
    return spec.transport === 'stdio' ? [spec.command, ...spec.args].join(' ') : spec.url;
  }

  /** Re-lists what a list_changed of the child says changed, and reports the new catalog. */
  /**
   * A child that announces its changes in a burst (one list_changed per tool it registers) is
   * re-listed once, when it has been quiet for a moment (never later than REFRESH_MAX_WAIT_MS).
   */
  #refreshWhenQuiet(gen: Generation, rows: readonly CapabilityRow[]): void {
    const pending = (gen.pendingRefresh ??= { rows: new Set(), since: Date.now(), timer: undefined });
    for (const row of rows) pending.rows.add(row);
    clearTimeout(pending.timer);
    const wait = Math.min(REFRESH_QUIET_MS, Math.max(0, pending.since + REFRESH_MAX_WAIT_MS - Date.now()));
    pending.timer = setTimeout(() => {
      gen.pendingRefresh = undefined;
      this.#refresh(gen, [...pending.rows]);
    }, wait);
  }

  #refresh(gen: Generation, rows: readonly CapabilityRow[]): void {
    const client = gen.client;
    if (!client || this.#gen !== gen || this.#state.kind !== 'running') return;
    const options = { signal: gen.startup.signal, timeout: this.#options.callTimeoutMs ?? 300_000 };
    this.#listCatalog(client, rows, this.#state.catalog, options).then(
      (listed) => {
        if (this.#gen !== gen || this.#state.kind !== 'running') return;
        // Only the re-listed rows are taken: another refresh may have replaced the others meanwhile.
        const catalog = Object.freeze({
          ...this.#state.catalog,
          ...Object.fromEntries(rows.map((row) => [row.kind, listed[row.kind]])),
        }) as Catalog;
        this.#setState({ ...this.#state, catalog });
        this.#options.onEvent?.({
          type: 'catalog-changed',
          name: this.name,
          generation: gen.number,
          catalog,
        });
      },
      (error) =>
        this.#log.warn(
          `[${this.name}] re-listing ${rows.map((r) => r.kind).join(' and ')} after list_changed failed: ${messageOf(error)}`,
        ),
    );
  }

  /** Called on both signs of an end (exit, close); the first one while running is judged. */
  #noticeEnd(gen: Generation): void {
    if (this.#gen === gen && this.#state.kind === 'running') gen.ended ??= this.#onUnexpectedEnd(gen);
  }

  /** The process exited or the connection closed without being asked: a crash. */
  async #onUnexpectedEnd(gen: Generation): Promise<void> {
    if (this.#gen !== gen || this.#state.kind !== 'running') return;
    // Let the last messages on stdout arrive before failing what is in flight.
    await Promise.race([gen.transportClosed, delay(DRAIN_AFTER_EXIT_MS)]);
    if (gen.process && !gen.process.exit)
      await Promise.race([gen.process.exited, delay(DRAIN_AFTER_EXIT_MS)]);
    if (this.#gen !== gen || this.#state.kind !== 'running') return;
    const exit = gen.process?.exit;
    const error = exit
      ? `exited unexpectedly (${describeEnd(exit)})`
      : (gen.lostBecause ?? 'closed its connection unexpectedly');
    this.#setState({ kind: 'crashed', at: Date.now(), error, ...(exit && { exit }) });
    this.#log.warn(`server '${this.name}' ${error}; its tools are withdrawn until reload_server`);
    this.#endCalls(gen, this.#notRunningError());
    gen.cleanup = this.#release(gen);
    this.#options.upstream?.ended?.(this.name, 'crashed');
    this.#options.onEvent?.({ type: 'crashed', name: this.name, generation: gen.number, error });
  }

  async #stop(reason: StopReason): Promise<void> {
    const s = this.#state.kind;
    if (s === 'idle' || s === 'stopped') {
      if (s === 'idle') this.#setState({ kind: 'stopped' });
      return;
    }
    const gen = this.#gen!;
    const why = {
      removed: `server '${this.name}' was removed while the call was in flight`,
      reloading: `server '${this.name}' was reloaded while the call was in flight; call the tool again`,
      shutdown: `mcpmux is shutting down`,
    }[reason];
    const stopError = new MuxError('SERVER_STOPPED', why);
    if (s !== 'crashed' && s !== 'restarting') this.#setState({ kind: 'stopping', since: Date.now() });
    if (s === 'running' || reason === 'removed') this.#options.upstream?.ended?.(this.name, reason);
    if (reason !== 'reloading') this.#watcher?.close();
    const verb = { removed: 'removed', reloading: 'reloaded', shutdown: 'shut down' }[reason];
    gen.startup.abort(
      new MuxError('SERVER_STOPPED', `server '${this.name}' was ${verb} while it was starting`),
    );
    this.#endCalls(gen, stopError);
    // The stop ladder and the wait for a start under way run in parallel: killing the process ends the start.
    gen.cleanup ??= this.#release(gen);
    await Promise.all([gen.cleanup, this.#starting?.catch(() => {})]);
    if (this.#state.kind === 'stopping')
      this.#setState({ kind: 'stopped', ...(gen.process?.exit && { exit: gen.process.exit }) });
    else if (this.#state.kind === 'crashed' || this.#state.kind === 'restarting')
      this.#setState({ kind: 'stopped', ...(gen.process?.exit && { exit: gen.process.exit }) });
  }

  /**
   * Pings the child every interval while it runs. A missed ping is counted and logged, never
   * judged a crash: under load a healthy child may answer late, and an exit or closed pipe
   * is what the crash monitor acts on.
   */
  #startPinging(gen: Generation): void {
    const interval = this.#options.pingIntervalMs ?? 30_000;
    const client = gen.client;
    if (interval <= 0 || !client) return;
    const ping = {
      lastOk: Date.now(),
      missed: 0,
      inFlight: false,
      timer: setInterval(() => tick(), interval).unref(),
    };
    gen.ping = ping;
    const tick = () => {
      if (this.#gen !== gen || this.#state.kind !== 'running') return clearInterval(ping.timer);
      if (ping.inFlight) return;
      ping.inFlight = true;
      client
        .ping({ timeout: this.#options.pingTimeoutMs ?? 10_000 })
        .then(
          () => {
            if (ping.missed > 0)
              this.#log.info(`[${this.name}] answers pings again after ${ping.missed} missed`);
            ping.lastOk = Date.now();
            ping.missed = 0;
          },
          (error: unknown) => {
            if (this.#lostRemote(gen, error)) return;
            ping.missed++;
            if (this.#gen === gen && this.#state.kind === 'running')
              this.#log.warn(`[${this.name}] missed a ping (${ping.missed} in a row): ${messageOf(error)}`);
          },
        )
        .finally(() => (ping.inFlight = false));
    };
  }

  /**
   * A remote server that cannot be reached at all any more (refused, reset) has dropped:
   * that is its crash, as an exit is for a process. A slow answer is not.
   */
  #lostRemote(gen: Generation, error: unknown): boolean {
    if (this.spec.transport !== 'http' || !isConnectionFailure(error)) return false;
    gen.lostBecause ??= `connection to ${this.spec.url} lost (${connectionFailureCode(error)})`;
    this.#noticeEnd(gen);
    return true;
  }

  /** Closes the client and stops the process group; resolves once the group is dead. */
  async #release(gen: Generation): Promise<void> {
    if (gen.ping) clearInterval(gen.ping.timer);
    if (this.spec.transport === 'http') {
      await gen.client?.close().catch(() => {});
      return;
    }
    const proc = gen.process;
    // Wait for the process to be assigned if the spawn is still under way.
    if (!proc) {
      await this.#starting?.catch(() => {});
      if (!gen.process) return;
      return this.#release(gen);
    }
    const exit = await proc.stop(this.#options.stopTimings);
    await gen.client?.close().catch(() => {});
    this.#log.debug(() => `[${this.name}] process ${proc.pid} ended (${describeEnd(exit)})`);
  }

  /**
   * Fails every call in flight at once with `error`. Closing the client rejects its pending
   * requests (and ends the child's stdin, the first step of the stop ladder anyway), so no
   * per-call abort controller is needed on the hot path.
   */
  #endCalls(gen: Generation, error: MuxError): void {
    gen.callsEnded ??= error;
    gen.lane?.end(error);
    void gen.client?.close().catch(() => {});
  }
}

/** What a child is told its client can do: what mcpmux's own client declared, for the requests mcpmux relays. */
export function childCapabilities(upstream: ClientCapabilities): ClientCapabilities {
  const declared: ClientCapabilities = {};
  if (upstream.sampling) declared.sampling = upstream.sampling;
  if (upstream.elicitation) declared.elicitation = upstream.elicitation;
  // mcpmux forwards the client's roots/list_changed, so a child may rely on it when the client sends it.
  if (upstream.roots) declared.roots = upstream.roots;
  return declared;
}

/** `params` with what a 2026-07-28 request carries in its `_meta` envelope: client capabilities, log level. */
function withEnvelope(
  params: Record<string, unknown> | undefined,
  capabilities: ClientCapabilities | undefined,
  logLevel: LoggingLevel | undefined,
): Record<string, unknown> | undefined {
  if (capabilities === undefined && logLevel === undefined) return params;
  const meta = (params?.['_meta'] as Record<string, unknown> | undefined) ?? {};
  return {
    ...params,
    _meta: {
      ...meta,
      ...(capabilities && { [CLIENT_CAPABILITIES_META_KEY]: capabilities }),
      ...(logLevel && { [LOG_LEVEL_META_KEY]: logLevel }),
    },
  };
}

function undeclaredRequestMessage(method: string): string {
  const capability = {
    'sampling/createMessage': 'sampling',
    'elicitation/create': 'elicitation',
    'roots/list': 'roots',
  }[method];
  return capability
    ? `the client connected to mcpmux did not declare the '${capability}' capability, so mcpmux cannot forward ${method}`
    : `mcpmux does not forward ${method} from a server to its client`;
}

/** A network error of fetch: nothing answers at that address any more. */
function isConnectionFailure(error: unknown): boolean {
  return connectionFailureCode(error) !== undefined;
}

function connectionFailureCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'UND_ERR_SOCKET'].includes(code)
    )
      return code;
  }
  return undefined;
}

export function describeEnd(exit?: ExitInfo, fallback = 'unknown cause'): string {
  if (!exit) return fallback;
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit ${exit.code}`;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
