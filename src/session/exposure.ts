// What each exposure mode (--expose) lists: mcpmux's own tools, in full or compact, and
// which child tools (all of them, or a bounded pool of what search_tools found).
import type { Tool } from '@modelcontextprotocol/server';
import { ActivationPool } from '../search/activation-pool.js';
import { createAgentTools } from './tools/agent-tools.js';
import { createCodeModeTools } from './tools/code-mode-tools.js';
import { createManagementTools } from './tools/management-tools.js';
import type { ManagementTool } from './tools/tool-context.js';
import { compactDefinition } from './tools/tool-definition.js';

export type ExposeMode = 'all' | 'search' | 'code' | 'agent';

/** A mode's own tools, by name (agent and output among them), and the definitions it lists. */
export interface OwnTools {
  tools: ReadonlyMap<string, ManagementTool>;
  definitions: Tool[];
}

/**
 * mcpmux's own tools, built once: they hold no state (each call gets its session's
 * context), so every session and mode shares them, and an HTTP server with many short
 * sessions does not build their schemas again for each.
 */
let ownTools: { management: ManagementTool[]; code: ManagementTool[]; agent: ManagementTool[] } | undefined;
const allOwnTools = () =>
  (ownTools ??= {
    management: [...createManagementTools().values()],
    code: createCodeModeTools(),
    agent: createAgentTools(),
  });

const ownToolsByMode = new Map<string, OwnTools>();

/** A mode's own tools; find_servers is listed only where MCP registries are on. */
export function ownToolsOf(mode: ExposeMode, { registries = true }: { registries?: boolean } = {}): OwnTools {
  const key = `${mode}${registries ? '+registries' : ''}`;
  let own = ownToolsByMode.get(key);
  if (!own) {
    const { management, code, agent } = allOwnTools();
    const listed = [
      ...management.filter((t) => registries || t.definition.name !== 'find_servers'),
      ...(mode === 'code' ? code : []),
    ];
    // agent and output are listed by the session, when it has a model (and with its servers).
    const tools = new Map([...listed, ...agent].map((t) => [t.definition.name, t]));
    // Search, code and agent mode list compact definitions: every listed token counts there.
    const definitions = listed.map((t) => (mode === 'all' ? t.definition : compactDefinition(t.definition)));
    ownToolsByMode.set(key, (own = { tools, definitions }));
  }
  return own;
}

/** Every tool name mcpmux lists itself, in any mode: no child tool may take one. */
export function ownToolNames(): string[] {
  const { management, code, agent } = allOwnTools();
  return [...management, ...code, ...agent].map((t) => t.definition.name);
}

/** Search mode lists what search_tools activated; code and agent mode list no child tool at all. */
export function newActivationPool(mode: ExposeMode, size: number | undefined): ActivationPool | undefined {
  return mode === 'search'
    ? new ActivationPool(size ?? 15)
    : mode === 'code' || mode === 'agent'
      ? new ActivationPool(0)
      : undefined;
}
