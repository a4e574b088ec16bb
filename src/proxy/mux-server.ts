// What the client sees: one MCP server (the SDK's low-level Server) whose tools are the
// management tools plus every child tool under its exposed name, with the children's
// prompts, resources, templates, completions and logging behind it. Registry changes
// become debounced list_changed notifications, one per list that changed.
import { Server, ProtocolErrorCode, isInputRequiredResult } from '@modelcontextprotocol/server';
import type {
  ClientCapabilities,
  Transport,
  CallToolRequest,
  CallToolResult,
  JSONRPCMessage,
  Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CallOptions } from '../child/child-types.js';
import { WireError, messageOf } from '../errors.js';
import type { Logger } from '../log.js';
import { ActivationPool } from '../catalog/activation-pool.js';
import { ResultStore } from '../results/result-store.js';
import type { ToolIndex } from '../catalog/tool-index.js';
import type { SpawnPolicy } from '../policy/spawn-policy.js';
import type { Registry } from '../registry/registry.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import { CAPABILITY_ROWS, CAPABILITY_TABLE, type ListChangedMethod } from '../router/capabilities.js';
import { CatalogHandlers } from './catalog-handlers.js';
import { ClientSettings } from './client-settings.js';
import { ListChangedNotifier } from './list-changed-notifier.js';
import {
  createManagementTools,
  type ManagementContext,
  type HeldRounds,
  type ManagementTool,
  type PersistentConfig,
} from './management-tools.js';
import { createCodeModeTools } from './code-mode-tools.js';
import type { CodeMode } from '../code/code-mode.js';
import { compactDefinition } from './tool-definition.js';
import { forwardingOptions, sessionCallerOrigin, type Caller } from './forwarding-options.js';
import { InputRelay, clientCapabilitiesOf, clientRound, type ClientRound } from './input-relay.js';
import type { HeldRun } from './held-call.js';
import { toToolResult } from './results.js';
import type { Deliver, UpstreamLink } from './upstream-link.js';
import type { StartupGate } from '../registry/startup-gate.js';
import { watchResources } from './resource-watch.js';
import { FastPath, type Reply } from '../forwarding/fast-path.js';
import type { AgentRuns } from '../agent/agent-runs.js';
import type { ModelChoice } from '../agent/model-choice.js';
import type { InputOrigin } from '../child/child-types.js';
import { agentDefinition, createAgentTools, outputDefinition, type AgentAccess } from './agent-tools.js';
import { AgentTasks, TASKS_CAPABILITY } from './agent-tasks.js';

export type ExposeMode = 'all' | 'search' | 'code' | 'agent';

/** What the agent and output tools share across sessions: the runs, and how a model is chosen. */
export interface AgentSetup {
  runs: AgentRuns;
  models: ModelChoice;
}

export interface MuxServerOptions {
  /** A tools/list was answered (at 5,000 tools, megabytes of JSON): the idle collection's cue. */
  onListed?: () => void;
  registry: Registry;
  router: CatalogRouter;
  /** The registry's children reach the client through it; the server attaches it. */
  upstream: UpstreamLink;
  /** What add_server may run. Default: anything. */
  policy?: SpawnPolicy;
  /** The search index over every exposed tool (shared by all sessions). */
  index: ToolIndex;
  /**
   * all: every child tool is listed; search: only what search_tools activated; code: no
   * child tool, and programs call them through execute_code. Default all.
   */
  expose?: ExposeMode;
  /** The sandbox and typed wrappers of code mode (shared by all sessions); needed for `code`. */
  code?: CodeMode;
  /** The agent tools' runs and model choice; without it, agent and output are not listed. */
  agents?: AgentSetup;
  /** In search mode, how many found tools may be listed at once. Default 15. */
  activePoolSize?: number;
  /** Text bytes of a tool result before it is cut and kept for read_result. Default 16 384; 0: never cut. */
  maxResultBytes?: number;
  /** The config file, for add_server and remove_server with `persist`. */
  config?: PersistentConfig;
  logger: Logger;
  /** Reported to the client in serverInfo. */
  version: string;
  /** Quiet time before list_changed is sent. Default 10 ms. */
  listChangedDebounceMs?: number;
  /**
   * The protocol era of the connection: legacy (2025, an initialize handshake) or modern
   * (2026-07-28: no handshake, list changes go out on the client's subscriptions/listen
   * stream). Default legacy.
   */
  era?: 'legacy' | 'modern';
  /**
   * Set when this server answers one request of a modern (2026-07-28) HTTP client and is
   * dropped after it: what must outlive the request (kept results, the search pool) is
   * shared, and list changes reach the clients' listen streams through `publish` (the
   * HTTP layer's, which hears the registry once for all requests).
   */
  perRequest?: PerRequestState;
  /** The servers given at start: lists and calls wait until each has started or failed. */
  startup?: StartupGate;
  /**
   * Carries what children ask of a 2026-07-28 client (input_required rounds); shared by every
   * server of the process, since a modern client's rounds may come to different ones. Default: one of its own.
   */
  inputRelay?: InputRelay;
}

/** What modern HTTP requests share, since each is served by a server of its own. */
export interface PerRequestState {
  results: ResultStore;
  pool: ActivationPool | undefined;
  publish: (method: ListChangedMethod) => void;
}

const INSTRUCTIONS =
  'mcpmux runs MCP servers behind this one connection. add_server starts a server and returns its tools, named ' +
  '<server>__<tool>; reload_server restarts one (after a rebuild, or when list_servers shows it crashed); ' +
  'remove_server stops one. search_tools finds tools by describing the task. If your tool list has not refreshed ' +
  'after add_server, call the new tools through call_tool.';

// Task-augmented requests (2025-11-25's experimental tasks) to children would need every
// task id routed to its child across tasks/get, tasks/result, tasks/list and tasks/cancel;
// only mcpmux's own agent runs as a task (agent-tasks.ts). Without the agent tools mcpmux
// does not declare the capability, and says so plainly when a client calls a tasks/ method anyway.
const TASKS_NOT_SUPPORTED =
  'mcpmux does not forward task-augmented requests (experimental MCP tasks) to servers; call the tool without "task" to get its result directly (only agent runs as a task)';

/** What tools/call needs of its params; the rest (task, other _meta) travels on unchecked. */
const CallToolParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  _meta: z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional(),
});

/**
 * mcpmux's own tools, built once: they hold no state (each call gets its session's
 * context), so every session and mode shares them, and an HTTP server with many short
 * sessions does not build their schemas again for each.
 */
let ownTools: { management: ManagementTool[]; code: ManagementTool[]; agent: ManagementTool[] } | undefined;
const allOwnTools = () =>
  (ownTools ??= {
    management: [...createManagementTools().values()],
    code: createCodeModeTools(),
    agent: createAgentTools(),
  });

/** The tools and listed definitions of each exposure mode. */
const ownToolsByMode = new Map<
  ExposeMode,
  { tools: ReadonlyMap<string, ManagementTool>; definitions: Tool[] }
>();

function ownToolsOf(mode: ExposeMode): { tools: ReadonlyMap<string, ManagementTool>; definitions: Tool[] } {
  let own = ownToolsByMode.get(mode);
  if (!own) {
    const { management, code, agent } = allOwnTools();
    const listed = [...management, ...(mode === 'code' ? code : [])];
    // agent and output are listed by the session, when it has a model (and with its servers).
    const tools = new Map([...listed, ...agent].map((t) => [t.definition.name, t]));
    // Search, code and agent mode list compact definitions: every listed token counts there.
    const definitions = listed.map((t) => (mode === 'all' ? t.definition : compactDefinition(t.definition)));
    ownToolsByMode.set(mode, (own = { tools, definitions }));
  }
  return own;
}

/** Every tool name mcpmux lists itself, in any mode: no child tool may take one. */
export function ownToolNames(): string[] {
  const { management, code, agent } = allOwnTools();
  return [...management, ...code, ...agent].map((t) => t.definition.name);
}

/** A store for results too large to return whole (0: never cut). */
export function newResultStore(maxResultBytes: number | undefined, handleBytes?: number): ResultStore {
  return new ResultStore({
    maxBytes: maxResultBytes === 0 ? Number.MAX_SAFE_INTEGER : (maxResultBytes ?? 16_384),
    ...(handleBytes !== undefined && { handleBytes }),
  });
}

/** Search mode lists what search_tools activated; code mode lists no child tool at all. */
export function newActivationPool(mode: ExposeMode, size: number | undefined): ActivationPool | undefined {
  return mode === 'search'
    ? new ActivationPool(size ?? 15)
    : mode === 'code' || mode === 'agent'
      ? new ActivationPool(0)
      : undefined;
}

export class MuxServer {
  readonly server: Server;
  readonly #options: MuxServerOptions;
  readonly #management: ReadonlyMap<string, ManagementTool>;
  readonly #catalogs: CatalogHandlers;
  readonly #notifiers = new Map<ListChangedMethod, ListChangedNotifier>();
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
  /** The agent tools' runs and model for this session's client; absent without AgentSetup. */
  readonly #agent: AgentAccess | undefined;
  /** agent as an MCP task (2025 clients); absent where the agent tools are off. */
  readonly #tasks: AgentTasks | undefined;
  /** What a 2026-07-28 client declared on its latest request (it declares on each). */
  #declared: ClientCapabilities | undefined;
  /** The own tools last listed, with the agent tools when a model is available (kept while nothing changed). */
  #ownListed: { key: string; tools: readonly Tool[] } | undefined;
  /** The resource subscriptions of a 2026-07-28 client's listen streams (stdio), by stream. */
  readonly #watches = new Map<string | number, () => void>();
  /** How children's notifications reach this client (its session and its listen streams alike). */
  readonly #deliver: Deliver = (n) => this.server.notification(n as never);

  constructor(options: MuxServerOptions) {
    this.#options = options;
    this.#relay = options.inputRelay ?? new InputRelay();
    // Children come and go while the client stays, so every list and feature a child could
    // bring is declared up front; with no child behind it, a list is simply empty.
    this.server = new Server(
      { name: 'mcpmux', version: options.version },
      {
        capabilities: {
          tools: { listChanged: true },
          prompts: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          completions: {},
          logging: {},
          // agent runs as a task for a 2025 client (2026-07-28 has no tasks in its core).
          ...(options.agents && options.era !== 'modern' && { tasks: TASKS_CAPABILITY }),
        },
        instructions: INSTRUCTIONS,
        // A requestState mcpmux did not issue is refused before any handler runs.
        requestState: { verify: this.#relay.verify },
      },
    );
    this.#caller = { era: options.era ?? 'legacy', capabilities: () => this.server.getClientCapabilities() };
    this.#agent = options.agents && this.#agentAccess(options.agents);
    this.#tasks =
      options.agents && options.era !== 'modern' ? new AgentTasks(options.agents.runs) : undefined;
    const perRequest = options.perRequest;
    for (const { listChanged: method } of perRequest ? [] : CAPABILITY_ROWS) {
      this.#notifiers.set(
        method,
        new ListChangedNotifier({
          send: () => this.server.notification({ method }),
          debounceMs: options.listChangedDebounceMs ?? 10,
          onError: (error) => options.logger.debug(() => `${method} not sent: ${messageOf(error)}`),
        }),
      );
    }
    this.#initialized = new Promise((resolve) => {
      const ready = () => {
        this.#ready = true;
        for (const notifier of this.#notifiers.values()) notifier.ready();
        resolve();
      };
      // A modern connection has no handshake: it is ready from its first message.
      if (options.era === 'modern') ready();
      else this.server.oninitialized = ready;
    });
    if (perRequest) {
      // One request and gone: no connection of its own to tell of changes, nothing to give back.
      this.#unsubscribe = this.#detach = () => {};
    } else {
      this.#unsubscribe = options.registry.onChange((change) => {
        for (const kind of change.kinds) this.#notifiers.get(CAPABILITY_TABLE[kind].listChanged)?.changed();
      });
      const settings = new ClientSettings({
        registry: options.registry,
        router: options.router,
        logger: options.logger,
        peers: () => options.upstream.sessionSettings(),
      });
      settings.install(this.server);
      this.#detach = options.upstream.attach({
        server: this.server,
        era: options.era ?? 'legacy',
        registry: options.registry,
        settings,
        deliver: this.#deliver,
      });
    }
    this.#results = perRequest?.results ?? newResultStore(options.maxResultBytes);
    const mode = options.expose ?? 'all';
    if (mode === 'code' && !options.code) throw new Error('--expose code needs a CodeMode');
    const own = ownToolsOf(mode);
    this.#management = own.tools;
    this.#pool = perRequest ? perRequest.pool : newActivationPool(mode, options.activePoolSize);
    this.#catalogs = new CatalogHandlers({
      registry: options.registry,
      router: options.router,
      ownTools: () => this.#ownDefinitions(own.definitions),
      pool: this.#pool,
      caller: this.#caller,
      relay: this.#relay,
      ...(options.startup && { startup: options.startup }),
    });
    this.#catalogs.install(this.server);
    if (!perRequest)
      this.#fastPath = new FastPath({
        registry: options.registry,
        router: options.router,
        results: this.#results,
        pool: this.#pool,
        startup: options.startup,
        era: options.era ?? 'legacy',
        relay: this.#relay,
        serverInfo: { name: 'mcpmux', version: options.version },
      });
    this.server.setRequestHandler('tools/list', (_request, ctx) => {
      if (this.#caller.era === 'modern') this.#declared = clientCapabilitiesOf(ctx);
      options.onListed?.();
      return this.#catalogs.listWhenStarted('tools');
    });
    this.server.setNotificationHandler('notifications/roots/list_changed', () => this.#fanOutRootsChanged());
    this.server.fallbackNotificationHandler = async (n) =>
      options.logger.debug(() => `the client's ${n.method} is not relayed to servers`);
    // A 2026-07-28 session takes tools/call through the SDK: it checks the call and its result
    // against that era's wire schema, only a method without a handler gets the era's HTTP 404,
    // and a child's question goes to the client as an input_required result.
    if (options.era === 'modern') {
      this.server.setRequestHandler('tools/call', (request, ctx) => {
        const params = request.params as CallToolRequest['params'];
        this.#declared = clientCapabilitiesOf(ctx);
        return this.#callTool(
          params,
          forwardingOptions(params, ctx, this.#caller),
          clientRound(ctx),
        ) as never;
      });
      return;
    }
    // tools/call is the hot path. The Server class wraps a tools/call handler so that it
    // parses the request twice and the result once with zod; the client validates the
    // result anyway, so the call is taken as an unhandled method and its params checked once.
    this.server.fallbackRequestHandler = async (request, ctx) => {
      if (request.method.startsWith('tasks/')) {
        if (this.#tasks) return this.#tasks.handle(request.method, request.params);
        throw new WireError(ProtocolErrorCode.MethodNotFound, TASKS_NOT_SUPPORTED);
      }
      if (request.method !== 'tools/call')
        throw new WireError(ProtocolErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      const parsed = CallToolParams.safeParse(request.params);
      if (!parsed.success)
        throw new WireError(
          ProtocolErrorCode.InvalidParams,
          `Invalid tools/call request: ${z.prettifyError(parsed.error)}`,
        );
      const params = parsed.data as CallToolRequest['params'];
      if (params['task'] !== undefined) return this.#callAsTask(params, ctx);
      return this.#callTool(params, forwardingOptions(params, ctx, this.#caller));
    };
  }

  /** A task-augmented tools/call: agent starts in the background, its agentId the task's id. */
  #callAsTask(params: CallToolRequest['params'], ctx: Parameters<typeof forwardingOptions>[1]) {
    if (params.name !== 'agent' || !this.#tasks)
      throw new WireError(ProtocolErrorCode.MethodNotFound, TASKS_NOT_SUPPORTED);
    const options = forwardingOptions(params, ctx, this.#caller);
    const args = { ...params.arguments, run_in_background: true };
    return this.#tasks.create(() => this.#callTool({ name: 'agent', arguments: args }, options) as never);
  }

  /**
   * Offers a message of the client to the forwarding fast path (after initialize): true when
   * it was taken, and its answer will come through `reply`.
   */
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
    const { registry, router, upstream, logger } = this.#options;
    const watch = watchResources({ registry, router, upstream, logger }, uris, this.#deliver);
    this.#watches.set(stream, watch.end);
    return watch.ready;
  }

  /** That stream ended (cancelled by the client). */
  unwatchResources(stream: string | number): void {
    this.#watches.get(stream)?.();
    this.#watches.delete(stream);
  }

  async close(): Promise<void> {
    this.#fastPath?.close();
    for (const stream of [...this.#watches.keys()]) this.unwatchResources(stream);
    this.#unsubscribe();
    this.#detach();
    for (const notifier of this.#notifiers.values()) notifier.close();
    // Shared results (and held calls) outlive one request.
    if (!this.#options.perRequest) await this.#results.close();
    if (!this.#options.inputRelay) this.#relay.close();
    await this.server.close();
  }

  /** Settles once the client has finished initialization (legacy: its capabilities are known), at once on a modern connection. */
  get initialized(): Promise<void> {
    return this.#initialized;
  }

  /** Lists found tools (search mode); the client hears list_changed when the list changed. */
  #activate(names: readonly string[]): { added: string[]; evicted: string[] } {
    const change = this.#pool!.activate(names);
    if (change.added.length > 0 || change.evicted.length > 0) {
      if (this.#options.perRequest) this.#options.perRequest.publish('notifications/tools/list_changed');
      else this.#notifiers.get('notifications/tools/list_changed')?.changed();
    }
    return change;
  }

  /** The client's roots changed: every running child that was told about roots hears it. */
  #fanOutRootsChanged(): void {
    for (const { connection } of this.#options.registry.snapshot.servers.values()) {
      connection.notify('notifications/roots/list_changed').catch((error: unknown) => {
        this.#options.logger.debug(
          () => `[${connection.name}] roots/list_changed not forwarded: ${messageOf(error)}`,
        );
      });
    }
  }

  /**
   * A tool call: mcpmux's own, or a child's. `round` is set for a 2026-07-28 client calling
   * directly: the child's questions then come back as input_required rounds.
   */
  async #callTool(
    params: CallToolRequest['params'],
    options: CallOptions,
    round?: ClientRound,
  ): Promise<CallToolResult | Record<string, unknown>> {
    try {
      const management = this.#management.get(params.name);
      if (management) return await management.handle(params.arguments, this.#context(options, round));
      // A call by a child's own name (an MCP App's) touches the tool by its exposed name.
      if (this.#pool)
        this.#pool.touch(
          this.#options.router.toolRoute(this.#options.registry.snapshot, params.name)?.exposedKey ??
            params.name,
        );
      const starting = this.#options.startup?.wait();
      if (starting) await starting;
      const { registry, router } = this.#options;
      const result = round
        ? await this.#relay.forward(
            { ...router.forwardTo(registry.snapshot, 'tools', params), method: 'tools/call' },
            round,
            options,
          )
        : await router.callTool(registry.snapshot, params, options);
      return isInputRequiredResult(result) ? result : await this.#results.fit(result as CallToolResult);
    } catch (error) {
      return toToolResult(error);
    }
  }

  /** The agent tools of this session: a background run reaches the client on the session, not on a request's stream. */
  #agentAccess(setup: AgentSetup): AgentAccess {
    const era = this.#caller.era;
    const sessionOrigin = this.#options.perRequest ? undefined : sessionCallerOrigin(this.server);
    // A 2026-07-28 client is asked only through the rounds of its own call (the relay does
    // that); this stand-in carries what it declared, to choose the model by.
    const throughRounds = (capabilities: ClientCapabilities | undefined): InputOrigin => ({
      capabilities,
      ask: () => Promise.reject(new Error('a 2026-07-28 client is asked only through input_required rounds')),
    });
    const model = (background: boolean, call: CallOptions, rounds?: HeldRounds) =>
      era === 'legacy'
        ? setup.models.for(background ? sessionOrigin : call.origin, era)
        : setup.models.for(!background && rounds ? throughRounds(rounds.capabilities) : undefined, era);
    return {
      runs: setup.runs,
      sessionOrigin,
      model,
      available: () =>
        typeof (era === 'legacy'
          ? setup.models.for(sessionOrigin, era)
          : setup.models.for(throughRounds(this.#declared), era)) !== 'string',
    };
  }

  /** The own tools listed now: agent and output join them when this client has a model. */
  #ownDefinitions(base: readonly Tool[]): readonly Tool[] {
    const available = this.#agent?.available() === true;
    if (!available) return base;
    const snapshot = this.#options.registry.snapshot;
    const key = String(snapshot.version);
    if (this.#ownListed?.key !== key) {
      const compact = (this.#options.expose ?? 'all') !== 'all';
      // A 2025 client may run agent as a task (tasks/get, tasks/result…).
      const agent = agentDefinition(snapshot);
      if (this.#tasks) agent.execution = { taskSupport: 'optional' };
      const agentTools = [agent, outputDefinition()].map((t) => (compact ? compactDefinition(t) : t));
      this.#ownListed = { key, tools: [...base, ...agentTools] };
    }
    return this.#ownListed.tools;
  }

  #context(options: CallOptions, round?: ClientRound): ManagementContext {
    return {
      registry: this.#options.registry,
      router: this.#options.router,
      policy: this.#options.policy,
      index: this.#options.index,
      results: this.#results,
      listedTools: () => this.#catalogs.list('tools').tools,
      ...(this.#options.expose === 'search' && {
        activate: (names: readonly string[]) => this.#activate(names),
      }),
      code: this.#options.code,
      callOptions: options,
      config: this.#options.config,
      // call_tool is the client's own call (its rounds come back to call_tool); code mode's
      // and a sub-agent's are not (they bring options of their own).
      callTool: (name, args, own) =>
        this.#callTool(
          { name, ...(args !== undefined && { arguments: args }) },
          own ?? options,
          own ? undefined : round,
        ) as Promise<CallToolResult>,
      agent: this.#agent,
      ...(round && {
        heldRounds: {
          capabilities: round.capabilities,
          hold: (tool: string, run: HeldRun) =>
            this.#relay.forward(
              {
                connection: {
                  name: 'mcpmux',
                  speaksModern: false,
                  // The relay gives a held call its origin (the rounds), signal and progress.
                  request: (_method, _params, held = {}) => run(held.origin!, held.signal!, held.onprogress!),
                },
                method: 'tools/call',
                params: {},
                requested: tool,
              },
              round,
              options,
            ),
        },
      }),
      started: async () => {
        await this.#options.startup?.wait();
      },
    };
  }
}
