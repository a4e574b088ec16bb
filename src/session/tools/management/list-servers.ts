// list_servers: every server's status, and what its tools cost in tokens beside what the
// client's list costs now and what listing every tool would.
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toolTokens } from '../../../search/token-cost.js';
import type { Flag } from '../../../trust/poison-scan.js';
import { parseItemKey } from '../../../trust/pin-store.js';
import type { TrustView } from '../../../trust/trust-keeper.js';
import { jsonResult } from '../../results.js';
import { exposeStatus } from '../exposed-status.js';
import { emptyInput, statusSchema } from '../management-schemas.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

/** `ownDefinitions`: mcpmux's own tools, for what listing every tool would cost. */
export const listServersTool = (ownDefinitions: () => readonly Tool[]): ManagementTool => ({
  definition: define(
    'list_servers',
    'List every server with its status (starting, running, stopping, crashed), pid, exposed tool names, uptime, its trust (approved, or held until a person approves its text, with how many items wait), the kinds of flag the poisoning scanner raised on its tools, and for a crashed server its exit and last stderr lines.',
    emptyInput,
    z.object({
      servers: z.array(
        statusSchema.extend({
          placement: z
            .object({ placement: z.enum(['every', 'one']), runs_on: z.string().optional() })
            .optional()
            .describe(
              'A server of the cluster: on every replica, or on one (runs_on; a move to another restarts its state in memory).',
            ),
          tools_tokens: z.number().optional().describe('Approximate tokens its tools add to tools/list.'),
          flags: z
            .record(z.string(), z.array(z.string()))
            .optional()
            .describe(
              "The kinds of flag mcpmux's poisoning scanner raised on its tools, prompts and templates, by exposed name (never the text: `mcpmux inspect` shows that to a person).",
            ),
          trust: trustSchema.optional(),
        }),
      ),
      stats: z.object({
        tools_list_tokens: z.number().describe('Approximate tokens of the tools/list your client gets now.'),
        all_tools_tokens: z.number().describe('The same if every tool of every server were listed.'),
      }),
      cluster: clusterSchema.optional(),
    }),
  ),
  handle: async (raw, { children, router, listedTools, cluster }) => {
    parse('list_servers', emptyInput, raw ?? {});
    const snapshot = children.snapshot;
    const servers = children.list().map((status) => {
      const view = snapshot.servers.get(status.name);
      const tools = view?.tools ?? [];
      const exposed = exposeStatus(status, router, snapshot);
      const trust = view?.trust && trustOf(view.trust, status.name);
      // The gate's scan of its list. A held server's flags go by kind alone: its items' names are its stranger's text too.
      const flags = view?.trust?.serverHeld
        ? undefined
        : flagKinds(view?.trust?.flags, (name) => router.exposedName(status.name, name, status.prefix));
      const placement = cluster?.placement(status.name);
      return {
        ...exposed,
        ...(placement && { placement }),
        ...(tools.length > 0 && {
          tools_tokens: toolTokens(router.exposedItems('tools', status.name, tools, status.prefix)),
        }),
        ...(flags && { flags }),
        ...(trust && { trust }),
      };
    });
    const all = [...ownDefinitions(), ...router.table(snapshot, 'tools').items];
    return jsonResult({
      servers,
      stats: { tools_list_tokens: toolTokens(listedTools()), all_tools_tokens: toolTokens(all) },
      ...(cluster && {
        cluster: {
          replica: cluster.replica,
          not_running_here: cluster
            .refusals()
            .map(({ name, by, reason }) => ({ name, added_by: by, reason })),
        },
      }),
    });
  },
});

const clusterSchema = z
  .object({
    replica: z.string().describe('The replica that answered (this list is its servers).'),
    not_running_here: z
      .array(z.object({ name: z.string(), added_by: z.string(), reason: z.string() }))
      .describe(
        'Servers of the cluster this replica does not run: its spawn policy refused them, or they did not start here. remove_server removes them from every replica.',
      ),
  })
  .describe('Present in a cluster of replicas.');

const trustSchema = z
  .object({
    state: z
      .enum(['approved', 'follow', 'held'])
      .describe(
        'approved: its text reached the model as a person or the operator approved it; follow: each of its lists is taken (a server under development); held: none of its text reaches the model until a person approves it.',
      ),
    held_because: z.enum(['added from strangers', 'hard flag']).optional(),
    items: z
      .number()
      .optional()
      .describe('How many tools, prompts and templates it lists (held: not shown).'),
    flag_kinds: z
      .array(z.string())
      .optional()
      .describe('A held server: the kinds of flag raised on its text.'),
    changed: z
      .number()
      .optional()
      .describe('Items changed since approved, held until a person approves the change.'),
    pending: z.number().optional().describe('Items new since approved, waiting for a person.'),
    release: z.string().optional().describe('What the person runs to review and release what is held.'),
  })
  .describe('How far its text is trusted; the model cannot change it.');

/** What list_servers says of a server's trust: states and counts, never a held item's text or name. */
function trustOf(trust: TrustView, name: string): z.infer<typeof trustSchema> {
  const count = (reason: string) => [...trust.held.values()].filter((r) => r === reason).length;
  const held = trust.held.size > 0 || trust.serverHeld !== undefined;
  return {
    state: trust.state,
    ...(trust.serverHeld && {
      held_because:
        trust.serverHeld === 'hard-flag' ? ('hard flag' as const) : ('added from strangers' as const),
      items: trust.held.size,
      flag_kinds: [...new Set([...trust.flags.values()].flat().map((f) => f.kind))],
    }),
    ...(!trust.serverHeld && count('changed') > 0 && { changed: count('changed') }),
    ...(!trust.serverHeld && count('new') > 0 && { pending: count('new') }),
    ...(held && { release: `a person runs: mcpmux approve ${name}` }),
  };
}

/** The kinds raised per item, under the names the client calls tools and prompts by (a template by its URI template). */
function flagKinds(
  byItem: ReadonlyMap<string, readonly Flag[]> | undefined,
  exposedName: (name: string) => string,
): Record<string, string[]> | undefined {
  if (!byItem || byItem.size === 0) return undefined;
  return Object.fromEntries(
    [...byItem].map(([itemKey, flags]) => {
      const { kind, key } = parseItemKey(itemKey);
      return [kind === 'resourceTemplate' ? key : exposedName(key), [...new Set(flags.map((f) => f.kind))]];
    }),
  );
}
