// The tools of --expose code: list_modules and read_module to discover the servers' typed
// APIs, execute_code to run a program against them (src/code/ does the work).
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { MAX_TIMEOUT_SECONDS, MODULE_PRELUDE } from '../../code/code-mode-limits.js';
import type { CodeMode } from '../../code/code-mode.js';
import { runningServers } from '../../children/children-snapshot.js';
import { serverPurpose } from '../../search/server-purpose.js';
import { MuxError } from '../../common/errors.js';
import type { ManagementContext, ManagementTool } from './tool-context.js';
import { jsonResult } from '../results.js';
import { define, parseArguments } from './tool-definition.js';

const listModulesInput = z.object({}).strict();
const readModuleInput = z
  .object({
    server: z.string().describe('A server named by list_modules.'),
    tools: z
      .array(z.string())
      .optional()
      .describe('Only these tools (the names in the module). Default: all.'),
  })
  .strict();
const executeCodeInput = z
  .object({
    code: z
      .string()
      .min(1)
      .max(200_000)
      .describe(
        'TypeScript run as the body of an async function: await tools.<server>.<tool>(args), console.log, and return the answer.',
      ),
    timeout_seconds: z
      .number()
      .positive()
      .max(MAX_TIMEOUT_SECONDS)
      .optional()
      .describe(`Default 30, at most ${MAX_TIMEOUT_SECONDS}.`),
    servers: z
      .array(z.string())
      .optional()
      .describe('Only these servers are reachable from the program. Default: all.'),
  })
  .strict();

export function createCodeModeTools(): ManagementTool[] {
  return [
    {
      definition: define(
        'list_modules',
        'List the servers a program can call, with their tool counts and what they are for. Read one with read_module.',
        listModulesInput,
      ),
      handle: listModules,
    },
    {
      definition: define(
        'read_module',
        "Read a server's TypeScript declarations: each tool as tools.<server>.<tool>(args) with its argument and result types and its description.",
        readModuleInput,
      ),
      handle: readModule,
    },
    {
      definition: define(
        'execute_code',
        'Run a TypeScript program that calls tools and returns only what matters, e.g. ' +
          '`const g = await tools.memory.read_graph(); return g.entities.filter((e) => e.entityType === "person").map((e) => e.name);`. ' +
          'It runs in a sandbox: no Node APIs, network or timers; only tools.<server>.<tool>() and console. ' +
          'Returns {ok, return_value, logs, tool_calls, duration_ms}, or the error with its line.',
        executeCodeInput,
      ),
      handle: executeCode,
    },
  ];
}

async function listModules(raw: unknown, ctx: ManagementContext): Promise<CallToolResult> {
  parseArguments('list_modules', listModulesInput, raw);
  const modules = runningServers(ctx.children.snapshot).map((view) => ({
    server: view.name,
    tools: view.tools.length,
    summary: summarize(view.connection.about, view.tools),
  }));
  return jsonResult({
    modules,
    ...(modules.length === 0 && { hint: 'no server is running; add one with add_server' }),
  });
}

async function readModule(raw: unknown, ctx: ManagementContext): Promise<CallToolResult> {
  const { server, tools } = parseArguments('read_module', readModuleInput, raw);
  const code = requireCode(ctx);
  const running = runningServers(ctx.children.snapshot);
  const view = running.find((v) => v.name === server);
  if (!view)
    throw new MuxError(
      'SERVER_NOT_FOUND',
      `no running server named '${server}'; running: ${running.map((v) => v.name).join(', ') || '(none)'}`,
    );
  const unknown = (tools ?? []).filter((name) => !view.tools.some((t) => t.name === name));
  if (unknown.length > 0) {
    throw new MuxError(
      'TOOL_NOT_FOUND',
      `server '${server}' has no tool ${unknown.map((n) => `'${n}'`).join(', ')}; it has ${view.tools.map((t) => t.name).join(', ')}`,
    );
  }
  const shown = tools ? view.tools.filter((t) => tools.includes(t.name)) : view.tools;
  const text = await code.declarations.module(server, shown, view.tools.length);
  return { content: [{ type: 'text', text: `${MODULE_PRELUDE}\n\n${text}\n` }] };
}

async function executeCode(raw: unknown, ctx: ManagementContext): Promise<CallToolResult> {
  const args = parseArguments('execute_code', executeCodeInput, raw);
  const result = await requireCode(ctx).execute(
    { code: args.code, timeoutSeconds: args.timeout_seconds, servers: args.servers },
    { children: ctx.children, router: ctx.router, options: ctx.callOptions },
  );
  const reply = jsonResult(result as unknown as Record<string, unknown>);
  return ctx.results.fit(result.ok ? reply : { ...reply, isError: true });
}

function requireCode(ctx: ManagementContext): CodeMode {
  if (!ctx.code) throw new MuxError('NOT_SUPPORTED', 'code mode is off; start mcpmux with --expose code');
  return ctx.code;
}

/** One line on what a server is for: its own instructions or title when it gives them, else its first tools. */
function summarize(
  about: { name?: string; title?: string; instructions?: string } | undefined,
  tools: readonly { name: string }[],
): string {
  const said = serverPurpose(about);
  const names =
    tools
      .slice(0, 6)
      .map((t) => t.name)
      .join(', ') + (tools.length > 6 ? ', …' : '');
  const prefix = said ? `${said} ` : about?.name ? `${about.name}: ` : '';
  return `${prefix}(${names})`;
}
