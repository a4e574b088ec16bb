// A session's tool calls: one of mcpmux's own tools (given the session's context), or a
// child's, forwarded by its exposed name once the servers given at start are up. A
// 2025 session's tools/call arrives here through the SDK as an unhandled method (see
// legacyToolCallHandler); the forwarding fast path takes most before that.
import { telemetry } from '../common/telemetry.js';
import { ProtocolErrorCode, isInputRequiredResult } from '@modelcontextprotocol/server';
import type { CallToolRequest, CallToolResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ActivationPool } from '../search/activation-pool.js';
import type { ToolIndex } from '../search/tool-index.js';
import type { CallOptions } from '../child/child-types.js';
import type { CodeMode } from '../code/code-mode.js';
import { WireError, isMuxError } from '../common/errors.js';
import type { SpawnPolicy } from '../policy/spawn-policy.js';
import type { Children } from '../children/children.js';
import type { StartupGate } from '../children/startup-gate.js';
import type { ResultStore } from '../results/result-store.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import { forwardedParams } from '../router/forwarded-params.js';
import { runsOnlyAsTask } from '../router/task-support.js';
import type { AgentTasks } from './tasks/agent-tasks.js';
import { unknownTask, type SessionChildTasks } from './tasks/child-tasks.js';
import type { AgentAccess } from './tools/tool-context.js';
import { forwardingOptions, type Caller } from './relay/forwarding-options.js';
import type { HeldRun } from './relay/held-call.js';
import type { ClientRound, InputRelay } from './relay/input-relay.js';
import type {
  ManagementContext,
  ManagementTool,
  ClusterLink,
  PersistentConfig,
  RegistryAccess,
} from './tools/tool-context.js';
import { toToolResult } from './results.js';
import { reviewHeldItem } from './held-review.js';
import { askPersonOf } from './tools/person-form.js';

export interface ToolCallsOptions {
  children: Children;
  router: CatalogRouter;
  /** mcpmux's own tools of the session's mode, by name. */
  own: ReadonlyMap<string, ManagementTool>;
  /** Search, code and agent mode: the child tools listed now (a call touches its tool). */
  pool: ActivationPool | undefined;
  results: ResultStore;
  /** Carries a child's questions to a 2026-07-28 client as input_required rounds. */
  relay: InputRelay;
  /** The servers given at start: a call waits until each has started or failed. */
  startup?: StartupGate | undefined;
  policy?: SpawnPolicy | undefined;
  index: ToolIndex;
  code?: CodeMode | undefined;
  config?: PersistentConfig | undefined;
  registries?: RegistryAccess | undefined;
  cluster?: ClusterLink | undefined;
  agent: AgentAccess | undefined;
  /** The tools/list this client gets now. */
  listedTools: () => readonly Tool[];
  /** Search mode: lists found tools (the client hears list_changed when the list changed). */
  activate?: ((names: readonly string[]) => { added: string[]; evicted: string[] }) | undefined;
  /**
   * Sends the client the list changes pending now. Called before one of mcpmux's own tools
   * answers: a client hears that add_server's tools are listed before it reads the answer.
   */
  tellListChanges?: () => Promise<void>;
}

export class ToolCalls {
  readonly #options: ToolCallsOptions;

  constructor(options: ToolCallsOptions) {
    this.#options = options;
  }

  /**
   * A tool call: mcpmux's own, or a child's. `round` is set for a 2026-07-28 client calling
   * directly: the child's questions then come back as input_required rounds.
   */
  async call(
    params: CallToolRequest['params'],
    options: CallOptions,
    round?: ClientRound,
  ): Promise<CallToolResult | Record<string, unknown>> {
    if (!telemetry.enabled) return this.#call(params, options, round);
    const attributes = { 'gen_ai.tool.name': params.name };
    telemetry.add('mcpmux.calls.in_flight', 1, attributes);
    try {
      return await this.#call(params, options, round);
    } finally {
      telemetry.add('mcpmux.calls.in_flight', -1, attributes);
    }
  }

  async #call(
    params: CallToolRequest['params'],
    options: CallOptions,
    round?: ClientRound,
    reviewed = false,
  ): Promise<CallToolResult | Record<string, unknown>> {
    const { own, children, router, relay, results } = this.#options;
    try {
      const management = own.get(params.name);
      if (management)
        try {
          const answer = await management.handle(params.arguments, this.#context(options, round));
          // Held to the budget of a child's result (read_result's own answer is the reading of one).
          return params.name === 'read_result' || isInputRequiredResult(answer)
            ? answer
            : await results.fit(answer as CallToolResult);
        } finally {
          await this.#options.tellListChanges?.();
        }
      // Not awaited when nothing is starting: no tick of its own on the way to the child.
      const starting = this.#childToolCalled(params.name);
      if (starting) await starting;
      // A tool its server runs only as a task is waited on as one, by the router (task-support.ts).
      const result =
        round && !this.#runsOnlyAsTask(params.name)
          ? await relay.forward(
              { ...router.forwardTo(children.snapshot, 'tools', params), method: 'tools/call' },
              round,
              options,
            )
          : await router.callTool(children.snapshot, params, options);
      return isInputRequiredResult(result) ? result : await results.fit(result as CallToolResult);
    } catch (error) {
      // A tool held since its server was approved: the person may release it, and the call goes on.
      if (!reviewed && (await reviewHeldItem(error, children, askPersonOf(options.origin, options.signal))))
        return this.#call(params, options, round, true);
      return toToolResult(error);
    }
  }

  /** A task-augmented call of a child's tool (a 2025 client's): the child runs it as a task. */
  async startTask(
    params: CallToolRequest['params'],
    options: CallOptions,
    tasks: SessionChildTasks,
  ): Promise<Record<string, unknown>> {
    const { own, children, router } = this.#options;
    if (own.has(params.name))
      throw new WireError(ProtocolErrorCode.MethodNotFound, `${params.name} does not run as a task`);
    await this.#childToolCalled(params.name);
    try {
      const { item, connection } = router.route(children.snapshot, 'tools', params.name);
      // MCP: a tool runs as a task only where its server says it may (execution.taskSupport).
      const support = item.execution?.taskSupport;
      if (support !== 'optional' && support !== 'required')
        throw new WireError(
          ProtocolErrorCode.MethodNotFound,
          `${params.name} does not run as a task (its server does not say it may: execution.taskSupport); call it without "task"`,
        );
      const forwarded = forwardedParams(params, item.name) as Record<string, unknown>;
      return await tasks.create(connection, forwarded, options);
    } catch (error) {
      // No such tool, or its server is not running: said as the error of the request.
      throw isMuxError(error) ? new WireError(ProtocolErrorCode.InvalidParams, error.message) : error;
    }
  }

  /**
   * A child's tool is about to be called: it is touched in the search pool (by its exposed
   * name, also when called by a child's own name, as an MCP App's UI does), and the call
   * waits until the servers given at start are up (what this returns, while they are not).
   */
  #childToolCalled(name: string): Promise<void> | undefined {
    const { pool, children, router, startup } = this.#options;
    if (pool) pool.touch(router.toolRoute(children.snapshot, name)?.exposedKey ?? name);
    return startup?.wait();
  }

  #runsOnlyAsTask(name: string): boolean {
    const route = this.#options.router.toolRoute(this.#options.children.snapshot, name);
    return route !== undefined && runsOnlyAsTask(route.item);
  }

  #context(options: CallOptions, round?: ClientRound): ManagementContext {
    // What a management tool sees of the session as it is; the rest is this call's.
    const { own: _own, pool: _pool, relay, startup, ...session } = this.#options;
    return {
      ...session,
      callOptions: options,
      // call_tool is the client's own call (its rounds come back to call_tool); code mode's
      // and a sub-agent's are not (they bring options of their own).
      callTool: (name, args, ownOptions) =>
        this.call(
          { name, ...(args !== undefined && { arguments: args }) },
          ownOptions ?? options,
          ownOptions ? undefined : round,
        ) as Promise<CallToolResult>,
      ...(round && {
        heldRounds: {
          capabilities: round.capabilities,
          hold: (tool: string, run: HeldRun) =>
            relay.forward(
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
        await startup?.wait();
      },
    };
  }
}

/** What tools/call needs of its params; the rest (task, other _meta) travels on unchecked. */
const CallToolParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  _meta: z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional(),
});

type CallerContext = Parameters<typeof forwardingOptions>[1];

/**
 * What runs as a task for a 2025 session (2025-11-25's experimental tasks): a child's tool at
 * its child (child-tasks.ts), agent as a background run (agent-tasks.ts, with the agent tools).
 */
export interface SessionTasks {
  agent: AgentTasks | undefined;
  children: SessionChildTasks;
}

/**
 * A 2025 session's handler of methods the SDK's Server has none for: tools/call, and the
 * tasks/ methods. tools/call is the hot path: the Server class wraps a
 * tools/call handler so that it parses the request twice and the result once with zod; the
 * client validates the result anyway, so the call is taken here and its params checked once.
 */
export function legacyToolCallHandler(
  calls: ToolCalls,
  caller: Caller,
  tasks: SessionTasks,
): (request: { method: string; params?: unknown }, ctx: CallerContext) => Promise<unknown> {
  return async (request, ctx) => {
    if (request.method.startsWith('tasks/'))
      return taskMethod(request.method, request.params, forwardingOptions(undefined, ctx, caller), tasks);
    if (request.method !== 'tools/call')
      throw new WireError(ProtocolErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const parsed = CallToolParams.safeParse(request.params);
    if (!parsed.success)
      throw new WireError(
        ProtocolErrorCode.InvalidParams,
        `Invalid tools/call request: ${z.prettifyError(parsed.error)}`,
      );
    const params = parsed.data as CallToolRequest['params'];
    const options = forwardingOptions(params, ctx, caller);
    if (params['task'] === undefined) return calls.call(params, options);
    if (params.name !== 'agent' || !tasks.agent) return calls.startTask(params, options, tasks.children);
    // agent starts in the background, its agentId the task's id.
    const args = { ...params.arguments, run_in_background: true };
    return tasks.agent.create(() => calls.call({ name: 'agent', arguments: args }, options) as never);
  };
}

/** tasks/get, tasks/result, tasks/cancel and tasks/list over the session's agent runs and children's tasks. */
async function taskMethod(
  method: string,
  params: unknown,
  options: CallOptions,
  tasks: SessionTasks,
): Promise<unknown> {
  const { agent, children } = tasks;
  if (method === 'tasks/list') {
    const own = agent ? ((await agent.handle(method, params)) as { tasks: unknown[] }).tasks : [];
    return { tasks: [...own, ...(await children.list(options))] };
  }
  if (!['tasks/get', 'tasks/result', 'tasks/cancel'].includes(method))
    throw new WireError(ProtocolErrorCode.MethodNotFound, `Method not found: ${method}`);
  const taskId = (params as { taskId?: unknown } | undefined)?.taskId;
  if (children.has(taskId)) return children.handle(method, params as Record<string, unknown>, options);
  if (agent) return agent.handle(method, params);
  throw unknownTask(taskId);
}
