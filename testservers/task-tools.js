// @ts-check
// Simulates: a server whose tools run only as MCP tasks (2025-11-25, execution.taskSupport
// "required"), built on the SDK's experimental task store, and which says on stderr what
// became of each task, so a test can see what reached it through mcpmux.
// Tools:
//   job {steps, step_ms?}      works for steps × step_ms (default 100), a status message each step
//                              ("step N of M"), then completes with "done after M steps"; a
//                              cancel stops it ("task ID cancelled at step N" on stderr).
//   crash {after_ms, poll_ms?} the process exits (status 3) after_ms into the task, which asks
//                              to be polled every poll_ms (default 100).
//   forgotten {ttl_ms}         stays working, but its store forgets it after ttl_ms.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { z } from 'zod';

const taskStore = new InMemoryTaskStore();
const server = new McpServer(
  { name: 'task-tools', version: '1.0.0' },
  {
    capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore,
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  },
);
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);

/**
 * A task-only tool: `run` works in the background on the task's id; the task is polled as usual.
 * @param {string} name @param {string} description @param {z.ZodRawShape} inputSchema
 * @param {(taskId: string, args: any) => Promise<void>} run @param {number | null} ttl
 */
function taskTool(name, description, inputSchema, run, ttl = 60_000) {
  server.experimental.tasks.registerToolTask(
    name,
    { description, inputSchema, execution: { taskSupport: 'required' } },
    {
      createTask: async (args, extra) => {
        const task = await extra.taskStore.createTask({
          ttl: ttl ?? args.ttl_ms,
          pollInterval: args.poll_ms ?? 100,
        });
        say(`task ${task.taskId} created by ${name}`);
        run(task.taskId, args).catch((error) => say(`task ${task.taskId} failed: ${error}`));
        return { task };
      },
      getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
    },
  );
}

const isCancelled = async (/** @type {string} */ taskId) =>
  (await taskStore.getTask(taskId))?.status === 'cancelled';

taskTool(
  'job',
  'Works for a number of steps, then says it is done',
  { steps: z.number().int().min(1), step_ms: z.number().int().min(1).optional() },
  async (taskId, { steps, step_ms = 100 }) => {
    for (let step = 1; step <= steps; step++) {
      if (await isCancelled(taskId)) return say(`task ${taskId} cancelled at step ${step}`);
      await taskStore.updateTaskStatus(taskId, 'working', `step ${step} of ${steps}`);
      await sleep(step_ms);
    }
    if (await isCancelled(taskId)) return say(`task ${taskId} cancelled at the end`);
    await taskStore.storeTaskResult(taskId, 'completed', {
      content: [{ type: 'text', text: `done after ${steps} steps` }],
    });
    say(`task ${taskId} completed`);
  },
);
taskTool(
  'crash',
  'Exits the server partway through its task',
  { after_ms: z.number().int().min(0), poll_ms: z.number().int().min(1).optional() },
  async (_taskId, { after_ms }) => {
    await sleep(after_ms);
    process.exit(3);
  },
);
taskTool(
  'forgotten',
  'Stays working until its task store forgets it',
  { ttl_ms: z.number().int().min(1) },
  async () => {},
  null,
);

await server.connect(new StdioServerTransport());
