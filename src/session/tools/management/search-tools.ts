// search_tools: the tools of every server ranked for a need in words (one query, or one per
// step of a task), shown as code mode declares them when it is on, and in search mode
// activated into the client's list when asked.
import { MuxError } from '../../../common/errors.js';
import type { ChildrenSnapshot } from '../../../children/children-snapshot.js';
import type { CodeMode } from '../../../code/code-mode.js';
import type { CatalogRouter } from '../../../router/catalog-router.js';
import type { ToolHit } from '../../../search/tool-index.js';
import { jsonResult } from '../../results.js';
import { searchInput, searchOutput } from '../management-schemas.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

export const searchToolsTool = (): ManagementTool => ({
  definition: define(
    'search_tools',
    'Find tools by describing what you need, e.g. {"query": "read a file"}: returns the best matching tools of every server, ' +
      'with their exposed names, input schemas and the words they matched, best first. For a task of several steps, give ' +
      'one query per step in queries. Call a tool directly or through call_tool.',
    searchInput,
    searchOutput,
  ),
  handle: async (raw, { children, router, index, activate, code }) => {
    const {
      query,
      queries,
      limit,
      server,
      activate: wantsActivation,
    } = parse('search_tools', searchInput, raw);
    const snapshot = children.snapshot;
    if (server !== undefined && !snapshot.servers.has(server)) {
      throw new MuxError(
        'SERVER_NOT_FOUND',
        `no server named '${server}'; servers: ${[...snapshot.servers.keys()].join(', ') || '(none)'}`,
      );
    }
    const searchFor = async (text: string) => {
      const found =
        text.trim() === '' ? [] : await index.search(snapshot, text, { limit: limit ?? 5, server });
      return code
        ? await Promise.all(found.map((hit) => withDeclaration(hit, snapshot, router, code)))
        : found;
    };
    const answer = (found: Record<string, unknown>, names: string[]) =>
      jsonResult(wantsActivation ? withActivation(found, names, activate) : found);
    if (queries !== undefined) {
      const results = [];
      for (const text of queries) results.push({ query: text, tools: await searchFor(text) });
      return answer(
        { results },
        results.flatMap((r) => r.tools.map((x) => x.name)),
      );
    }
    const text = query ?? '';
    const tools = await searchFor(text);
    if (tools.length > 0)
      return answer(
        { tools },
        tools.map((x) => x.name),
      );
    const servers = index.serverCounts(snapshot);
    const hint = noMatchHint(servers.length, text);
    return jsonResult({ tools: [], servers, hint });
  },
});

/** The found tools' answer with what activation did (in search mode: which tools it listed, which it let go). */
function withActivation(
  found: Record<string, unknown>,
  names: readonly string[],
  activate: ((names: readonly string[]) => { added: string[]; evicted: string[] }) | undefined,
): Record<string, unknown> {
  if (!activate)
    return { ...found, hint: 'activate changes nothing here: only --expose search lists found tools' };
  const { added, evicted } = activate([...new Set(names)]);
  return { ...found, activated: added, ...(evicted.length > 0 && { deactivated: evicted }) };
}

/** What to do when nothing matched: add a server, give a query, or say it otherwise. */
function noMatchHint(serversWithTools: number, text: string): string {
  if (serversWithTools === 0) return 'no server with tools is running; add one with add_server';
  if (text.trim() === '')
    return 'give a query that describes the task, e.g. "create an issue" or "read a file"';
  return `no tool matches '${text}'; describe the task in other words, or narrow it with server`;
}

/** A search hit as code mode shows it: how a program calls the tool, with its types, instead of its JSON schema. */
async function withDeclaration(
  hit: ToolHit,
  snapshot: ChildrenSnapshot,
  router: CatalogRouter,
  code: CodeMode,
) {
  const route = router.table(snapshot, 'tools').byKey.get(hit.name);
  if (!route) return hit;
  const declared = await code.declarations.tool(hit.server, route.item);
  const { inputSchema: _schema, ...rest } = hit;
  return { ...rest, declaration: `${declared.types}\n\n${declared.call}` };
}
