// The tools a sub-agent sees each turn, and its calls to them. With a few servers it sees
// every child tool. Past DIRECT_MAX tools, sending them all with every turn would cost more
// than the task (and pass what model APIs take): it gets search_tools instead, and what it
// finds joins its tools for the turns after (the last FOUND_KEPT found).
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { ToolIndex } from '../search/tool-index.js';
import { MuxError } from '../common/errors.js';
import type { Children } from '../children/children.js';
import type { ChildrenSnapshot } from '../children/children-snapshot.js';
import type { CatalogRouter } from '../router/catalog-router.js';

/** Past this many tools, the sub-agent searches for them. */
export const DIRECT_MAX = 64;
/** Found tools it keeps at once (the least recently found leave first). */
const FOUND_KEPT = 24;
const SEARCH_LIMIT = 8;

export const SEARCH_TOOL: Tool = {
  name: 'search_tools',
  description:
    'Find the tools for a step of your task, described in words ("create a GitHub issue", "read a PDF"). ' +
    'What it finds becomes callable from your next turn on; search again for each new kind of step.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'What the tool should do.' } },
    required: ['query'],
  },
};

export interface ToolboxOptions {
  children: Children;
  router: CatalogRouter;
  index: ToolIndex;
  /** Whether the run may use a server's tools. */
  allowed: (server: string) => boolean;
  /** Calls an exposed tool through mcpmux. */
  call: (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<CallToolResult>;
}

export class SubAgentToolbox {
  readonly #options: ToolboxOptions;
  /** Every tool it was offered or found, with its server: a call to one that is gone says why. */
  readonly #known = new Map<string, string>();
  /** Found by search_tools, most recent last. */
  #found: string[] = [];

  constructor(options: ToolboxOptions) {
    this.#options = options;
  }

  /** What the model is offered this turn. */
  list(): Tool[] {
    const all = this.#all();
    if (all.length <= DIRECT_MAX) {
      for (const { tool, server } of all) this.#known.set(tool.name, server);
      return all.map(({ tool }) => tool);
    }
    const found = new Set(this.#found);
    return [SEARCH_TOOL, ...all.flatMap(({ tool }) => (found.has(tool.name) ? [tool] : []))];
  }

  async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const all = this.#all();
    if (name === SEARCH_TOOL.name && all.length > DIRECT_MAX) return this.#search(args['query']);
    if (all.some(({ tool }) => tool.name === name)) return this.#options.call(name, args, signal);
    const server = this.#known.get(name);
    if (server) throw goneError(this.#options.children.snapshot, server, name);
    throw new MuxError(
      'TOOL_NOT_FOUND',
      all.length > DIRECT_MAX
        ? `'${name}' is not one of your tools; find tools with search_tools`
        : `'${name}' is not one of your tools; they are: ${all.map(({ tool }) => tool.name).join(', ') || '(none: no server is running)'}`,
    );
  }

  async #search(query: unknown): Promise<CallToolResult> {
    if (typeof query !== 'string' || query.trim() === '')
      return {
        content: [{ type: 'text', text: 'search_tools needs a query: what the tool should do' }],
        isError: true,
      };
    const { index, children, allowed } = this.#options;
    // Ranked over every server, then narrowed to the run's: a few more than shown, for what is dropped.
    const hits = (await index.search(children.snapshot, query, { limit: SEARCH_LIMIT * 3 }))
      .filter((hit) => allowed(hit.server))
      .slice(0, SEARCH_LIMIT);
    for (const hit of hits) {
      this.#known.set(hit.name, hit.server);
      this.#found = [...this.#found.filter((n) => n !== hit.name), hit.name].slice(-FOUND_KEPT);
    }
    const text =
      hits.length === 0
        ? `nothing matched '${query}'; try other words`
        : `Found (callable from your next turn):\n${hits.map((h) => `- ${h.name}: ${h.description ?? ''}`).join('\n')}`;
    return { content: [{ type: 'text', text }] };
  }

  /** The child tools the run may call now, under their exposed names, with their servers. */
  #all(): { tool: Tool; server: string }[] {
    const { router, children, allowed } = this.#options;
    const tools: { tool: Tool; server: string }[] = [];
    for (const [name, route] of router.table(children.snapshot, 'tools').byKey)
      if (allowed(route.server) && route.connection.state.kind === 'running')
        tools.push({ tool: { ...route.item, name }, server: route.server });
    return tools;
  }
}

/** Why a tool the model knew is gone: its server crashed (with why), stopped, or was removed. */
function goneError(snapshot: ChildrenSnapshot, server: string, tool: string): MuxError {
  const state = snapshot.servers.get(server)?.connection.state;
  if (!state)
    return new MuxError('SERVER_NOT_FOUND', `${tool}: server '${server}' was removed (remove_server)`);
  if (state.kind === 'crashed')
    return new MuxError('SERVER_CRASHED', `${tool}: server '${server}' crashed: ${state.error}`);
  return new MuxError(
    'SERVER_BUSY',
    `${tool}: server '${server}' is ${state.kind}; its tools are not available now`,
  );
}
