// What a replica of a cluster answers on its internal hop for one server it runs (placement
// "one"): that server alone, under its own names, as this replica's trust gate lets it through,
// each request forwarded to it. Another replica connects to it as to a remote server, so that
// its clients reach the one copy of a server whose state must not split.
import { Server } from '@modelcontextprotocol/server';
import type { Children } from '../children/children.js';
import type { ServerView } from '../children/children-snapshot.js';
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
  forwardRequests(server, name, view);
  return server;
}

/**
 * Calls, gets, reads and completions, forwarded to the server. What the gate holds is not
 * listed, nor called: a held tool or prompt is refused as unknown.
 */
function forwardRequests(server: Server, name: string, view: () => ServerView): void {
  const listedAs = (kind: 'tools' | 'prompts', wanted: string) => {
    const current = view();
    if (!current.catalog[kind].some((item) => item.name === wanted))
      throw new MuxError(
        kind === 'tools' ? 'TOOL_NOT_FOUND' : 'PROMPT_NOT_FOUND',
        `server '${name}' lists no ${kind === 'tools' ? 'tool' : 'prompt'} '${wanted}' here`,
      );
    return current.connection;
  };
  server.setRequestHandler(
    'tools/call',
    async (request, ctx) =>
      (await listedAs('tools', request.params.name).request(
        'tools/call',
        withRound(request.params, ctx),
        roundOptions(ctx),
      )) as never,
  );
  server.setRequestHandler(
    'prompts/get',
    async (request, ctx) =>
      (await listedAs('prompts', request.params.name).request(
        'prompts/get',
        withRound(request.params, ctx),
        roundOptions(ctx),
      )) as never,
  );
  server.setRequestHandler(
    'resources/read',
    async (request, ctx) =>
      (await view().connection.request(
        'resources/read',
        withRound(request.params, ctx),
        roundOptions(ctx),
      )) as never,
  );
  server.setRequestHandler(
    'completion/complete',
    async (request, ctx) =>
      (await view().connection.request('completion/complete', request.params, {
        signal: ctx.mcpReq.signal,
      })) as never,
  );
}

/** What a multi-round call's later round brings (the SDK lifts it out of the params), given back to the child. */
interface RoundContext {
  mcpReq: {
    signal: AbortSignal;
    requestState: () => unknown;
    inputResponses?: Readonly<Record<string, unknown>>;
  };
}

/**
 * The params as the child gets them: a 2026-07-28 child's own `requestState` and the client's
 * `inputResponses` of a later round go back to it (the forwarding replica sealed the state in its
 * own for the client; the hop's token keeps others out).
 */
function withRound(params: Record<string, unknown>, ctx: RoundContext): Record<string, unknown> {
  const state = ctx.mcpReq.requestState();
  return {
    ...params,
    ...(ctx.mcpReq.inputResponses && { inputResponses: ctx.mcpReq.inputResponses }),
    ...(typeof state === 'string' && { requestState: state }),
  };
}

/** A child's input_required result passes back whole, to be answered in the caller's next round. */
const roundOptions = (ctx: RoundContext) => ({ signal: ctx.mcpReq.signal, allowInputRequired: true });
