// The management tools an agent uses to change the set of servers while it stays
// connected (add_server, remove_server, reload_server, list_servers), to find servers and
// tools (find_servers, search_tools), and to reach tools its client has not listed (call_tool,
// read_result): one module each under management/, assembled here. Arguments are checked at
// the edge, against the schemas of management-schemas.ts.
import type { Tool } from '@modelcontextprotocol/server';
import type { ManagementTool } from './tool-context.js';
import { findServersTool } from './registry-tools.js';
import { addServerTool } from './management/add-server.js';
import { callToolTool } from './management/call-tool.js';
import { listServersTool } from './management/list-servers.js';
import { readResultTool } from './management/read-result.js';
import { reloadServerTool } from './management/reload-server.js';
import { removeServerTool } from './management/remove-server.js';
import { searchToolsTool } from './management/search-tools.js';

export const MANAGEMENT_TOOL_NAMES = [
  'add_server',
  'remove_server',
  'reload_server',
  'list_servers',
  'find_servers',
  'search_tools',
  'call_tool',
  'read_result',
] as const;

export function createManagementTools(): ReadonlyMap<string, ManagementTool> {
  const tools: ManagementTool[] = [
    addServerTool(),
    removeServerTool(),
    reloadServerTool(),
    listServersTool(() => managementDefinitions()),
    findServersTool(),
    searchToolsTool(),
    callToolTool(),
    readResultTool(),
  ];
  return new Map(tools.map((t) => [t.definition.name, t]));
}

/** The management tools' own definitions, for what listing everything would cost. */
let definitions: Tool[] | undefined;
const managementDefinitions = (): Tool[] =>
  (definitions ??= [...createManagementTools().values()].map((t) => t.definition));
