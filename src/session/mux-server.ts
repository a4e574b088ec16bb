// What the client sees: one MCP server (the SDK's Server: params-checked-server.ts) whose tools
// are the management tools plus every child tool under its exposed name, with the children's
// prompts, resources, templates, completions and logging behind it. Changes of the children become
// debounced list_changed notifications, one per list that changed.
import type { Era } from '../protocol/era.js';
import type {
  ClientCapabilities,
  Transport,
  CallToolRequest,
  JSONRPCMessage,
  Server,
} from '@modelcontextprotocol/server';
import { messageOf } from '../common/errors.js';
import type { ActivationPool } from '../search/activation-pool.js';
import { newResultStore, type ResultStore } from '../results/result-store.js';
import { CatalogHandlers } from './catalog-handlers.js';
import { ClientSettings } from './client-settings.js';
import { SessionListChanges } from './list-changes/session-list-changes.js';
import { forwardingOptions, sessionCallerOrigin, type Caller } from './relay/forwarding-options.js';
import { InputRelay, clientCapabilitiesOf, clientRound } from './relay/input-relay.js';
import type { NotifyClient } from '../child/child-types.js';
import { watchResources } from './list-changes/resource-watch.js';
import { FastPath, type ObservedTarget, type Reply } from './fast-path/fast-path.js';
import { AgentTasks } from './tasks/agent-tasks.js';
import { AgentListing, agentAccess } from './tools/agent-access.js';
import type { AgentAccess } from './tools/tool-context.js';
import { newActivationPool, ownToolsOf, type ExposeMode, type OwnTools } from './exposure.js';
import {
  observeForwarded,
  observeRequests,
  observedSession,
  type ObservedSession,
} from './observed-requests.js';
import { telemetry } from '../common/telemetry.js';
import { ToolCalls, legacyToolCallHandler } from './tool-calls.js';
import { sessionServer } from './session-server.js';
import type { MuxServerOptions } from './mux-server-options.js';

export class MuxServer {
  readonly server: Server;
  readonly #options: MuxServerOptions;
  /** What this session's requests are observed with (telemetry, the call log). */
  readonly #observed: ObservedSession;
  /** When this session opened (performance.now()), while telemetry counts it. */
  #openedAt: number | undefined;
  /** mcpmux's own tools in this session's mode (they are answered by mcpmux, not a child). */
  #ownTools: ReadonlyMap<string, unknown> = new Map();
  readonly #catalogs: CatalogHandlers;
  readonly #listChanges: SessionListChanges | undefined;
  readonly #unsubscribe: () => void;
  readonly #detach: () => void;
  readonly #pool: ActivationPool | undefined;
  readonly #results: ResultStore;
  readonly #initialized: Promise<void>;
  #ready = false;
  /** The session's forwarding fast path (a stdio transport offers it each message: claim). */
  readonly #fastPath: FastPath | undefined;
  readonly #relay: InputRelay;
  readonly #caller: Caller;
  readonly #calls: ToolCalls;
  /** What a 2026-07-28 client declared on its latest request (it declares on each). */
  #declared: ClientCapabilities | undefined;
  /** The resource subscriptions of a 2026-07-28 client's listen streams (stdio), by stream. */
  readonly #watches = new Map<string | number, () => void>();
  /** How children's notifications reach this client (its session and its listen streams alike). */
  readonly #deliver: NotifyClient = (n) => {
    if (this.#wire && n.method === 'notifications/message') {
      this.#wire({ jsonrpc: '2.0', ...n } as JSONRPCMessage);
      return Promise.resolve();
    }
    return this.server.notification(n as never);
  };
  /** Writes a message to the client as it is (set on a 2025 connection: see useWire). */
  #wire: ((message: JSONRPCMessage) => void) | undefined;

  constructor(options: MuxServerOptions) {
    this.#options = options;
    this.#relay = options.inputRelay ?? new InputRelay();
    const era = options.era ?? 'legacy';
    const perRequest = options.perRequest;
    this.server = sessionServer(options, this.#relay);
    this.#openedAt = countSessionOpen(options);
    this.#observed = observedSession(options, era, this.server, (method, target) => {
      if (target === undefined) return undefined;
      if (method === 'tools/call' && this.#ownTools.has(target)) return 'mcpmux';
      return options.router.serverOf(options.children.snapshot, method, target);
    });
    observeRequests(this.server, this.#observed);
    this.#caller = {
      era,
      capabilities: () => this.server.getClientCapabilities(),
      ...(era === 'legacy' && { notify: this.#deliver }),
    };
    // A modern client with no session hears of changes through the shared publisher.
    this.#listChanges = perRequest ? undefined : this.#sessionListChanges();
    this.#initialized = this.#whenInitialized(era);
    // One request and gone: no connection of its own to tell of changes, nothing to give back.
    [this.#unsubscribe, this.#detach] = perRequest ? [() => {}, () => {}] : this.#followChildren(era);
    this.#results = perRequest?.results ?? newResultStore(options.maxResultBytes);
    const mode = options.expose ?? 'all';
    if (mode === 'code' && !options.code) throw new Error('--expose code needs a CodeMode');
    this.#pool = perRequest ? perRequest.pool : newActivationPool(mode, options.activePoolSize);
    const agent =
      options.agents &&
      agentAccess(options.agents, {
        era,
        sessionOrigin: perRequest ? undefined : sessionCallerOrigin(this.server),
        declared: () => this.#declared,
      });
    // What runs as an MCP task for a 2025 client: agent (where its tools are on), children's tools.
    const tasks = options.agents && era === 'legacy' ? new AgentTasks(options.agents.runs) : undefined;
    const own = ownToolsOf(mode, { registries: options.registries !== undefined });
    this.#ownTools = own.tools;
    const agentListing = new AgentListing(agent, { compact: mode !== 'all', asTask: tasks !== undefined });
    this.#catalogs = this.#catalogHandlers(() =>
      agentListing.definitions(own.definitions, options.children.snapshot),
    );
    this.#calls = this.#toolCalls(mode, own.tools, agent);
    this.#fastPath = perRequest ? undefined : this.#newFastPath(era);
    this.#installTools(era, tasks);
  }

  /** List changes of a session, held until the servers given at start have started. */
  #sessionListChanges(): SessionListChanges {
    const changes = new SessionListChanges({
      send: (method) => this.server.notification({ method }),
      debounceMs: this.#options.listChangedDebounceMs,
      logger: this.#options.logger,
    });
    const starting = this.#options.startup?.wait();
    if (starting) changes.holdUntil(starting);
    return changes;
  }

  #whenInitialized(era: Era): Promise<void> {
    return new Promise((resolve) => {
      const ready = () => {
        this.#ready = true;
        this.#listChanges?.ready();
        resolve();
      };
      // A modern connection has no handshake: it is ready from its first message.
      if (era === 'modern') ready();
      else this.server.oninitialized = ready;
    });
  }

  /**
   * A session hears the children's changes and reaches them through the upstream link (log
   * level, subscriptions, their requests to the client); returns how to stop each.
   */
  #followChildren(era: Era): [unsubscribe: () => void, detach: () => void] {
    const { children, router, upstream, logger } = this.#options;
    // The children tell which lists changed. Only the tools of --expose search and code are
    // not the children's list (mcpmux's own tools, the found ones): those are compared.
    const ownToolList = (this.#options.expose ?? 'all') !== 'all';
    const unsubscribe = children.onChange((change) => {
      for (const kind of change.kinds)
        if (!(ownToolList && kind === 'tools') || this.#catalogs.changedSinceLastList(kind))
          this.#listChanges?.changed(kind);
    });
    const settings = new ClientSettings({
      children,
      router,
      logger,
      peers: () => upstream.sessionSettings(),
    });
    settings.install(this.server);
    const detach = upstream.attach({
      server: this.server,
      era,
      children,
      settings,
      deliver: this.#deliver,
      initializing: () => (this.#ready ? undefined : this.#initialized),
    });
    return [unsubscribe, detach];
  }

  #catalogHandlers(ownTools: () => ReturnType<AgentListing['definitions']>): CatalogHandlers {
    const { children, router, startup } = this.#options;
    const catalogs = new CatalogHandlers({
      children,
      router,
      ownTools,
      pool: this.#pool,
      caller: this.#caller,
      relay: this.#relay,
      ...(startup && { startup }),
      onGivenAfterStartup: (kind) => this.#listChanges?.given(kind),
    });
    catalogs.install(this.server);
    return catalogs;
  }

  #toolCalls(mode: ExposeMode, own: OwnTools['tools'], agent: AgentAccess | undefined): ToolCalls {
    const options = this.#options;
    return new ToolCalls({
      children: options.children,
      router: options.router,
      own,
      pool: this.#pool,
      results: this.#results,
      relay: this.#relay,
      startup: options.startup,
      policy: options.policy,
      index: options.index,
      code: options.code,
      config: options.config,
      cluster: options.cluster,
      registries: options.registries,
      agent,
      listedTools: () => this.#catalogs.list('tools').tools,
      tellListChanges: () => this.#tellListChanges(),
      ...(mode === 'search' && { activate: (names: readonly string[]) => this.#activate(names) }),
    });
  }

  /** A session's fast path: calls to one child forwarded as lines (fast-path.ts). */
  #newFastPath(era: Era): FastPath {
    const options = this.#options;
    return new FastPath({
      children: options.children,
      router: options.router,
      results: this.#results,
      pool: this.#pool,
      startup: options.startup,
      era,
      relay: this.#relay,
      serverInfo: { name: 'mcpmux', version: options.version },
      elicitationsRequired: (server, error, notify) =>
        options.upstream.elicitationsRequired(server, error, notify),
      // With telemetry or a call log: the fast path's requests are observed as the SDK path's are.
      ...((telemetry.enabled || options.callLog) && {
        observe: (request: ObservedTarget) =>
          observeForwarded(this.#observed, {
            ...request,
            sessionId: this.server.transport?.sessionId,
            client: this.server.getClientVersion()?.name,
          }),
      }),
    });
  }

  /** tools/list, roots and the client's other notifications, and tools/call as the era takes it. */
  #installTools(era: Era, tasks: AgentTasks | undefined): void {
    const options = this.#options;
    this.server.setRequestHandler('tools/list', async (_request, ctx) => {
      if (era === 'modern') this.#declared = clientCapabilitiesOf(ctx);
      options.onListed?.();
      const list = await this.#catalogs.listWhenStarted('tools');
      this.#listChanges?.toolsListed();
      return list;
    });
    this.server.setNotificationHandler('notifications/roots/list_changed', () => this.#fanOutRootsChanged());
    this.server.fallbackNotificationHandler = async (n) =>
      options.logger.debug(() => `the client's ${n.method} is not relayed to servers`);
    // A 2026-07-28 session takes tools/call through the SDK: it checks the call and its result
    // against that era's wire schema, only a method without a handler gets the era's HTTP 404,
    // and a child's question goes to the client as an input_required result.
    if (era === 'modern') {
      this.server.setRequestHandler('tools/call', (request, ctx) => {
        const params = request.params as CallToolRequest['params'];
        this.#declared = clientCapabilitiesOf(ctx);
        return this.#calls.call(
          params,
          forwardingOptions(params, ctx, this.#caller),
          clientRound(ctx),
        ) as never;
      });
      return;
    }
    const runs = { agent: tasks, children: options.upstream.childTasks.session(this.#deliver) };
    this.server.fallbackRequestHandler = legacyToolCallHandler(this.#calls, this.#caller, runs) as never;
  }

  /** Offers a client's message to the fast path (after initialize): true when taken, answered through `reply`. */
  claim(message: JSONRPCMessage, reply: Reply, shared = false): boolean {
    if (!this.#ready || this.#fastPath === undefined) return false;
    return this.#fastPath.claim(
      message,
      reply,
      shared ? (id) => sessionCallerOrigin(this.server, id) : undefined,
    );
  }

  /** The same for a line before it is parsed (fast-path.ts, claimLine). */
  claimLine(line: string, reply: Reply): boolean {
    return this.#ready && this.#fastPath !== undefined && this.#fastPath.claimLine(line, reply);
  }

  /** The client's requests the fast path has taken and not answered yet (the SDK's are the transport's to count). */
  openRequests(): number {
    return this.#fastPath?.open ?? 0;
  }

  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  /**
   * A 2026-07-28 client opened a listen stream naming resources: they are subscribed while it
   * is open. Settles when the children are subscribed (the stream's acknowledgement waits).
   */
  watchResources(stream: string | number, uris: readonly string[]): Promise<void> | undefined {
    if (uris.length === 0) return undefined;
    this.unwatchResources(stream);
    const { children, router, upstream, logger } = this.#options;
    const watch = watchResources({ children, router, upstream, logger }, uris, this.#deliver);
    this.#watches.set(stream, watch.end);
    return watch.ready;
  }

  /** That stream ended (cancelled by the client). */
  unwatchResources(stream: string | number): void {
    this.#watches.get(stream)?.();
    this.#watches.delete(stream);
  }

  async close(): Promise<void> {
    if (this.#openedAt !== undefined) {
      telemetry.add('mcpmux.sessions.open', -1);
      telemetry.record('mcp.server.session.duration', (performance.now() - this.#openedAt) / 1000, {
        'network.transport': this.#options.network ?? 'pipe',
      });
      this.#openedAt = undefined;
    }
    this.#fastPath?.close();
    for (const stream of [...this.#watches.keys()]) this.unwatchResources(stream);
    this.#unsubscribe();
    this.#detach();
    this.#listChanges?.close();
    // Shared results (and held calls) outlive one request.
    if (!this.#options.perRequest) await this.#results.close();
    if (!this.#options.inputRelay) this.#relay.close();
    await this.server.close();
  }

  /**
   * How to write to this client past the SDK's server. Children's log messages then go out as
   * they are: the SDK's server needs nothing of them (logging is declared) but checked each
   * against every JSON-RPC shape on its way out. Only on a 2025 connection, which adds nothing
   * to a notification (a 2026-07-28 one may).
   */
  useWire(post: (message: JSONRPCMessage) => void): void {
    if ((this.#options.era ?? 'legacy') === 'legacy') this.#wire = post;
  }

  /**
   * Whether the tools this client would list differ from the last list made for it (always,
   * the first time). The publisher for modern HTTP clients asks it of a server of its own.
   */
  toolsChangedSinceLastList(): boolean {
    return this.#catalogs.changedSinceLastList('tools');
  }

  /** Settles once the client has finished initialization (legacy: its capabilities are known), at once on a modern connection. */
  get initialized(): Promise<void> {
    return this.#initialized;
  }

  /**
   * Sends this client the list changes pending now, without waiting for the quiet time; when
   * its tools changed, settles once it has listed them again (or after a short bound).
   */
  #tellListChanges(): Promise<void> {
    return this.#listChanges?.tell() ?? this.#options.perRequest!.flush();
  }

  /** Lists found tools (search mode); the client hears list_changed when the list changed. */
  #activate(names: readonly string[]): { added: string[]; evicted: string[] } {
    const change = this.#pool!.activate(names);
    if (change.added.length > 0 || change.evicted.length > 0) {
      if (this.#options.perRequest) this.#options.perRequest.publish('notifications/tools/list_changed');
      else this.#listChanges?.changed('tools');
    }
    return change;
  }

  /** The client's roots changed: every running child that was told about roots hears it. */
  #fanOutRootsChanged(): void {
    for (const { connection } of this.#options.children.snapshot.servers.values()) {
      connection.notify('notifications/roots/list_changed').catch((error: unknown) => {
        this.#options.logger.debug(
          () => `[${connection.name}] roots/list_changed not forwarded: ${messageOf(error)}`,
        );
      });
    }
  }
}

/** A session (not one request of a sessionless 2026-07-28 client) is counted while open: when it opened. */
function countSessionOpen(options: MuxServerOptions): number | undefined {
  if (!telemetry.enabled || options.perRequest) return undefined;
  telemetry.add('mcpmux.sessions.open', 1);
  return performance.now();
}
