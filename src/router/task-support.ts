// A child's tool that its server runs only as a task (MCP 2025-11-25: execution.taskSupport
// "required") is callable through mcpmux like any other tool: a plain call of it becomes a
// task that mcpmux waits on (proxy/child-tasks.ts), for the many clients that do not do
// tasks. So it is listed as "optional": called as a task, it still runs as one.
import type { Tool } from '@modelcontextprotocol/server';

export const runsOnlyAsTask = (tool: Tool): boolean => tool.execution?.taskSupport === 'required';

/** The tool as listed to clients: one its server runs only as a task may be called either way. */
export function listedTaskSupport(tool: Tool): Tool {
  return runsOnlyAsTask(tool) ? { ...tool, execution: { ...tool.execution, taskSupport: 'optional' } } : tool;
}
