// A child's tool that its server runs only as a task (MCP 2025-11-25: execution.taskSupport
// "required") is callable through mcpmux like any other tool: a plain call of it becomes a
// task that mcpmux waits on, for the many clients that do not do tasks. So it is listed as
// "optional": called as a task, it still runs as one (session/tasks/child-tasks.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { RELATED_TASK_META_KEY, type Tool } from '@modelcontextprotocol/server';
import type { ChildConnection } from '../child/child-connection.js';
import type { CallOptions } from '../child/child-types.js';
import { callTimeoutError } from '../protocol/forwarded-call.js';

export const runsOnlyAsTask = (tool: Tool): boolean => tool.execution?.taskSupport === 'required';

/** The tool as listed to clients: one its server runs only as a task may be called either way. */
export function listedTaskSupport(tool: Tool): Tool {
  return runsOnlyAsTask(tool) ? { ...tool, execution: { ...tool.execution, taskSupport: 'optional' } } : tool;
}

/** How often a task is polled: its server's pollInterval, within these bounds (ms). */
const POLL_MS = { least: 100, most: 10_000, unsaid: 1000 };

interface TaskState {
  taskId?: unknown;
  status?: unknown;
  statusMessage?: unknown;
  pollInterval?: unknown;
}

/**
 * A plain call of a tool its server runs only as a task, from a client that does not do
 * tasks: mcpmux makes the task, follows it with tasks/get as its server asks (each change of
 * its status message is progress to a caller that asked for some), and takes its result
 * once it ends or needs input (tasks/result carries the server's questions), so the client
 * gets the tool's answer as from any call, naming no task. Cancelling the call cancels it,
 * and so does --call-timeout, as for any call: a task whose status and message stay the same
 * that long has made no progress.
 */
export async function callAsTask(
  connection: ChildConnection,
  params: Record<string, unknown>,
  options: CallOptions,
): Promise<Record<string, unknown>> {
  // The wait between polls ends with the call, and with the server's calls (a crash, a removal):
  // such a call ends at once with the error the server's calls get, not at the next poll.
  const ended = connection.callsEnd;
  const created = await connection.request('tools/call', { ...params, task: {} }, options);
  let state = created['task'] as TaskState | undefined;
  const taskId = state?.taskId;
  if (typeof taskId !== 'string') return created; // answered in the foreground all the same
  const waitEnds = [options.signal, ended].filter((s): s is AbortSignal => s !== undefined);
  const timeoutMs = connection.callTimeoutMs;
  let changedAt = performance.now();
  let timedOut = false;
  try {
    for (let step = 1; state?.status === 'working'; step++) {
      const interval = typeof state.pollInterval === 'number' ? state.pollInterval : POLL_MS.unsaid;
      const wait = Math.min(POLL_MS.most, Math.max(POLL_MS.least, interval));
      await sleep(wait, undefined, { signal: AbortSignal.any(waitEnds), ref: false });
      const next: TaskState = await connection.request('tasks/get', { taskId }, options);
      if (typeof next.statusMessage === 'string' && next.statusMessage !== state.statusMessage)
        options.onprogress?.({ progress: step, message: next.statusMessage });
      if (next.status !== state.status || next.statusMessage !== state.statusMessage)
        changedAt = performance.now();
      else if (performance.now() - changedAt > timeoutMs) {
        timedOut = true;
        throw callTimeoutError(connection.name, `tool '${String(params['name'])}'`, timeoutMs);
      }
      state = next;
    }
    const { _meta, ...result } = await connection.request('tasks/result', { taskId }, options);
    const { [RELATED_TASK_META_KEY]: _task, ...meta } = (_meta ?? {}) as Record<string, unknown>;
    return Object.keys(meta).length > 0 ? { ...result, _meta: meta } : result;
  } catch (error) {
    if (options.signal?.aborted || timedOut)
      void connection.request('tasks/cancel', { taskId }).catch(() => {});
    throw ended?.aborted && !options.signal?.aborted ? ended.reason : error;
  }
}
