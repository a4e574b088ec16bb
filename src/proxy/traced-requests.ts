// The server spans of a session's requests (the MCP conventions' `{mcp.method.name} {target}`:
// `tools/call fs__read_file`), whatever handles them: every handler the session installs on its
// SDK server is wrapped as it is installed, so lists, reads, gets and calls, of both eras, over
// stdio and HTTP, are traced alike; the trace a client's `_meta` carries is continued. Only
// where telemetry is on: off, the handlers are installed as they are.
import type { Server } from '@modelcontextprotocol/server';
import { telemetry, type Attributes, type SpanScope } from '../common/telemetry.js';

interface HandlerContext {
  sessionId?: string | undefined;
  mcpReq: { id: string | number; method: string; _meta?: Record<string, unknown> | undefined };
}
type Handler = (request: { method: string; params?: unknown }, ctx: HandlerContext) => unknown;

export interface TracedSession {
  /** `pipe` on stdio, `tcp` over HTTP (the conventions' network.transport). */
  network: 'pipe' | 'tcp';
  /** The protocol revision the client speaks, once known. */
  protocolVersion: () => string | undefined;
}

export function traceRequests(server: Server, session: TracedSession): void {
  if (!telemetry.enabled) return;
  const install = server.setRequestHandler.bind(server) as (method: string, handler: Handler) => void;
  (server as unknown as { setRequestHandler: typeof install }).setRequestHandler = (method, handler) =>
    install(method, traced(handler, session));
  // The fallback handler (tools/call and tasks/ of a 2025 session) is a property.
  let fallback: Handler | undefined;
  Object.defineProperty(server, 'fallbackRequestHandler', {
    configurable: true,
    get: () => fallback,
    set: (handler: Handler | undefined) => {
      fallback = handler && traced(handler, session);
    },
  });
}

function traced(handler: Handler, session: TracedSession): Handler {
  return (request, ctx) => {
    const { method } = request;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const target = targetOf(method, params);
    const attributes: Attributes = {
      'mcp.method.name': method,
      'jsonrpc.request.id': String(ctx.mcpReq.id),
      'mcp.session.id': ctx.sessionId,
      'mcp.protocol.version': session.protocolVersion(),
      'network.transport': session.network,
      ...(method === 'tools/call' && { 'gen_ai.tool.name': target, 'gen_ai.operation.name': 'execute_tool' }),
      ...(method === 'prompts/get' && { 'gen_ai.prompt.name': target }),
      ...(method === 'resources/read' && { 'mcp.resource.uri': target }),
    };
    const name = target !== undefined && method !== 'resources/read' ? `${method} ${target}` : method;
    return telemetry.server(name, attributes, ctx.mcpReq._meta ?? (params['_meta'] as never), async (span) =>
      outcome(span, await handler(request, ctx)),
    );
  };
}

/** A tool's result that says it failed is the conventions' tool_error. */
function outcome(span: SpanScope, result: unknown): unknown {
  if ((result as { isError?: unknown } | null)?.isError === true) span.fail('tool_error');
  return result;
}

function targetOf(method: string, params: Record<string, unknown>): string | undefined {
  const key =
    method === 'resources/read'
      ? 'uri'
      : method === 'tools/call' || method === 'prompts/get'
        ? 'name'
        : undefined;
  const value = key && params[key];
  return typeof value === 'string' ? value : undefined;
}
