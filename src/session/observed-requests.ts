// What a session's requests leave behind for those who watch mcpmux: a server span for each
// (the MCP conventions' `{mcp.method.name} {target}`: `tools/call fs__read_file`), continuing
// the trace a client's `_meta` carries, and a line of the call log for each tool call, resource
// read and prompt get. Every handler the session installs on its SDK server is wrapped as it is
// installed, so both eras, stdio and HTTP, are observed alike. With neither telemetry nor a call
// log, the handlers are installed as they are.
import type { Server } from '@modelcontextprotocol/server';
import type { Era } from '../protocol/era.js';
import { NO_SPAN, telemetry, type Attributes, type SpanScope } from '../common/telemetry.js';
import { LOGGED_METHODS, type CallLog, type CallLogEntry } from './call-log.js';

interface HandlerContext {
  sessionId?: string | undefined;
  mcpReq: {
    id: string | number;
    method: string;
    _meta?: Record<string, unknown> | undefined;
    envelope?: Record<string, unknown> | undefined;
  };
}
type Handler = (request: { method: string; params?: unknown }, ctx: HandlerContext) => unknown;

export interface ObservedSession {
  /** `pipe` on stdio, `tcp` over HTTP (the conventions' network.transport). */
  network: 'pipe' | 'tcp';
  /** The protocol revision the client speaks, once known. */
  protocolVersion: () => string | undefined;
  /** The client's name (its clientInfo). */
  clientName: (ctx: HandlerContext) => string | undefined;
  /** The server that answers a tool or prompt of this exposed name, or a resource of this URI: a child's name, or mcpmux. */
  serverOf: (method: string, target: string | undefined) => string | undefined;
  callLog?: CallLog | undefined;
  /** --trace-content: a tool call's arguments and result are recorded in its span. */
  traceContent?: boolean | undefined;
}

/**
 * What a session's requests are observed with. The client names itself by era: in its
 * initialize (2025), or on each request's envelope (2026-07-28).
 */
export function observedSession(
  options: {
    network?: 'pipe' | 'tcp' | undefined;
    callLog?: CallLog | undefined;
    traceContent?: boolean | undefined;
  },
  era: Era,
  server: Server,
  serverOf: ObservedSession['serverOf'],
): ObservedSession {
  return {
    network: options.network ?? 'pipe',
    protocolVersion: () => (era === 'modern' ? '2026-07-28' : undefined),
    clientName: (ctx) =>
      era === 'modern'
        ? (ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientInfo'] as { name?: string } | undefined)?.name
        : server.getClientVersion()?.name,
    serverOf,
    callLog: options.callLog,
    traceContent: options.traceContent,
  };
}

export function observeRequests(server: Server, session: ObservedSession): void {
  if (!telemetry.enabled && !session.callLog) return;
  const install = server.setRequestHandler.bind(server) as (method: string, handler: Handler) => void;
  (server as unknown as { setRequestHandler: typeof install }).setRequestHandler = (method, handler) =>
    install(method, observed(handler, session));
  // The fallback handler (tools/call and tasks/ of a 2025 session) is a property.
  let fallback: Handler | undefined;
  Object.defineProperty(server, 'fallbackRequestHandler', {
    configurable: true,
    get: () => fallback,
    set: (handler: Handler | undefined) => {
      fallback = handler && observed(handler, session);
    },
  });
}

function observed(handler: Handler, session: ObservedSession): Handler {
  return (request, ctx) => {
    const { method } = request;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const target = targetOf(method, params);
    const logged = session.callLog && LOGGED_METHODS.has(method) ? session.callLog : undefined;
    const started = performance.now();
    const run = async (span: SpanScope) => {
      const content = session.traceContent && method === 'tools/call';
      if (content) span.set({ 'gen_ai.tool.call.arguments': JSON.stringify(params['arguments'] ?? {}) });
      try {
        const result = await handler(request, ctx);
        const isError = (result as { isError?: unknown } | null)?.isError === true;
        if (isError) span.fail('tool_error');
        if (content) span.set({ 'gen_ai.tool.call.result': JSON.stringify(result) });
        logged?.write(
          entry(session, callerOf(session, ctx), method, target, params, started, span, { result, isError }),
        );
        return result;
      } catch (error) {
        logged?.write(
          entry(session, callerOf(session, ctx), method, target, params, started, span, { error }),
        );
        throw error;
      }
    };
    if (!telemetry.enabled) return run(NO_SPAN);
    return telemetry.server(
      spanName(method, target),
      serverAttributes(session, method, target, ctx.mcpReq.id, ctx.sessionId),
      ctx.mcpReq._meta ?? (params['_meta'] as never),
      run,
    );
  };
}

/** A request the forwarding fast path takes: the client's, and where it goes. */
export interface ForwardedRequest {
  method: string;
  /** The client's params (its exposed names, its _meta). */
  params: Record<string, unknown>;
  id: string | number;
  sessionId: string | undefined;
  client: string | undefined;
  /** The child that answers, and its own name of the tool or prompt (or the resource's URI). */
  server: string;
  childTarget: string | undefined;
}

/** A forwarded request being observed: what the child's request carries, and its end. */
export interface ForwardedObservation {
  /** The trace context for the child's request's _meta (empty when tracing is off). */
  readonly childMeta: Record<string, string>;
  /** The answer the client gets (a result or an error): the spans end, the call log has its line. */
  settle(answer: { result?: unknown; error?: unknown }): void;
}

/**
 * Observes a request the fast path forwards, as the SDK's path observes the ones it handles:
 * a server span (continuing the client's trace), a client span under it whose context the
 * child receives, and a line of the call log. The spans start synchronously, so `childMeta`
 * is there when this returns.
 */
export function observeForwarded(session: ObservedSession, request: ForwardedRequest): ForwardedObservation {
  const { method, params } = request;
  const target = targetOf(method, params);
  const logged = session.callLog && LOGGED_METHODS.has(method) ? session.callLog : undefined;
  const started = performance.now();
  let settle!: (answer: { result?: unknown; error?: unknown }) => void;
  const answered = new Promise<{ result?: unknown; error?: unknown }>((resolve) => (settle = resolve));
  let childMeta: Record<string, string> = {};
  const toChild = (span: SpanScope) =>
    telemetry.client(
      spanName(method, request.childTarget),
      childSpanAttributes(request),
      async (clientSpan, meta) => {
        childMeta = meta;
        const answer = await answered;
        const failed = answerFailure(answer);
        if (failed) {
          clientSpan.fail(failed);
          span.fail(failed);
        }
        return answer;
      },
    );
  const run = async (span: SpanScope) => {
    const answer = await toChild(span);
    if (session.traceContent && method === 'tools/call')
      span.set({
        'gen_ai.tool.call.arguments': JSON.stringify(params['arguments'] ?? {}),
        'gen_ai.tool.call.result': JSON.stringify(answer.result ?? answer.error),
      });
    const client = { sessionId: request.sessionId, client: request.client };
    logged?.write(entry(session, client, method, target, params, started, span, outcomeOf(answer)));
  };
  const observing = telemetry.enabled
    ? telemetry.server(
        spanName(method, target),
        {
          ...serverAttributes(session, method, target, request.id, request.sessionId),
          'mcpmux.server.name': request.server,
        },
        params['_meta'] as Record<string, unknown> | undefined,
        run,
      )
    : run(NO_SPAN);
  void observing.catch(() => {});
  return { childMeta, settle };
}

/** The client span's attributes: the child's own name of what is asked. */
function childSpanAttributes({ method, server, childTarget }: ForwardedRequest): Attributes {
  return {
    'mcp.method.name': method,
    'mcpmux.server.name': server,
    ...(method === 'tools/call' && {
      'gen_ai.tool.name': childTarget,
      'gen_ai.operation.name': 'execute_tool',
    }),
    ...(method === 'prompts/get' && { 'gen_ai.prompt.name': childTarget }),
  };
}

/** What the call log says of an answer: its error, or its result and whether it is a tool's error. */
function outcomeOf(answer: { result?: unknown; error?: unknown }): Parameters<typeof entry>[7] {
  if ('error' in answer && answer.error !== undefined) return { error: answer.error };
  return {
    result: answer.result,
    isError: (answer.result as { isError?: unknown } | null)?.isError === true,
  };
}

/** error.type of an answer: its JSON-RPC error's code, or tool_error for a result with isError. */
function answerFailure(answer: { result?: unknown; error?: unknown }): string | undefined {
  if (answer.error !== undefined) return errorCodeOf(answer.error) ?? 'error';
  return (answer.result as { isError?: unknown } | null)?.isError === true ? 'tool_error' : undefined;
}

function spanName(method: string, target: string | undefined): string {
  return target !== undefined && method !== 'resources/read' ? `${method} ${target}` : method;
}

/** The conventions' attributes of a server span. */
function serverAttributes(
  session: ObservedSession,
  method: string,
  target: string | undefined,
  id: string | number,
  sessionId: string | undefined,
): Attributes {
  return {
    'mcp.method.name': method,
    'jsonrpc.request.id': String(id),
    'mcp.session.id': sessionId,
    'mcp.protocol.version': session.protocolVersion(),
    'network.transport': session.network,
    ...(method === 'tools/call' && { 'gen_ai.tool.name': target, 'gen_ai.operation.name': 'execute_tool' }),
    ...(method === 'prompts/get' && { 'gen_ai.prompt.name': target }),
    ...(method === 'resources/read' && { 'mcp.resource.uri': target }),
  };
}

const callerOf = (session: ObservedSession, ctx: HandlerContext) => ({
  sessionId: ctx.sessionId,
  client: session.clientName(ctx),
});

function entry(
  session: ObservedSession,
  caller: { sessionId: string | undefined; client: string | undefined },
  method: string,
  target: string | undefined,
  params: Record<string, unknown>,
  started: number,
  span: SpanScope,
  outcome: { result: unknown; isError: boolean } | { error: unknown },
): CallLogEntry {
  const failed = 'error' in outcome;
  const output = failed ? undefined : JSON.stringify(outcome.result ?? null);
  const content = session.callLog?.content === true;
  return {
    time: new Date().toISOString(),
    session: caller.sessionId,
    client: caller.client,
    method,
    server: session.serverOf(method, target),
    ...(method === 'tools/call' && { tool: target }),
    ...(method === 'prompts/get' && { prompt: target }),
    ...(method === 'resources/read' && { uri: target }),
    duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    outcome: failed ? 'error' : outcome.isError ? 'tool_error' : 'ok',
    error_code: failed
      ? errorCodeOf(outcome.error)
      : outcome.isError
        ? toolErrorCode(outcome.result)
        : undefined,
    bytes_in: Buffer.byteLength(
      JSON.stringify(method === 'tools/call' ? (params['arguments'] ?? {}) : params),
    ),
    bytes_out: output === undefined ? 0 : Buffer.byteLength(output),
    trace_id: span.traceId,
    ...(content && { arguments: method === 'tools/call' ? (params['arguments'] ?? {}) : params }),
    ...(content && !failed && { result: outcome.result }),
  };
}

/** A JSON-RPC error's code. */
function errorCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' || typeof code === 'string' ? String(code) : undefined;
}

/** mcpmux's own failures end their text with their code: `… [SERVER_CRASHED]`. */
function toolErrorCode(result: unknown): string | undefined {
  const content = (result as { content?: { type?: string; text?: string }[] } | null)?.content;
  const last = content?.findLast((c) => c.type === 'text')?.text;
  return last && /\[([A-Z][A-Z_]+)\]\s*$/.exec(last)?.[1];
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
