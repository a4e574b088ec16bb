// What the agent does with MCP registries: find_servers (the configured registries' entries
// ranked for a need in words), and add_server with `registry` (an entry started, its secrets
// asked of the person through a form of their client, never of the model). The work of
// resolving an entry and asking for its secrets is mcp-registry/registry-add.ts.
import type { z } from 'zod';
import type { InputOrigin } from '../../child/child-types.js';
import { MuxError } from '../../common/errors.js';
import { foundServerSummary } from '../../mcp-registry/found-server.js';
import { runningAs } from '../../mcp-registry/mcp-registries.js';
import {
  prepareRegistryAdd,
  type RegistryAdd,
  type RegistryAddContext,
} from '../../mcp-registry/registry-add.js';
import { jsonResult } from '../results.js';
import {
  SPEC_FIELDS,
  findServersInput,
  findServersOutput,
  type addServerInput,
} from './management-schemas.js';
import { canAskForm, askPersonOf } from './person-form.js';
import { approveSandboxWidening } from './sandbox-approval.js';
import {
  checkPlacement,
  toPersist,
  persisted,
  requireConfig,
  sharedWithCluster,
  startServer,
} from './server-start.js';
import { define, parseArguments as parse } from './tool-definition.js';
import type { ManagementContext, ManagementTool, RegistryAccess } from './tool-context.js';
import type { CallToolResult } from '@modelcontextprotocol/server';

export const findServersTool = (): ManagementTool => ({
  definition: define(
    'find_servers',
    'Find MCP servers to add, in the MCP registries mcpmux is pointed at, by describing what you need, e.g. ' +
      '{"query": "remember facts as a knowledge graph"}: each hit says how it runs, the variables and arguments it takes ' +
      '(secrets are asked of the person, never of you) and whether it runs here already. Add one with add_server {name, registry}.',
    findServersInput,
    findServersOutput,
  ),
  handle: async (raw, ctx) => {
    const { query, limit } = parse('find_servers', findServersInput, raw);
    const { registries } = requireRegistries(ctx);
    const { found, problems } = await registries.find(query, limit ?? 5);
    const running = new Map(
      [...ctx.children.snapshot.servers].map(([name, view]) => [name, view.connection.spec]),
    );
    const servers = found.map((hit) => foundServerSummary(hit, runningAs(hit.server.entry, running)));
    return jsonResult({
      servers,
      ...(problems.length > 0 && { problems }),
      ...(servers.length === 0 && {
        hint: `no entry of ${registries.names.join(', ')} matches '${query}'; describe what the server should do in other words`,
      }),
    });
  },
});

type AddServerArgs = z.infer<typeof addServerInput>;

/** add_server {name, registry, version?, env?, arguments?}: the entry resolved, its secrets asked, the server started. */
export async function addFromRegistry(args: AddServerArgs, ctx: ManagementContext): Promise<CallToolResult> {
  const wrongFields = SPEC_FIELDS.filter((field) => args[field] !== undefined);
  if (wrongFields.length > 0)
    throw new MuxError(
      'INVALID_ARGUMENTS',
      `add_server: give registry or ${wrongFields.join(' and ')}, not both: a registry entry says how it runs`,
    );
  const access = requireRegistries(ctx);
  if (args.persist) requireConfig(ctx.config, 'add_server');
  checkPlacement(args.placement, ctx.cluster !== undefined);
  // In a cluster the add is every replica's: refused now, before anything starts, without Redis.
  await ctx.cluster?.reachable();
  const run = async (origin: InputOrigin | undefined, signal: AbortSignal | undefined) => {
    const prepared = await prepareRegistryAdd(
      {
        name: args.name,
        entry: args.registry!,
        version: args.version,
        env: args.env,
        arguments: args.arguments,
        fields: entryFieldsOf(args),
      },
      registryAddContext(ctx, access, args.name, origin, signal),
    );
    const widening = ctx.policy?.sandboxWidening(prepared.spec);
    if (widening) await approveSandboxWidening(args.name, widening, askPersonOf(origin, signal));
    const result = {
      ...(await startServer(
        ctx,
        args.name,
        prepared.spec,
        args.startup_timeout_seconds,
        signal,
        askPersonOf(origin, signal),
      )),
      registry: prepared.registry,
      ...(ctx.cluster && (await sharedWithCluster(ctx, args.name, clusterEntryOf(args, prepared)))),
    };
    if (!args.persist) return jsonResult(result) as Record<string, unknown>;
    const unkept = prepared.unkept.filter((name) => !prepared.keptNow.includes(name));
    return jsonResult({
      ...result,
      ...(await persisted(
        ctx.config!,
        args.name,
        ...toPersist(ctx.children, args.name, prepared.configEntry, prepared.configuredSpec, prepared.spec),
      )),
      ...(unkept.length > 0 && {
        persist_note: `written as \${${unkept.join('}, ${')}}: set ${unkept.length === 1 ? 'it' : 'them'} in mcpmux's environment before its next start`,
      }),
    }) as Record<string, unknown>;
  };
  // A 2026-07-28 client is asked within the rounds of this very call.
  const rounds = ctx.heldRounds;
  if (rounds && canAskForm(rounds.capabilities))
    return (await rounds.hold('add_server', (origin, signal) => run(origin, signal))) as CallToolResult;
  return (await run(ctx.callOptions.origin, ctx.callOptions.signal)) as CallToolResult;
}

/** What preparing the add needs: the registries, the kept secrets, the policy, and a way to ask the person (if the client has one). */
function registryAddContext(
  ctx: ManagementContext,
  access: RegistryAccess,
  name: string,
  origin: InputOrigin | undefined,
  signal: AbortSignal | undefined,
): RegistryAddContext {
  return {
    registries: access.registries,
    kept: access.kept,
    keptIn: access.kept.dir,
    allowModelSecrets: access.allowModelSecrets,
    lookup: { path: ctx.policy?.baseEnv['PATH'] ?? process.env['PATH'], cwd: process.cwd() },
    admit: (spec) => (ctx.policy ? ctx.policy.admitRuntimeAdd(name, spec) : spec),
    askPerson: askPersonOf(origin, signal),
    configPath: ctx.config?.path,
  };
}

function requireRegistries(ctx: ManagementContext): RegistryAccess {
  if (!ctx.registries)
    throw new MuxError(
      'NOT_SUPPORTED',
      'MCP registries are off here (mcpmux runs with --no-registry or --no-runtime-add): add a server with command or url',
    );
  return ctx.registries;
}

/** add_server's fields that apply to an entry's server as to any: its cwd, tool filter, prefix, era, restart, sandbox. */
/** What the cluster's replicas run: the entry as resolved here, where the add places it. */
function clusterEntryOf(args: AddServerArgs, prepared: RegistryAdd): Record<string, unknown> {
  return { ...prepared.clusterEntry, ...(args.placement !== undefined && { placement: args.placement }) };
}

function entryFieldsOf(args: AddServerArgs) {
  const { cwd, tools, prefix, era, restart, sandbox } = args;
  return {
    ...(cwd !== undefined && { cwd }),
    ...(tools !== undefined && { tools }),
    ...(prefix !== undefined && { prefix }),
    ...(era !== undefined && { era }),
    ...(restart !== undefined && { restart }),
    ...(sandbox !== undefined && { sandbox }),
  };
}
