// add_server with a command or a url: the spec checked at the edge, judged by the operator's spawn
// policy (the admitted spec runs the very file that was judged), started, and written into the
// config with persist. An add from an MCP registry entry goes to registry-tools.ts.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { InputOrigin } from '../../../child/child-types.js';
import { MuxError } from '../../../common/errors.js';
import { specFromWire } from '../../../child/server-spec.js';
import { jsonResult } from '../../results.js';
import { addServerInput, ENTRY_FIELDS, startedOutput } from '../management-schemas.js';
import { addFromRegistry } from '../registry-tools.js';
import { askPersonOf, canAskForm } from '../person-form.js';
import { approveSandboxWidening } from '../sandbox-approval.js';
import {
  checkPlacement,
  toPersist,
  persisted,
  requireConfig,
  sharedWithCluster,
  startServer,
} from '../server-start.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

export const addServerTool = (): ManagementTool => ({
  definition: define(
    'add_server',
    'Start an MCP server and expose its tools as <name>__<tool>. Returns when it is ready, with its tools (exposed names and ' +
      'input schemas) callable at once, directly or through call_tool. On failure nothing is left running and the error says why. ' +
      'A server from strangers (a registry entry, npx/uvx/docker, a remote URL) is held until the person approves its text: they are asked by a form if your client shows one; while held, its tools are not listed.',
    addServerInput,
    startedOutput,
  ),
  handle: async (raw, ctx) => {
    const args = parse('add_server', addServerInput, raw);
    if (args.registry !== undefined) return addFromRegistry(args, ctx);
    const { policy, config, callOptions, cluster } = ctx;
    const spec = specFromWire(args);
    if (typeof spec === 'string') throw new MuxError('INVALID_ARGUMENTS', `add_server: ${spec}`);
    checkFields(args, cluster !== undefined);
    // The admitted spec runs the very file the policy judged (an absolute path).
    const admitted = policy ? policy.admitRuntimeAdd(args.name, spec) : spec;
    if (args.persist) requireConfig(config, 'add_server');
    // In a cluster the add is every replica's: refused now, before anything starts, without Redis.
    await cluster?.reachable();
    const { name: _name, persist: _persist, startup_timeout_seconds: _timeout, ...entry } = args;
    const run = async (origin: InputOrigin | undefined, signal: AbortSignal | undefined) => {
      const widening = policy?.sandboxWidening(admitted);
      if (widening) await approveSandboxWidening(args.name, widening, askPersonOf(origin, signal));
      const result = await startServer(
        ctx,
        args.name,
        admitted,
        args.startup_timeout_seconds,
        signal,
        askPersonOf(origin, signal),
      );
      const shared = cluster && (await sharedWithCluster(ctx, args.name, entry));
      if (!args.persist) return jsonResult({ ...result, ...shared }) as Record<string, unknown>;
      return jsonResult({
        ...result,
        ...shared,
        ...(await persisted(
          config!,
          args.name,
          ...toPersist(ctx.children, args.name, withoutPlacement(entry), spec, admitted),
        )),
      }) as Record<string, unknown>;
    };
    // A 2026-07-28 client is asked (a held server's form) within the rounds of this very call.
    const rounds = ctx.heldRounds;
    if (rounds && canAskForm(rounds.capabilities))
      return (await rounds.hold('add_server', (origin, signal) => run(origin, signal))) as CallToolResult;
    return (await run(callOptions.origin, callOptions.signal)) as CallToolResult;
  },
});

/** A config file's entry has no placement: a replica's config is its own, not the cluster's. */
function withoutPlacement(entry: Record<string, unknown>): Record<string, unknown> {
  const { placement: _placement, ...rest } = entry;
  return rest;
}

/** Fields that do not go with an add of a command or a URL: a registry entry's, placement outside a cluster. */
function checkFields(args: z.infer<typeof addServerInput>, inCluster: boolean): void {
  const wrongFields = ENTRY_FIELDS.filter((field) => args[field] !== undefined);
  if (wrongFields.length > 0)
    throw new MuxError(
      'INVALID_ARGUMENTS',
      `add_server: ${wrongFields.join(' and ')} ${wrongFields.length === 1 ? 'goes' : 'go'} with registry, not with command or url`,
    );
  checkPlacement(args.placement, inCluster);
}
