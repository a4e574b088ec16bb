// A child's tool that its server runs only as a task (MCP 2025-11-25: execution.taskSupport
// "required") is callable through mcpmux like any other tool: a plain call of it becomes a
// task that mcpmux waits on, for the many clients that do not do tasks. So it is listed as
// "optional": called as a task, it still runs as one (proxy/child-tasks.ts).
import { RELATED_TASK_META_KEY, type Tool } from '@modelcontextprotocol/server';
import type { ChildConnection } from '../child/child-connection.js';
import type { CallOptions } from '../child/child-types.js';

export const runsOnlyAsTask = (tool: Tool): boolean => tool.execution?.taskSupport === 'required';

/** The tool as listed to clients: one its server runs only as a task may be called either way. */
export function listedTaskSupport(tool: Tool): Tool {
  return runsOnlyAsTask(tool) ? { ...tool, execution: { ...tool.execution, taskSupport: 'optional' } } : tool;
}

/**
 * A plain call of a tool its server runs only as a task, from a
 * client that does not do tasks: mcpmux makes the task and waits for its result, so the
 * client gets the tool's answer as from any call (within --call-timeout). Cancelling the call
 * cancels the task.
 */
export async function callAsTask(
  connection: ChildConnection,
  params: Record<string, unknown>,
  options: CallOptions,
): Promise<Record<string, unknown>> {
  const created = await connection.request('tools/call', { ...params, task: {} }, options);
  const taskId = (created['task'] as { taskId?: unknown } | undefined)?.taskId;
  if (typeof taskId !== 'string') return created; // answered in the foreground all the same
  const cancel = () => void connection.request('tasks/cancel', { taskId }).catch(() => {});
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const { _meta, ...result } = await connection.request('tasks/result', { taskId }, options);
    // The client never saw the task: its result names none.
    const { [RELATED_TASK_META_KEY]: _task, ...meta } = (_meta ?? {}) as Record<string, unknown>;
    return Object.keys(meta).length > 0 ? { ...result, _meta: meta } : result;
  } finally {
    options.signal?.removeEventListener('abort', cancel);
  }
}
