// One child server across its generations (each start makes one; events of an older one
// are ignored): its state, start, stop with confirmed death, crash monitor, requests and
// status. Beside it: child-connect (connecting a generation), child-requests, child-status.
import type { Client, LoggingLevel, ServerCapabilities, Tool } from '@modelcontextprotocol/client';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { ServerSpec } from './server-spec.js';
import type { ChildProcess } from './process/child-process.js';
import { gaveUpState, restartingState, transition, type ChildState } from './child-state.js';
import { EMPTY_CATALOG, type CapabilityRow, type Catalog } from '../protocol/capabilities.js';
import type { ChildLane } from './requests/child-lane.js';
import { DevLoop } from './dev-loop/child-build.js';
import {
  newRequestHost,
  requestRunning,
  subscribeResource,
  unsubscribeResource,
  type RequestHost,
} from './requests/child-requests.js';
import {
  armStartupDeadline,
  connectGeneration,
  pingGeneration,
  startOrRetryLegacy,
} from './child-connect.js';
import type { ConnectHost, ConnectMemory } from './connect-host.js';
import {
  aboutServer,
  describeStatus,
  notRunningError,
  stopErrors,
  type ChildStatus,
  type ServerAbout,
} from './child-status.js';
import type { CallOptions, ChildConnectionOptions, StopReason } from './child-types.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './child-types.js';
import { listingOptions, relistRows, relistWhenQuiet } from './catalog/catalog-listing.js';
import { endCalls, judgeEnd, newGeneration, releaseGeneration, type Generation } from './generation.js';
import { ReloadHold } from './requests/reload-hold.js';
import { newSignIn } from './remote/child-sign-in.js';
import { describeStartFailure, lostConnection } from './start-failure.js';

export class ChildConnection {
  readonly name: string;
  readonly spec: ServerSpec;
  /** The server author's loop: its sources watched, its build (watch.build). */
  readonly devLoop: DevLoop;
  /** How long a call may go with no answer and no progress (--call-timeout). */
  readonly callTimeoutMs: number;
  readonly #options: ChildConnectionOptions;
  readonly #log: Logger;
  #state: ChildState = { kind: 'idle' };
  #gen: Generation | undefined;
  #generationCounter = 0;
  #starting: Promise<readonly Tool[]> | undefined;
  #stopping: Promise<void> | undefined;
  /** What the starts of this server learnt (its era) and are given (a process spawned before). */
  readonly #memory: ConnectMemory = { era: undefined, exitedOnProbe: false, spawned: undefined };
  /** What connecting a generation (child-connect.ts) reads and tells of this connection. */
  readonly #host: ConnectHost;
  readonly #reloadHold = new ReloadHold();
  readonly #requests: RequestHost; // what a request on the SDK's path needs of it (child-requests.ts)

  constructor(options: ChildConnectionOptions) {
    this.name = options.name;
    this.spec = options.spec;
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.#options = options;
    this.#log = options.logger;
    this.#host = {
      name: this.name,
      spec: this.spec,
      options,
      log: this.#log,
      memory: this.#memory,
      noticeEnd: (gen) => this.#noticeEnd(gen),
      relist: (gen, rows) => void this.#refresh(gen, rows),
      relistWhenQuiet: (gen, rows) => relistWhenQuiet(gen, rows, (all) => void this.#refresh(gen, all)),
      runs: (gen) => this.#gen === gen && this.#state.kind === 'running',
      // A ping is how an idle connection finds its session ended.
      lostRemote: (gen, error) => this.#lostRemote(gen, error) || this.#requests.renewal.ended(gen, error),
    };
    this.#requests = newRequestHost({
      name: this.name,
      spec: this.spec,
      options,
      hold: this.#reloadHold,
      current: (gen) => this.#gen === gen,
      running: () => this.#running(),
      tools: () => this.catalog.tools,
      relist: (gen, rows) => this.#refresh(gen, rows),
      notRunning: () => notRunningError(this.name, this.#state),
      lostRemote: (gen, error) => this.#lostRemote(gen, error),
      lose: (gen, why) => this.#lose(gen, why),
    });
    // Any remote server may ask for a sign-in, unless its entry says "oauth": false.
    if (this.spec.transport === 'http' && this.spec.oauth !== false)
      this.#memory.signIn = newSignIn(this.name, this.spec.url, this.spec.oauth, this.#log, options);
    this.devLoop = new DevLoop(this.name, this.spec, options, (paths) =>
      options.onEvent?.({ type: 'sources-changed', name: this.name, generation: this.generation, paths }),
    );
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
  get about(): ServerAbout | undefined {
    const client = this.#state.kind === 'running' ? this.#gen?.client : undefined;
    return client && aboutServer(client);
  }

  /** Resolves when a sign-in of this server starts waiting for a person (never, without OAuth). */
  whenSigningIn(): Promise<void> {
    return this.#memory.signIn?.whenPending() ?? new Promise(() => {});
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
    if (options.spawned) this.#memory.spawned = options.spawned;
    const start = (handshakeAfter: Promise<unknown> | undefined) => this.#start(handshakeAfter);
    this.#starting ??= startOrRetryLegacy(this.#memory, start, options.handshakeAfter).finally(
      () => (this.#starting = undefined),
    );
    return this.#starting;
  }

  /** Stops the current generation; in-flight calls fail at once. Joins a stop under way. */
  stop(reason: StopReason): Promise<void> {
    // For good (not a reload): its watcher and sign-in listener end, even when this joins a reload's stop.
    if (reason !== 'reloading') {
      this.devLoop.close();
      void this.#memory.signIn?.close(); // (its kept tokens stay on disk)
    }
    this.#stopping ??= this.#stop(reason).finally(() => (this.#stopping = undefined));
    return this.#stopping;
  }

  /** Forwards one request (a tools/call, …) to the running generation with the caller's cancellation and progress; its result unchecked, errors that say what happened. */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    return requestRunning(this.#requests, method, params, options);
  }

  /** Subscribes to a resource's updates (they come to the upstream's notify). */
  async subscribeResource(uri: string, signal?: AbortSignal): Promise<void> {
    const gen = this.#running();
    await subscribeResource(gen, uri, signal, this.#requests.context(gen));
  }

  async unsubscribeResource(uri: string, signal?: AbortSignal): Promise<void> {
    if (this.#state.kind !== 'running') return; // a new process starts without it
    const gen = this.#running();
    await unsubscribeResource(gen, uri, signal, this.#requests.context(gen));
  }

  /** Sets the level of the child's log messages (a 2026-07-28 one is told per request: sessionLogLevel). */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.#running();
    if (!this.speaksModern) await this.request('logging/setLevel', { level });
  }

  /** The restart policy's next attempt waits (the crash is kept, for list_servers and errors). */
  markRestarting(attempt: number, maxAttempts: number, nextAt: number): void {
    const next = restartingState(this.#state, attempt, maxAttempts, nextAt);
    if (next) this.#setState(next);
  }

  /** The restart policy gave up after `attempts`: crashed, as without one, saying how often it tried. */
  giveUpRestarting(attempts: number): void {
    const next = gaveUpState(this.#state, attempts);
    if (next) this.#setState(next);
  }

  /** Calls that arrive while `restart` (a reload) runs wait for it, then go to the new process. */
  holdCallsDuring(restart: Promise<unknown>): void {
    this.#reloadHold.during(restart);
  }

  /** Aborts, with the error its calls get, once the running generation's calls end (crash, stop, reload). */
  get callsEnd(): AbortSignal | undefined {
    return this.#state.kind === 'running' ? this.#gen?.callsEnd.signal : undefined;
  }

  /** Requests sent to the current generation and not answered yet (the fast path's not counted). */
  get requestsInFlight(): number {
    return this.#gen?.requests ?? 0;
  }

  /** The fast path's way to this child: a running child on stdio has one. */
  get lane(): ChildLane | undefined {
    return this.#state.kind === 'running' ? this.#gen?.lane : undefined;
  }

  /** Whether the running generation speaks the 2026-07-28 protocol (input arrives as input_required results). */
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
    return describeStatus(
      {
        name: this.name,
        spec: this.spec,
        state: this.#state,
        gen: this.#gen,
        lastBuild: this.devLoop.lastBuild,
        signInUrl: this.#memory.signIn?.pendingUrl,
        signInReason: this.#memory.signIn?.pendingReason,
        sandbox: this.#options.spawnPolicy.sandboxOf(this.spec),
      },
      now,
    );
  }

  /** The running generation, or the error that says why there is none. */
  #running(): Generation & { client: Client } {
    const gen = this.#gen;
    if (this.#state.kind !== 'running' || !gen?.client) throw notRunningError(this.name, this.#state);
    return gen as Generation & { client: Client };
  }

  #setState(next: ChildState): void {
    this.#state = transition(this.#state, next);
  }

  async #start(handshakeAfter: Promise<unknown> | undefined): Promise<readonly Tool[]> {
    await this.#gen?.cleanup; // a crashed generation's group must be gone first
    const spec = this.spec;
    const gen = newGeneration(++this.#generationCounter, {
      maxLines: this.#options.stderrLines ?? 50,
      onLine: (line) => this.#log.info(`[${this.name}] ${line}`),
    });
    this.#gen = gen;
    this.#setState({ kind: 'starting', since: Date.now() });
    const disarm = armStartupDeadline(
      gen,
      this.name,
      spec.startupTimeoutMs ?? this.#options.startupTimeoutMs ?? 60_000,
      handshakeAfter,
    );
    try {
      const catalog = await connectGeneration(this.#host, gen, handshakeAfter);
      if (this.#gen !== gen || this.#state.kind !== 'starting')
        throw gen.startup.signal.reason ?? notRunningError(this.name, this.#state);
      this.#setState({
        kind: 'running',
        since: Date.now(),
        ...(gen.process && { pid: gen.process.pid }),
        catalog,
      });
      gen.ping = pingGeneration(this.#host, gen);
      await this.#options.upstream?.started?.(this.name, this).catch((error: unknown) => {
        this.#log.warn(
          `[${this.name}] bringing the new process up to date (log level, subscriptions) failed: ${messageOf(error)}`,
        );
      });
      return catalog.tools;
    } catch (error) {
      const failure = await describeStartFailure(this.name, this.spec, gen, error);
      // The SDK may be mid-handshake (a probe answered by an exit): the abort ends its pending timers too.
      gen.startup.abort(failure);
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
      disarm();
    }
  }

  /** Re-lists `rows` of the running generation and publishes the catalog (catalog-changed). */
  async #refresh(gen: Generation, rows: readonly CapabilityRow[]): Promise<void> {
    const current = () => (this.#gen === gen && this.#state.kind === 'running' ? this.#state : undefined);
    if (!gen.client || !current()) return;
    const timeout = this.callTimeoutMs;
    const options = listingOptions(this.#host, gen, { signal: gen.startup.signal, timeout });
    await relistRows(
      gen.client,
      rows,
      () => current()?.catalog,
      options,
      (catalog) => {
        this.#setState({ ...current()!, catalog });
        const event = { type: 'catalog-changed', name: this.name, generation: gen.number, catalog } as const;
        this.#options.onEvent?.(event);
      },
    );
  }

  /** Called on both signs of an end (exit, close); the first one while running is judged. */
  #noticeEnd(gen: Generation): void {
    if (this.#gen === gen && this.#state.kind === 'running') gen.ended ??= this.#onUnexpectedEnd(gen);
  }

  /** The process exited or the connection closed without being asked: a crash. */
  async #onUnexpectedEnd(gen: Generation): Promise<void> {
    if (this.#gen !== gen || this.#state.kind !== 'running') return;
    const { error, exit } = await judgeEnd(gen);
    if (this.#gen !== gen || this.#state.kind !== 'running') return;
    this.#setState({ kind: 'crashed', at: Date.now(), error, ...(exit && { exit }) });
    // With a restart policy, the children's restart run says what follows (a restart, or giving up).
    const then = this.spec.restart ? '' : '; its tools are withdrawn until reload_server';
    this.#log.warn(`server '${this.name}' ${error}${then}`);
    endCalls(gen, notRunningError(this.name, this.#state, this.spec.restart !== undefined));
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
    const errors = stopErrors(this.name, reason);
    if (s !== 'crashed' && s !== 'restarting') this.#setState({ kind: 'stopping', since: Date.now() });
    if (s === 'running' || reason === 'removed') this.#options.upstream?.ended?.(this.name, reason);
    gen.startup.abort(errors.whileStarting);
    endCalls(gen, errors.inFlight);
    // The stop ladder and the wait for a start under way run in parallel: killing the process ends the start.
    gen.cleanup ??= this.#release(gen);
    await Promise.all([gen.cleanup, this.#starting?.catch(() => {})]);
    if (['stopping', 'crashed', 'restarting'].includes(this.#state.kind))
      this.#setState({ kind: 'stopped', ...(gen.process?.exit && { exit: gen.process.exit }) });
  }

  /** A remote server that nothing answers for any more has dropped (its crash); see lostConnection. */
  #lostRemote(gen: Generation, error: unknown): boolean {
    const why = lostConnection(this.spec, error);
    return why !== undefined && this.#lose(gen, why);
  }

  /** The connection is lost for `why` (its crash) where no exit says so. */
  #lose(gen: Generation, why: string): true {
    gen.lostBecause ??= why;
    this.#noticeEnd(gen);
    return true;
  }

  /** Closes the client and stops the process group; resolves once the group is dead. */
  #release(gen: Generation): Promise<void> {
    return releaseGeneration(gen, this.#host, () => this.#starting);
  }
}
