// Children's tools run as MCP tasks (2025-11-25, experimental): a client's task-augmented
// tools/call goes to the child, which runs the task; the child's task id is unique only at
// that child, so the client is given one of mcpmux's own for it. tasks/get, tasks/result and
// tasks/cancel reach the child under the child's id, and what comes back names the task by
// mcpmux's id again, as do the child's status notifications and a task's questions and log
// lines (its related-task `_meta`), which go only to the session that created the task. A
// session sees only its own tasks (over HTTP, clients share one connection to each child).
// A task outlives nothing of its server: once the process that ran it ends (a crash, a
// reload, a removal), its store is gone, so the task is answered here as it was last seen,
// failed if it had not ended (and its session told so, as its server would have). mcpmux's
// own agent runs as a task too (agent-tasks.ts); a plain call of a tool its server runs only
// as a task is router/task-support.ts's.
import { randomUUID } from 'node:crypto';
import { ProtocolErrorCode, RELATED_TASK_META_KEY } from '@modelcontextprotocol/server';
import type { CallOptions, JSONRPCRequestLike } from '../../child/child-types.js';
import type { ChildConnection } from '../../child/child-connection.js';
import { MuxError, WireError } from '../../common/errors.js';
import { errorResult } from '../results.js';
import type { NotifyClient } from '../../child/child-types.js';

/** Tasks remembered at most, the oldest forgotten first (a child keeps its own for its ttl). */
const REMEMBERED = 1000;

interface ChildTask {
  /** The session that created it. */
  readonly owner: object;
  readonly notify: NotifyClient | undefined;
  readonly connection: ChildConnection;
  readonly childId: string;
  /** Aborts, with the error its calls got, when the server process that runs the task ends. */
  readonly ended: AbortSignal;
  /** The task as last seen (created, tasks/get, tasks/cancel, a status notification), under the child's id. */
  seen: Record<string, unknown>;
  /** It was still running when its server ended, so mcpmux marked it failed. */
  failedByEnd?: true;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Every session's tasks at children, by mcpmux's id (one table, for the children's notifications). */
export class ChildTaskTable {
  readonly #tasks = new Map<string, ChildTask>();
  /** mcpmux's id by server and the child's id. */
  readonly #ids = new Map<string, string>();
  /** Each task's listener on its server's end, removed when it is forgotten. */
  readonly #endListeners = new Map<string, () => void>();

  /** One session's tasks. */
  session(notify: NotifyClient | undefined): SessionChildTasks {
    return new SessionChildTasks(this, notify);
  }

  add(task: ChildTask): string {
    const id = randomUUID();
    this.#tasks.set(id, task);
    this.#ids.set(keyOf(task.connection.name, task.childId), id);
    const onEnd = () => this.#serverEnded(id, task);
    task.ended.addEventListener('abort', onEnd, { once: true });
    this.#endListeners.set(id, onEnd);
    if (this.#tasks.size > REMEMBERED) this.#forget(...this.#tasks.entries().next().value!);
    return id;
  }

  get(id: string, owner: object): ChildTask | undefined {
    const task = this.#tasks.get(id);
    if (task?.owner !== owner) return undefined;
    if (task.ended.aborted && pastTtl(task.seen)) return void this.#forget(id, task);
    return task;
  }

  #forget(id: string, task: ChildTask): void {
    this.#tasks.delete(id);
    this.#ids.delete(keyOf(task.connection.name, task.childId));
    const onEnd = this.#endListeners.get(id);
    if (onEnd) task.ended.removeEventListener('abort', onEnd);
    this.#endListeners.delete(id);
  }

  /** A task's server ended: one still running failed, and its session hears so at once. */
  #serverEnded(id: string, task: ChildTask): void {
    this.#endListeners.delete(id);
    if (!markEnded(task) || !task.notify) return;
    void task
      .notify({ method: 'notifications/tasks/status', params: { ...task.seen, taskId: id } })
      .catch(() => {});
  }

  /** The ids of `owner`'s tasks (past their ttl after their server ended: forgotten now). */
  owned(owner: object): string[] {
    return [...this.#tasks.keys()].filter((id) => this.get(id, owner) !== undefined);
  }

  /**
   * A child's request or notification that names one of its tasks in its related-task
   * `_meta` (a question or log line of the task; the SDK queues them for tasks/result): the
   * key names mcpmux's id instead, and `owner` reaches the session whose task it is. A task no
   * client was given (one mcpmux follows itself for a plain call, router/task-support.ts) or
   * has forgotten loses the key: a child's id means nothing to a client, and may be another's.
   */
  related(
    server: string,
    message: JSONRPCRequestLike,
  ): { message: JSONRPCRequestLike; owner?: NotifyClient } {
    const meta = message.params?.['_meta'] as Record<string, { taskId?: unknown } | undefined> | undefined;
    const childId = meta?.[RELATED_TASK_META_KEY]?.taskId;
    if (meta === undefined || childId === undefined) return { message };
    const id = typeof childId === 'string' ? this.#ids.get(keyOf(server, childId)) : undefined;
    const task = id === undefined ? undefined : this.#tasks.get(id);
    const { [RELATED_TASK_META_KEY]: related, ...rest } = meta;
    const renamedMeta = task ? { ...meta, [RELATED_TASK_META_KEY]: { ...related, taskId: id } } : rest;
    const { _meta: _, ...params } = message.params!;
    return {
      message: {
        ...message,
        params: Object.keys(renamedMeta).length > 0 ? { ...params, _meta: renamedMeta } : params,
      },
      ...(task?.notify && { owner: task.notify }),
    };
  }

  /**
   * The session that `notify` reaches ended: its tasks are cancelled at their children, since
   * no other session may fetch them (a reconnecting client is a new session), and forgotten.
   */
  release(notify: NotifyClient): void {
    for (const [id, task] of this.#tasks) {
      if (task.notify !== notify) continue;
      this.#forget(id, task);
      if (task.ended.aborted) continue;
      // One that ended already is refused by its child; nothing waits for the answer.
      void task.connection.request('tasks/cancel', { taskId: task.childId }).catch(() => {});
    }
  }

  /** A child's notifications/tasks/status: to the session whose task it is, under mcpmux's id. */
  status(server: string, notification: JSONRPCRequestLike): void {
    const childId = notification.params?.['taskId'];
    const id = typeof childId === 'string' ? this.#ids.get(keyOf(server, childId)) : undefined;
    const task = id === undefined ? undefined : this.#tasks.get(id);
    if (task) task.seen = withoutMeta(notification.params!);
    if (!task?.notify) return;
    void task
      .notify({ method: notification.method, params: { ...notification.params, taskId: id } })
      .catch(() => {});
  }
}

export class SessionChildTasks {
  readonly #table: ChildTaskTable;
  readonly #notify: NotifyClient | undefined;
  /** What the table knows this session by. */
  readonly #owner = {};

  constructor(table: ChildTaskTable, notify: NotifyClient | undefined) {
    this.#table = table;
    this.#notify = notify;
  }

  /** A task-augmented call of a child's tool: the child's CreateTaskResult, under mcpmux's id. */
  async create(
    connection: ChildConnection,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    const result = await connection.request('tools/call', params, options);
    const task = result['task'] as { taskId?: unknown } | undefined;
    // A server may run a call in the foreground all the same: its result is the answer.
    if (typeof task?.taskId !== 'string') return result;
    const id = this.#table.add({
      owner: this.#owner,
      notify: this.#notify,
      connection,
      childId: task.taskId,
      // Its server ended between its answer and now: the task went with it.
      ended: connection.callsEnd ?? AbortSignal.abort(serverGone(connection.name)),
      seen: task,
    });
    return { ...result, task: { ...task, taskId: id } };
  }

  has(id: unknown): boolean {
    return typeof id === 'string' && this.#table.get(id, this.#owner) !== undefined;
  }

  /** tasks/get, tasks/result or tasks/cancel of one of this session's tasks. */
  async handle(method: string, params: Record<string, unknown>, options: CallOptions): Promise<unknown> {
    const id = params['taskId'] as string;
    const task = this.#table.get(id, this.#owner)!;
    if (task.ended.aborted) return answerAfterEnd(method, task, id);
    let answer: Record<string, unknown>;
    try {
      answer = await task.connection.request(method, { ...params, taskId: task.childId }, options);
    } catch (error) {
      // Its server ended while asked: what a task of an ended server answers, not the call's error.
      if (task.ended.aborted) return answerAfterEnd(method, task, id);
      throw error;
    }
    if (method !== 'tasks/result') task.seen = withoutMeta(answer);
    return renamed(answer, task.childId, id);
  }

  /** This session's tasks, as their children say they are now (one a child cannot tell of is left out). */
  async list(options: CallOptions): Promise<Record<string, unknown>[]> {
    const tasks = await Promise.all(
      this.#table.owned(this.#owner).map(async (id) => {
        try {
          return [(await this.handle('tasks/get', { taskId: id }, options)) as Record<string, unknown>];
        } catch {
          return []; // its server forgot it (past its ttl)
        }
      }),
    );
    return tasks.flat().map(({ _meta: _, ...task }) => task);
  }
}

/** A child's answer about a task, naming it by mcpmux's id (the task itself, or its result's related-task). */
function renamed(answer: Record<string, unknown>, childId: string, id: string): Record<string, unknown> {
  const named = answer['taskId'] === childId ? { ...answer, taskId: id } : answer;
  const meta = answer['_meta'] as Record<string, { taskId?: unknown } | undefined> | undefined;
  if (meta?.[RELATED_TASK_META_KEY]?.taskId !== childId) return named;
  return {
    ...named,
    _meta: { ...meta, [RELATED_TASK_META_KEY]: { ...meta[RELATED_TASK_META_KEY], taskId: id } },
  };
}

/**
 * A task whose server process ended (MCP 2025-11-25: terminal states never change): tasks/get
 * gives it as last seen, failed with why if it had not ended; tasks/result what a call gets
 * when its server ends (the result, if it had one, went with the server); tasks/cancel is refused.
 */
function answerAfterEnd(method: string, task: ChildTask, id: string): Record<string, unknown> {
  const why = task.ended.reason as MuxError;
  markEnded(task);
  const status = task.seen['status'] as string;
  if (method === 'tasks/cancel')
    throw new WireError(ProtocolErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${status}`);
  if (method === 'tasks/get') return { ...task.seen, taskId: id };
  // One that had ended on its own (completed, or failed at its server) had a result, lost with it.
  const lost = task.failedByEnd ? '' : `the result of task '${id}' was lost: `;
  return {
    ...errorResult(`${lost}${why.message} [${why.code}]`),
    _meta: { [RELATED_TASK_META_KEY]: { taskId: id } },
  };
}

/** A task whose server ended, failed with why if it had not ended; whether it changed. */
function markEnded(task: ChildTask): boolean {
  if (TERMINAL.has(task.seen['status'] as string)) return false;
  task.seen = {
    ...task.seen,
    status: 'failed',
    statusMessage: (task.ended.reason as MuxError).message,
    lastUpdatedAt: new Date().toISOString(),
  };
  task.failedByEnd = true;
  return true;
}

/** Past its ttl (counted from its creation, null for none): its server would have forgotten it. */
function pastTtl(task: Record<string, unknown>): boolean {
  const { ttl, createdAt } = task;
  return typeof ttl === 'number' && typeof createdAt === 'string' && Date.parse(createdAt) + ttl < Date.now();
}

const withoutMeta = ({ _meta: _, ...task }: Record<string, unknown>) => task;

const serverGone = (name: string) =>
  new MuxError('SERVER_STOPPED', `server '${name}' ended as its task began`);

const keyOf = (server: string, childId: string) => `${server}\u0000${childId}`;

/** A task id no session of the client's knows of. */
export function unknownTask(id: unknown): WireError {
  return new WireError(ProtocolErrorCode.InvalidParams, `no task '${String(id)}'`);
}
