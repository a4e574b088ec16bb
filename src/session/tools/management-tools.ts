// The management tools an agent uses to change the set of servers while it stays
// connected: add_server, remove_server, reload_server, list_servers, and call_tool for
// clients that ignore list_changed. Arguments are checked here, at the edge, against the
// schemas of management-schemas.ts.
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { MuxError } from '../../common/errors.js';
import type { RegistrySnapshot } from '../../children/registry-snapshot.js';
import type { ToolHit } from '../../search/tool-index.js';
import { toolTokens } from '../../search/token-cost.js';
import { readResult, readResultInput } from '../../results/read-result.js';
import type { CodeMode } from '../../code/code-mode.js';
import type { CatalogRouter } from '../../router/catalog-router.js';
import { specFromWire } from '../../child/server-spec.js';
import type { ManagementTool } from './tool-context.js';
import {
  addServerInput,
  callToolInput,
  diffSchema,
  emptyInput,
  ENTRY_FIELDS,
  exitSchema,
  persistedFields,
  reloadInput,
  removeInput,
  searchInput,
  searchOutput,
  startedOutput,
  statusSchema,
} from './management-schemas.js';
import { exposeDiff, exposeStatus, summarize } from './exposed-status.js';
import { jsonResult } from '../results.js';
import { define, parseArguments as parse } from './tool-definition.js';
import { addFromRegistry, findServersTool } from './registry-tools.js';
import { persisted, requireConfig, startServer } from './server-start.js';

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
    {
      definition: define(
        'add_server',
        'Start an MCP server and expose its tools as <name>__<tool>. Returns when it is ready, with its tools (exposed names and ' +
          'input schemas) callable at once, directly or through call_tool. On failure nothing is left running and the error says why.',
        addServerInput,
        startedOutput,
      ),
      handle: async (raw, ctx) => {
        const args = parse('add_server', addServerInput, raw);
        if (args.registry !== undefined) return addFromRegistry(args, ctx);
        const { policy, config, callOptions } = ctx;
        const spec = specFromWire(args);
        if (typeof spec === 'string') throw new MuxError('INVALID_ARGUMENTS', `add_server: ${spec}`);
        const wrongFields = ENTRY_FIELDS.filter((field) => args[field] !== undefined);
        if (wrongFields.length > 0)
          throw new MuxError(
            'INVALID_ARGUMENTS',
            `add_server: ${wrongFields.join(' and ')} ${wrongFields.length === 1 ? 'goes' : 'go'} with registry, not with command or url`,
          );
        // The admitted spec runs the very file the policy judged (an absolute path).
        const admitted = policy ? policy.admitRuntimeAdd(args.name, spec) : spec;
        if (args.persist) requireConfig(config, 'add_server');
        const result = await startServer(
          ctx,
          args.name,
          admitted,
          args.startup_timeout_seconds,
          callOptions.signal,
        );
        if (!args.persist) return jsonResult(result);
        const { name: _name, persist: _persist, startup_timeout_seconds: _timeout, ...entry } = args;
        return jsonResult({ ...result, ...(await persisted(config!, args.name, entry, spec)) });
      },
    },
    {
      definition: define(
        'remove_server',
        'Stop a server and withdraw its tools. Calls in flight to it fail at once; the process (and any process it started) is confirmed dead before this returns.',
        removeInput,
        z.object({
          removed: z.string(),
          tools_removed: z.array(z.string()),
          exit: exitSchema.optional(),
          ...persistedFields,
        }),
      ),
      handle: async (raw, { registry, router, config }) => {
        const { name, persist } = parse('remove_server', removeInput, raw);
        if (persist) requireConfig(config, 'remove_server');
        const removed = await registry.remove(name);
        const result = {
          removed: removed.name,
          tools_removed: removed.tools.map((t) => router.exposedName(name, t, removed.prefix)),
          ...(removed.exit && { exit: removed.exit }),
        };
        return jsonResult(persist ? { ...result, ...(await persisted(config!, name, undefined)) } : result);
      },
    },
    {
      definition: define(
        'reload_server',
        'Restart a server as a new process with the same command (picks up rebuilt code; brings a crashed server back). ' +
          'Returns its tools and what changed: tools added, removed, and changed (schema or description). ' +
          'With build: true, its build command runs first, and a failed build keeps the running process.',
        reloadInput,
        startedOutput.extend({ changes: diffSchema }),
      ),
      handle: async (raw, { registry, router }) => {
        const { name, build } = parse('reload_server', reloadInput, raw);
        const reloaded = await registry.reload(name, { build: build === true });
        return jsonResult({
          server: exposeStatus(reloaded.status, router, registry.snapshot),
          tools: summarize(reloaded.status, reloaded.tools, router, registry.snapshot),
          changes: exposeDiff(reloaded.status, reloaded.changes, router),
        });
      },
    },
    {
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
            tools_list_tokens: z
              .number()
              .describe('Approximate tokens of the tools/list your client gets now.'),
            all_tools_tokens: z.number().describe('The same if every tool of every server were listed.'),
          }),
        }),
      ),
      handle: async (raw, { registry, router, listedTools }) => {
        parse('list_servers', emptyInput, raw ?? {});
        const snapshot = registry.snapshot;
        const servers = registry.list().map((status) => {
          const tools = snapshot.servers.get(status.name)?.tools ?? [];
          const exposed = exposeStatus(status, router, snapshot);
          return tools.length > 0
            ? {
                ...exposed,
                tools_tokens: toolTokens(router.exposedItems('tools', status.name, tools, status.prefix)),
              }
            : exposed;
        });
        const all = [...MANAGEMENT_DEFINITIONS(), ...router.table(snapshot, 'tools').items];
        return jsonResult({
          servers,
          stats: { tools_list_tokens: toolTokens(listedTools()), all_tools_tokens: toolTokens(all) },
        });
      },
    },
    findServersTool(),
    {
      definition: define(
        'search_tools',
        'Find tools by describing what you need, e.g. {"query": "read a file"}: returns the best matching tools of every server, ' +
          'with their exposed names, input schemas and the words they matched, best first. For a task of several steps, give ' +
          'one query per step in queries. Call a tool directly or through call_tool.',
        searchInput,
        searchOutput,
      ),
      handle: async (raw, { registry, router, index, activate, code }) => {
        const {
          query,
          queries,
          limit,
          server,
          activate: wantsActivation,
        } = parse('search_tools', searchInput, raw);
        const snapshot = registry.snapshot;
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
        /** The found tools' answer, with what activation did when it was asked for. */
        const answer = (found: Record<string, unknown>, names: string[]) => {
          if (!wantsActivation) return jsonResult(found);
          if (!activate)
            return jsonResult({
              ...found,
              hint: 'activate changes nothing here: only --expose search lists found tools',
            });
          const { added, evicted } = activate([...new Set(names)]);
          return jsonResult({
            ...found,
            activated: added,
            ...(evicted.length > 0 && { deactivated: evicted }),
          });
        };
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
        const hint =
          servers.length === 0
            ? 'no server with tools is running; add one with add_server'
            : text.trim() === ''
              ? 'give a query that describes the task, e.g. "create an issue" or "read a file"'
              : `no tool matches '${text}'; describe the task in other words, or narrow it with server`;
        return jsonResult({ tools: [], servers, hint });
      },
    },
    {
      definition: define(
        'call_tool',
        'Call any exposed tool by its name, e.g. {"name": "memory__read_graph", "arguments": {}}. ' +
          'Use it for tools that add_server just returned when your client has not refreshed its tool list.',
        callToolInput,
      ),
      handle: async (raw, ctx) => {
        const args = parse('call_tool', callToolInput, raw);
        if (args.name === 'call_tool')
          throw new MuxError(
            'INVALID_ARGUMENTS',
            'call_tool cannot call itself; give the name of the tool to call',
          );
        return ctx.callTool(args.name, args.arguments);
      },
    },
    {
      definition: define(
        'read_result',
        'Read a tool result that was too large for the reply and was kept whole under a handle: its head or tail, a slice of lines ' +
          'or bytes, lines matching a pattern (grep), its size (stat), or a part of it as JSON.',
        readResultInput,
      ),
      handle: async (raw, { results }) =>
        jsonResult(await readResult(results, parse('read_result', readResultInput, raw))),
    },
  ];
  return new Map(tools.map((t) => [t.definition.name, t]));
}

/** The management tools' own definitions, for what listing everything would cost. */
let managementDefinitions: Tool[] | undefined;
const MANAGEMENT_DEFINITIONS = () =>
  (managementDefinitions ??= [...createManagementTools().values()].map((t) => t.definition));

/** A search hit as code mode shows it: how a program calls the tool, with its types, instead of its JSON schema. */
async function withDeclaration(
  hit: ToolHit,
  snapshot: RegistrySnapshot,
  router: CatalogRouter,
  code: CodeMode,
) {
  const route = router.table(snapshot, 'tools').byKey.get(hit.name);
  if (!route) return hit;
  const declared = await code.declarations.tool(hit.server, route.item);
  const { inputSchema: _schema, ...rest } = hit;
  return { ...rest, declaration: `${declared.types}\n\n${declared.call}` };
}
