// MCP tasks (2025-11-25, experimental) for the agent tool: a task-augmented tools/call of
// `agent` starts a background run whose agentId is the task's id, and tasks/get,
// tasks/result, tasks/cancel and tasks/list read and steer the runs. The SDK (v2) keeps only
// the wire vocabulary of tasks, so mcpmux answers these methods itself. Children's tools run
// as tasks at their children (child-tasks.ts).
import { ProtocolErrorCode, RELATED_TASK_META_KEY, type CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { AgentRuns, AgentState } from '../../agent/agent-runs.js';
import { WireError } from '../../common/errors.js';
import { jsonResult } from '../results.js';

/** What mcpmux declares: tasks for tools/call (of agent), with tasks/list and tasks/cancel. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/** How often a client should poll tasks/get. */
const POLL_INTERVAL_MS = 1000;

const TaskParams = z.looseObject({ taskId: z.string() });

export class AgentTasks {
  readonly #runs: AgentRuns;
  /** The tasks this session created, for tasks/list. */
  readonly #mine = new Set<string>();

  constructor(runs: AgentRuns) {
    this.#runs = runs;
  }

  /**
   * A task-augmented call of agent: `launch` runs agent in the background (its result says
   * async_launched with the agentId, or why it could not start).
   */
  async create(launch: () => Promise<CallToolResult>): Promise<Record<string, unknown>> {
    const launched = await launch();
    const agentId = (launched.structuredContent as { agentId?: unknown } | undefined)?.agentId;
    if (launched.isError || typeof agentId !== 'string') {
      const said = launched.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      throw new WireError(ProtocolErrorCode.InvalidParams, `agent could not start as a task: ${said}`);
    }
    this.#mine.add(agentId);
    return { task: this.#task(agentId, (await this.#runs.state(agentId))!) };
  }

  /** tasks/get, tasks/result, tasks/cancel, tasks/list. */
  async handle(method: string, params: unknown): Promise<Record<string, unknown>> {
    if (method === 'tasks/list') {
      const states = await Promise.all(
        [...this.#mine].map(async (id) => [id, await this.#runs.state(id)] as const),
      );
      return { tasks: states.flatMap(([id, state]) => (state ? [this.#task(id, state)] : [])) };
    }
    const parsed = TaskParams.safeParse(params);
    if (!parsed.success)
      throw new WireError(ProtocolErrorCode.InvalidParams, `${method} needs params {taskId: string}`);
    const id = parsed.data.taskId;
    const state = await this.#runs.state(id);
    if (!state) throw new WireError(ProtocolErrorCode.InvalidParams, `no task '${id}'`);
    switch (method) {
      case 'tasks/get':
        return this.#task(id, state);
      case 'tasks/result': {
        const outcome = await this.#runs.outcome(id);
        // What agent itself would have answered in the foreground.
        return {
          ...jsonResult({ agentId: id, ...outcome }),
          ...(outcome?.status !== 'completed' && { isError: true }),
          _meta: { [RELATED_TASK_META_KEY]: { taskId: id } },
        };
      }
      case 'tasks/cancel': {
        if (!this.#runs.cancel(id))
          throw new WireError(
            ProtocolErrorCode.InvalidParams,
            `task '${id}' is already ${state.status}; only a working task can be cancelled`,
          );
        await this.#runs.outcome(id);
        return this.#task(id, (await this.#runs.state(id))!);
      }
      default:
        throw new WireError(ProtocolErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
  }

  #task(id: string, state: AgentState): Record<string, unknown> {
    const outcome = state.outcome;
    return {
      taskId: id,
      status: state.status === 'running' ? 'working' : state.status,
      ...(outcome?.error !== undefined && { statusMessage: outcome.error }),
      createdAt: new Date(state.startedAt).toISOString(),
      lastUpdatedAt: new Date(state.updatedAt).toISOString(),
      // Transcripts are kept until their owner deletes them.
      ttl: null,
      pollInterval: POLL_INTERVAL_MS,
    };
  }
}
