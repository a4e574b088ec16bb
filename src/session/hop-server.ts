// What a replica of a cluster answers on its internal hop for one server it runs (placement
// "one"): that server alone, under its own names, as this replica's trust gate lets it through,
// each request forwarded to it. Another replica connects to it as to a remote server, so that
// its clients reach the one copy of a server whose state must not split.
import { Server } from '@modelcontextprotocol/server';
import type { Children } from '../children/children.js';
import type { ServerView } from '../children/children-snapshot.js';
import { MuxError } from '../common/errors.js';
import type { CatalogKind } from '../protocol/capabilities.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import { clientRound, type InputCapableMethod, type InputRelay } from './relay/input-relay.js';

/** The hop's server for `name`; undefined when this replica does not run it. */
export function hopServer(
  children: Children,
  name: string,
  options: { version: string; relay: InputRelay; router: CatalogRouter },
): Server | undefined {
  if (!children.snapshot.servers.has(name)) return undefined;
  const server = new Server(
    { name: `mcpmux-hop-${name}`, version: options.version },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true },
        completions: {},
      },
      // A held call's state is this cluster's (verified); a 2026-07-28 server's own passes as it is.
      requestState: {
        verify: (state, ctx) => options.relay.verify(state, ctx).catch(() => state),
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
  forwardRequests(server, name, view, options);
  return server;
}

/**
 * Calls, gets and reads, forwarded to the server. A 2026-07-28 server's input_required rounds pass
 * through as they are (its requestState and the client's inputResponses go back to it); a 2025
 * server that asks in the middle of a call is held here by the input relay, its questions sent back
 * as rounds (named as this replica exposes the tool, as every replica does), and since every
 * replica's hop for this server reaches this one, a round may come through any of them. What the
 * gate holds is not listed, nor called: a held tool or prompt is refused as unknown.
 */
function forwardRequests(
  server: Server,
  name: string,
  view: () => ServerView,
  { relay, router }: { relay: InputRelay; router: CatalogRouter },
): void {
  const listedAs = (kind: 'tools' | 'prompts', wanted: string) => {
    const current = view();
    if (!current.catalog[kind].some((item) => item.name === wanted))
      throw new MuxError(
        kind === 'tools' ? 'TOOL_NOT_FOUND' : 'PROMPT_NOT_FOUND',
        `server '${name}' lists no ${kind === 'tools' ? 'tool' : 'prompt'} '${wanted}' here`,
      );
    return current.connection;
  };
  const forwarded = async (
    connection: ServerView['connection'],
    method: InputCapableMethod,
    requested: string,
    params: Record<string, unknown>,
    ctx: HopContext,
  ) => {
    if (connection.speaksModern)
      return (await connection.request(method, withRound(params, ctx), roundOptions(ctx))) as never;
    const round = clientRound(ctx);
    return (await relay.forward({ connection, method, params, requested }, round, {
      signal: ctx.mcpReq.signal,
    })) as never;
  };
  const exposed = (item: string) => router.exposedName(name, item, view().prefix);
  for (const [method, kind] of [
    ['tools/call', 'tools'],
    ['prompts/get', 'prompts'],
  ] as const)
    server.setRequestHandler(method, (request, ctx) =>
      forwarded(
        listedAs(kind, request.params.name),
        method,
        exposed(request.params.name),
        request.params,
        ctx,
      ),
    );
  server.setRequestHandler('resources/read', (request, ctx) =>
    forwarded(view().connection, 'resources/read', request.params.uri, request.params, ctx),
  );
  server.setRequestHandler(
    'completion/complete',
    async (request, ctx) =>
      (await view().connection.request('completion/complete', request.params, {
        signal: ctx.mcpReq.signal,
      })) as never,
  );
}

/** What a forwarded request's round is read from (the SDK's context). */
type HopContext = Parameters<typeof clientRound>[0] & { mcpReq: { signal: AbortSignal } };

/**
 * The params as a 2026-07-28 server gets them: its own `requestState` and the client's
 * `inputResponses` of a later round go back to it (the forwarding replica sealed the state in its
 * own for the client; the hop's token keeps others out).
 */
function withRound(params: Record<string, unknown>, ctx: HopContext): Record<string, unknown> {
  const state = ctx.mcpReq.requestState();
  return {
    ...params,
    ...(ctx.mcpReq.inputResponses && { inputResponses: ctx.mcpReq.inputResponses }),
    ...(typeof state === 'string' && { requestState: state }),
  };
}

/** A child's input_required result passes back whole, to be answered in the caller's next round. */
const roundOptions = (ctx: HopContext) => ({ signal: ctx.mcpReq.signal, allowInputRequired: true });
