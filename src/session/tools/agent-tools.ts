// The tools of delegation: `agent` hands a task to a sub-agent that works through the
// servers behind mcpmux (src/agent/ does the work), `output` reads, waits for or cancels
// background runs. Listed when a model is available (the client samples, or an API is configured).
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { agentDescription } from '../../agent/agent-description.js';
import type { ModelSource } from '../../agent/model-source.js';
import type { CallOptions, InputOrigin } from '../../child/child-types.js';
import { MuxError } from '../../common/errors.js';
import { runningServers, type ChildrenSnapshot } from '../../children/children-snapshot.js';
import { SubAgentToolbox } from '../../agent/sub-agent-toolbox.js';
import type { AgentAccess, ManagementContext, ManagementTool } from './tool-context.js';
import { SamplingModel } from '../../agent/sampling-model.js';
import { jsonResult } from '../results.js';
import { define, parseArguments } from './tool-definition.js';

export const AGENT_TOOL_NAMES = ['agent', 'output'] as const;

const agentInput = z
  .object({
    prompt: z
      .string()
      .min(1, 'prompt must not be empty')
      .max(100_000)
      .describe('The task, whole: what to do and what the answer must contain.'),
    servers: z
      .array(z.string())
      .min(1)
      .optional()
      .describe('Only the tools of these servers. Default: every running server.'),
    resume: z
      .string()
      .optional()
      .describe(
        'Continue this earlier agent (its agentId) with its whole history; prompt is the next instruction.',
      ),
    run_in_background: z
      .boolean()
      .optional()
      .describe('Return at once with the agentId; read the answer later with output.'),
    max_turns: z.number().int().min(1).max(200).optional().describe('Model turns at most. Default 20.'),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('A model hint, e.g. "claude-sonnet-4-5" (the client may not follow it).'),
  })
  .strict();

const outputInput = z
  .object({
    agentIds: z.array(z.string()).min(1).max(50).describe('The agents to report on (agentId from agent).'),
    block: z.boolean().optional().describe('Wait until all are done or wait_up_to passes. Default true.'),
    wait_up_to: z.number().min(0).max(300).optional().describe('Seconds to wait when blocking. Default 150.'),
    cancel: z.boolean().optional().describe('Stop these runs (and their tool calls in flight).'),
  })
  .strict();

const OUTPUT_DESCRIPTION =
  'Report on agents started with agent: completed (with the answer), running, failed (with the error and the tool calls done), ' +
  'cancelled or not_found, waiting up to wait_up_to seconds for them; cancel: true stops them.';

const DEFAULT_MAX_TURNS = 20;

/** The agent tool's definition, with the servers it can reach now. */
export function agentDefinition(snapshot: ChildrenSnapshot, budget?: number): Tool {
  const servers = runningServers(snapshot).map((view) => ({
    name: view.name,
    tools: view.tools,
    about: view.connection.about,
  }));
  return define('agent', agentDescription(servers, budget), agentInput);
}

export const outputDefinition = (): Tool => define('output', OUTPUT_DESCRIPTION, outputInput);

export function createAgentTools(): ManagementTool[] {
  return [
    { definition: define('agent', agentDescription([]), agentInput), handle: handleAgent },
    { definition: outputDefinition(), handle: handleOutput },
  ];
}

type AgentArgs = z.infer<typeof agentInput>;

async function handleAgent(raw: unknown, ctx: ManagementContext): Promise<CallToolResult> {
  const args = parseArguments('agent', agentInput, raw);
  const access = requireAgent(ctx);
  const background = args.run_in_background === true;
  // A 2026-07-28 client is sampled through the rounds of this very call.
  const rounds = background ? undefined : ctx.heldRounds;
  const model = access.model(background, ctx.callOptions, rounds);
  if (typeof model === 'string') throw new MuxError('NO_MODEL', model);
  // A sub-agent started with the client sees the configured servers, as the client's first list does.
  await ctx.started();
  const run = { ctx, access, args, background, allowed: reachableServers(ctx, args.servers) };
  if (rounds && model instanceof SamplingModel)
    return (await rounds.hold('agent', (origin, signal, onprogress) =>
      launch(run, new SamplingModel(origin), origin, signal, onprogress),
    )) as CallToolResult;
  if (background) return launch(run, model, access.sessionOrigin, undefined, undefined);
  const { origin, signal, onprogress } = ctx.callOptions;
  return launch(run, model, origin, signal, onprogress);
}

/** Starts a run on `source`, its tools those of the allowed servers, called for `origin`. */
async function launch(
  run: {
    ctx: ManagementContext;
    access: AgentAccess;
    args: AgentArgs;
    background: boolean;
    allowed: (server: string) => boolean;
  },
  source: ModelSource,
  origin: InputOrigin | undefined,
  signal: AbortSignal | undefined,
  onprogress: CallOptions['onprogress'],
): Promise<CallToolResult> {
  const { ctx, args } = run;
  const toolbox = new SubAgentToolbox({
    children: ctx.children,
    router: ctx.router,
    index: ctx.index,
    allowed: run.allowed,
    call: (name, toolArgs, callSignal) =>
      ctx.callTool(name, toolArgs, { signal: callSignal, ...(origin && { origin }) }),
  });
  const result = await run.access.runs.start({
    prompt: args.prompt,
    resume: args.resume,
    background: run.background,
    maxTurns: args.max_turns ?? DEFAULT_MAX_TURNS,
    modelHint: args.model,
    signal,
    deps: {
      model: source,
      tools: () => toolbox.list(),
      callTool: (name, toolArgs, callSignal) => toolbox.call(name, toolArgs, callSignal),
      ...(onprogress && {
        onprogress: (progress: number, message: string) => onprogress({ progress, message }),
      }),
    },
  });
  const failed = result['status'] === 'failed' || result['status'] === 'cancelled';
  return failed ? { ...jsonResult(result), isError: true } : jsonResult(result);
}

async function handleOutput(raw: unknown, ctx: ManagementContext): Promise<CallToolResult> {
  const args = parseArguments('output', outputInput, raw);
  const reports = await requireAgent(ctx).runs.output(args.agentIds, {
    block: args.block ?? true,
    waitMs: (args.wait_up_to ?? 150) * 1000,
    cancel: args.cancel === true,
  });
  return jsonResult({ agents: reports });
}

function requireAgent(ctx: ManagementContext): AgentAccess {
  if (!ctx.agent) throw new MuxError('NO_MODEL', 'the agent tools are off in this session');
  return ctx.agent;
}

/** The servers a run may use: the named ones (each must be running), else all running now and later. */
function reachableServers(
  ctx: ManagementContext,
  named: readonly string[] | undefined,
): (server: string) => boolean {
  if (!named) return () => true;
  const running = runningServers(ctx.children.snapshot).map((v) => v.name);
  const unknown = named.filter((name) => !running.includes(name));
  if (unknown.length > 0)
    throw new MuxError(
      'SERVER_NOT_FOUND',
      `agent: no running server named ${unknown.map((n) => `'${n}'`).join(', ')}; running: ${running.join(', ') || '(none)'}`,
    );
  return (server) => named.includes(server);
}
