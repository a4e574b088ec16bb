// What a replica of a cluster answers on its internal hop for one server it runs (placement
// "one"): that server alone, under its own names, as this replica's trust gate lets it through,
// each request forwarded to it. Another replica connects to it as to a remote server, so that
// its clients reach the one copy of a server whose state must not split.
import { Server } from '@modelcontextprotocol/server';
import type { Children } from '../children/children.js';
import { MuxError } from '../common/errors.js';
import type { CatalogKind } from '../protocol/capabilities.js';

/** The hop's server for `name`; undefined when this replica does not run it. */
export function hopServer(children: Children, name: string, version: string): Server | undefined {
  if (!children.snapshot.servers.has(name)) return undefined;
  const server = new Server(
    { name: `mcpmux-hop-${name}`, version },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true },
        completions: {},
      },
    },
  );
  const view = () => {
    const found = children.snapshot.servers.get(name);
    if (!found) throw new MuxError('SERVER_NOT_FOUND', `server '${name}' no longer runs on this replica`);
    return found;
  };
  const listed = <K extends CatalogKind>(kind: K) => ({ [kind]: view().catalog[kind] });
  server.setRequestHandler('tools/list', () => listed('tools') as never);
  server.setRequestHandler('prompts/list', () => listed('prompts') as never);
  server.setRequestHandler('resources/list', () => listed('resources') as never);
  server.setRequestHandler('resources/templates/list', () => listed('resourceTemplates') as never);
  // What the gate holds is not listed, nor called: a held tool or prompt is refused as unknown.
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const current = view();
    if (!current.catalog.tools.some((tool) => tool.name === request.params.name))
      throw new MuxError('TOOL_NOT_FOUND', `server '${name}' lists no tool '${request.params.name}' here`);
    return (await current.connection.request('tools/call', request.params, {
      signal: ctx.mcpReq.signal,
    })) as never;
  });
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const current = view();
    if (!current.catalog.prompts.some((prompt) => prompt.name === request.params.name))
      throw new MuxError(
        'PROMPT_NOT_FOUND',
        `server '${name}' lists no prompt '${request.params.name}' here`,
      );
    return (await current.connection.request('prompts/get', request.params, {
      signal: ctx.mcpReq.signal,
    })) as never;
  });
  for (const method of ['resources/read', 'completion/complete'] as const)
    server.setRequestHandler(
      method,
      async (request, ctx) =>
        (await view().connection.request(method, request.params, { signal: ctx.mcpReq.signal })) as never,
    );
  return server;
}
