// list_servers: every server's status, and what its tools cost in tokens beside what the
// client's list costs now and what listing every tool would.
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toolTokens } from '../../../search/token-cost.js';
import type { ChildrenSnapshot } from '../../../children/children-snapshot.js';
import type { Flag } from '../../../trust/poison-scan.js';
import { parseItemKey } from '../../../trust/pin-store.js';
import { scanServers } from '../../../trust/scan-servers.js';
import { jsonResult } from '../../results.js';
import { exposeStatus } from '../exposed-status.js';
import { emptyInput, statusSchema } from '../management-schemas.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

/** `ownDefinitions`: mcpmux's own tools, for what listing every tool would cost. */
export const listServersTool = (ownDefinitions: () => readonly Tool[]): ManagementTool => ({
  definition: define(
    'list_servers',
    'List every server with its status (starting, running, stopping, crashed), pid, exposed tool names, uptime, the kinds of flag the poisoning scanner raised on its tools, and for a crashed server its exit and last stderr lines.',
    emptyInput,
    z.object({
      servers: z.array(
        statusSchema.extend({
          tools_tokens: z.number().optional().describe('Approximate tokens its tools add to tools/list.'),
          flags: z
            .record(z.string(), z.array(z.string()))
            .optional()
            .describe(
              "The kinds of flag mcpmux's poisoning scanner raised on its tools, prompts and templates, by exposed name (never the text: `mcpmux inspect` shows that to a person).",
            ),
        }),
      ),
      stats: z.object({
        tools_list_tokens: z.number().describe('Approximate tokens of the tools/list your client gets now.'),
        all_tools_tokens: z.number().describe('The same if every tool of every server were listed.'),
      }),
    }),
  ),
  handle: async (raw, { children, router, listedTools }) => {
    parse('list_servers', emptyInput, raw ?? {});
    const snapshot = children.snapshot;
    const flagged = flagsOf(snapshot);
    const servers = children.list().map((status) => {
      const tools = snapshot.servers.get(status.name)?.tools ?? [];
      const exposed = exposeStatus(status, router, snapshot);
      const flags = flagKinds(flagged.get(status.name), (name) =>
        router.exposedName(status.name, name, status.prefix),
      );
      return {
        ...exposed,
        ...(tools.length > 0 && {
          tools_tokens: toolTokens(router.exposedItems('tools', status.name, tools, status.prefix)),
        }),
        ...(flags && { flags }),
      };
    });
    const all = [...ownDefinitions(), ...router.table(snapshot, 'tools').items];
    return jsonResult({
      servers,
      stats: { tools_list_tokens: toolTokens(listedTools()), all_tools_tokens: toolTokens(all) },
    });
  },
});

/** Each snapshot's flags, scanned once however often list_servers is called on it. */
const scanned = new WeakMap<ChildrenSnapshot, ReturnType<typeof scanServers>>();

function flagsOf(snapshot: ChildrenSnapshot): ReturnType<typeof scanServers> {
  let flags = scanned.get(snapshot);
  if (!flags) {
    flags = scanServers(
      [...snapshot.servers.values()].map((view) => ({ name: view.name, catalog: view.catalog })),
    );
    scanned.set(snapshot, flags);
  }
  return flags;
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
