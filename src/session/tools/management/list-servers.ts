// list_servers: every server's status, and what its tools cost in tokens beside what the
// client's list costs now and what listing every tool would.
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toolTokens } from '../../../search/token-cost.js';
import { jsonResult } from '../../results.js';
import { exposeStatus } from '../exposed-status.js';
import { emptyInput, statusSchema } from '../management-schemas.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

/** `ownDefinitions`: mcpmux's own tools, for what listing every tool would cost. */
export const listServersTool = (ownDefinitions: () => readonly Tool[]): ManagementTool => ({
  definition: define(
    'list_servers',
    'List every server with its status (starting, running, stopping, crashed), pid, exposed tool names, uptime, and for a crashed server its exit and last stderr lines.',
    emptyInput,
    z.object({
      servers: z.array(
        statusSchema.extend({
          tools_tokens: z.number().optional().describe('Approximate tokens its tools add to tools/list.'),
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
    const servers = children.list().map((status) => {
      const tools = snapshot.servers.get(status.name)?.tools ?? [];
      const exposed = exposeStatus(status, router, snapshot);
      return tools.length > 0
        ? {
            ...exposed,
            tools_tokens: toolTokens(router.exposedItems('tools', status.name, tools, status.prefix)),
          }
        : exposed;
    });
    const all = [...ownDefinitions(), ...router.table(snapshot, 'tools').items];
    return jsonResult({
      servers,
      stats: { tools_list_tokens: toolTokens(listedTools()), all_tools_tokens: toolTokens(all) },
    });
  },
});
