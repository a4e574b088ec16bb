// What mcpmux asks of a running generation on a client's behalf, on the SDK's path (the
// fast path is session/fast-path/fast-path.ts): the caller's cancellation, progress and origin go
// with the request, a 2026-07-28 server is told per request what the caller can do, and a
// failure says what happened to the child (removed, reloaded, crashed, timed out, refused
// over HTTP); a request that met the end of a remote server's session goes again under the
// new one (session-renewal.ts). A call of a 2026-07-28 server over HTTP repeats the arguments
// its tool marks in Mcp-Param-* headers (param-headers.ts); one the server refuses for its
// headers goes once more after its tools are listed again (SEP-2243's refresh on a miss).
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import type { Client, LoggingLevel, Tool } from '@modelcontextprotocol/client';
import { MuxError } from '../../common/errors.js';
import { telemetry } from '../../common/telemetry.js';
import { CAPABILITY_TABLE, type CapabilityRow } from '../../protocol/capabilities.js';
import { callTimeoutError } from '../../protocol/forwarded-call.js';
import { UncheckedResult } from '../../protocol/answer-shape.js';
import { StreamClosedError } from '../../protocol/json-line-writer.js';
import { HEADER_MISMATCH, paramHeaderValues, paramHeadersOf } from '../../protocol/param-headers.js';
import { childCapabilities, withEnvelope } from '../child-client.js';
import type { ServerSpec } from '../server-spec.js';
import type { CallOptions, ChildConnectionOptions, ChildUpstream } from '../child-types.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../child-types.js';
import { DRAIN_AFTER_EXIT_MS, originDuring, type Generation } from '../generation.js';
import { httpRefusal } from '../remote/http-refusal.js';
import { ResourceListen } from '../catalog/resource-listen.js';
import { moreVerbose } from './request-logs.js';
import type { ReloadHold } from './reload-hold.js';
import { SessionRenewal } from '../remote/session-renewal.js';
import { delay } from '../../common/delay.js';

export interface RequestContext {
  name: string;
  callTimeoutMs: number;
  /** The error for a child that is not running, as its state says (crashed, stopping…). */
  notRunning(): MuxError;
  /** A remote server that cannot be reached at all any more: judged lost (its crash). */
  lostRemote(error: unknown): boolean;
  /** The running server's tools (by its own names). */
  tools(): readonly Tool[];
  /** Lists the running server's tools again (one listing for callers that ask at once). */
  relistTools(): Promise<void>;
  /** The level 2025 sessions want log messages at (ChildUpstream.sessionLogLevel). */
  sessionLogLevel(): LoggingLevel | undefined;
}

type Connected = Generation & { client: Client };

/** What a request on the SDK's path needs of its connection (ChildConnection). */
export interface RequestHost {
  name: string;
  upstream: ChildUpstream | undefined;
  renewal: SessionRenewal;
  /** The running generation, or the error that says why there is none (after a reload under way). */
  running(): Promise<Connected>;
  context(gen: Generation): RequestContext;
}

/** The parts of a connection a RequestHost is made of. */
export interface RequestHostParts {
  name: string;
  spec: ServerSpec;
  options: Pick<ChildConnectionOptions, 'upstream' | 'renewSession' | 'callTimeoutMs' | 'logger'>;
  hold: ReloadHold;
  current(gen: Generation): boolean;
  /** The running generation, or the error that says why there is none. */
  running(): Connected;
  /** The running generation's tools. */
  tools(): readonly Tool[];
  /** Lists `rows` of `gen` again and publishes them (settles when done, failed or not). */
  relist(gen: Generation, rows: readonly CapabilityRow[]): Promise<void>;
  notRunning(): MuxError;
  lostRemote(gen: Generation, error: unknown): boolean;
  lose(gen: Generation, why: string): void;
}

export function newRequestHost(parts: RequestHostParts): RequestHost {
  const { name, spec, options, hold } = parts;
  const relisting = new WeakMap<Generation, Promise<void>>();
  const relistTools = (gen: Generation) => {
    let listed = relisting.get(gen);
    if (!listed) {
      listed = parts.relist(gen, [CAPABILITY_TABLE.tools]).finally(() => relisting.delete(gen));
      relisting.set(gen, listed);
    }
    return listed;
  };
  return {
    name,
    upstream: options.upstream,
    renewal: new SessionRenewal({
      name,
      url: spec.transport === 'http' ? spec.url : '',
      log: options.logger,
      current: parts.current,
      hold: (renewal) => hold.during(renewal),
      renew: () => options.renewSession?.() ?? Promise.resolve(),
      lose: parts.lose,
    }),
    running: async () => {
      await hold.passed();
      return parts.running();
    },
    context: (gen) => ({
      name,
      callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      notRunning: parts.notRunning,
      lostRemote: (error) => parts.lostRemote(gen, error),
      tools: parts.tools,
      relistTools: () => relistTools(gen),
      sessionLogLevel: () => options.upstream?.sessionLogLevel?.(),
    }),
  };
}

/**
 * One request to the running generation. One that met the end of a remote server's session,
 * which the server did not run, goes once more under the new session.
 */
export async function requestRunning(
  host: RequestHost,
  method: string,
  params: Record<string, unknown> | undefined,
  options: CallOptions,
): Promise<Record<string, unknown>> {
  if (!telemetry.enabled) return requestOnce(host, method, params, options);
  // A client span under the request being served; the child gets its context in _meta.
  const target = typeof params?.['name'] === 'string' ? params['name'] : undefined;
  const attributes = {
    'mcp.method.name': method,
    'mcpmux.server.name': host.name,
    ...(method === 'tools/call' && { 'gen_ai.tool.name': target, 'gen_ai.operation.name': 'execute_tool' }),
    ...(method === 'prompts/get' && { 'gen_ai.prompt.name': target }),
  };
  const name = target !== undefined ? `${method} ${target}` : method;
  return telemetry.client(name, attributes, async (span, meta) => {
    const withContext = { ...params, _meta: { ...(params?.['_meta'] as object | undefined), ...meta } };
    const result = await requestOnce(host, method, withContext, options);
    if (result['isError'] === true) span.fail('tool_error');
    return result;
  });
}

async function requestOnce(
  host: RequestHost,
  method: string,
  params: Record<string, unknown> | undefined,
  options: CallOptions,
): Promise<Record<string, unknown>> {
  const gen = await host.running();
  let failure: unknown;
  gen.requests++;
  try {
    return await forwardRequest(gen, method, params, options, host.context(gen));
  } catch (error) {
    failure = error;
  } finally {
    gen.requests--;
  }
  if (!host.renewal.ended(gen, failure)) throw failed(host, failure, options);
  await gen.ended; // a session that ended again at once: the crash is judged first
  const next = await host.running(); // after the renewal (a reload) under way
  return forwardRequest(next, method, params, options, host.context(next)).catch((error: unknown) => {
    throw failed(host, error, options);
  });
}

/** A failure as its caller gets it: a -32042 error's elicitations noted as the caller's, an HTTP refusal in words. */
function failed(host: RequestHost, error: unknown, options: CallOptions): unknown {
  host.upstream?.elicitationsRequired?.(host.name, error, options.origin?.notify?.bind(options.origin));
  return httpRefusal(host.name, error);
}

/** The Mcp-Param-* headers of a call, from the called tool's x-mcp-header declarations. */
function callHeaders(
  params: Record<string, unknown> | undefined,
  ctx: RequestContext,
): Record<string, string> {
  const name = params?.['name'];
  const tool = ctx.tools().find((t) => t.name === name);
  if (!tool) return {};
  return paramHeaderValues(
    paramHeadersOf(tool.inputSchema),
    params?.['arguments'] as Record<string, unknown> | undefined,
  );
}

/** Forwards one request and returns the child's result unchecked (the client checks it). */
export async function forwardRequest(
  gen: Connected,
  method: string,
  params: Record<string, unknown> | undefined,
  options: CallOptions,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const { origin } = options;
  const release = origin && originDuring(gen, origin);
  // A 2026-07-28 server reads from each request what the client can do (the caller's, not
  // all of them) and how much it wants to hear.
  const modern = gen.client.getProtocolEra() === 'modern';
  if (modern)
    params = withEnvelope(
      params,
      origin?.capabilities && childCapabilities(origin.capabilities),
      // What its caller asked to hear, or a 2025 session (the child's log messages go to each as it asked).
      moreVerbose(origin?.logs?.level, ctx.sessionLogLevel()),
    );
  // Only a 2026-07-28 server over HTTP reads arguments from headers.
  const mirrored = modern && gen.remote === 'streamable-http' && method === 'tools/call';
  const send = () => {
    const headers = mirrored ? callHeaders(params, ctx) : {};
    return gen.client.request({ method, ...(params !== undefined && { params }) }, UncheckedResult, {
      ...(Object.keys(headers).length > 0 && { headers }),
      ...(options.signal && { signal: options.signal }),
      timeout: ctx.callTimeoutMs,
      resetTimeoutOnProgress: true,
      ...(options.onprogress && { onprogress: options.onprogress }),
      ...(options.allowInputRequired && { allowInputRequired: true }),
    });
  };
  try {
    try {
      return await send();
    } catch (error) {
      // Refused for its headers: the tool's schema changed without a list_changed reaching
      // mcpmux (a server redeployed, say). List its tools again and call once more, as the
      // SDK's own client does; the new list also reaches the client.
      if (!mirrored || !(error instanceof ProtocolError) || error.code !== HEADER_MISMATCH) throw error;
      if (options.signal?.aborted) throw error;
      await ctx.relistTools();
      return await send();
    }
  } catch (error) {
    throw await whyFailed(gen, { method, params, options, ctx }, error);
  } finally {
    release?.();
  }
}

/**
 * The error a forwarded request's failure is thrown as: why the generation's calls ended
 * (removed, reloaded, crashed, a remote lost), a call's timeout by name, or the error as it came.
 */
async function whyFailed(
  gen: Connected,
  request: {
    method: string;
    params: Record<string, unknown> | undefined;
    options: CallOptions;
    ctx: RequestContext;
  },
  error: unknown,
): Promise<unknown> {
  const { method, params, options, ctx } = request;
  // The generation's calls were ended by us (removed, reloaded, crashed): say why.
  if (gen.callsEnded) return gen.callsEnded;
  if (ctx.lostRemote(error)) {
    await gen.ended;
    return gen.callsEnded ?? ctx.notRunning();
  }
  if (
    (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) ||
    error instanceof StreamClosedError
  ) {
    // The close is seen here before the crash is recorded (a write to a dying child fails even
    // before its pipe is seen closed): wait for the verdict so the error says why.
    const judged = delay(3 * DRAIN_AFTER_EXIT_MS + 100);
    await Promise.race([gen.transportClosed, judged]);
    await Promise.race([gen.ended, judged]);
    return gen.callsEnded ?? ctx.notRunning();
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && !options.signal?.aborted) {
    const what = method === 'tools/call' ? `tool '${String(params?.['name'])}'` : method;
    return callTimeoutError(ctx.name, what, ctx.callTimeoutMs);
  }
  return error;
}

/**
 * Subscribes to a resource's updates (they come to the upstream's notify): resources/subscribe
 * for a 2025 server, the resource set of a subscriptions/listen stream for a 2026-07-28 one.
 */
export async function subscribeResource(
  gen: Connected,
  uri: string,
  signal: AbortSignal | undefined,
  ctx: RequestContext,
): Promise<void> {
  if (gen.client.getProtocolEra() !== 'modern') {
    await forwardRequest(gen, 'resources/subscribe', { uri }, signal ? { signal } : {}, ctx);
    return;
  }
  if (!gen.client.getServerCapabilities()?.resources?.subscribe)
    throw new MuxError('NOT_SUPPORTED', `server '${ctx.name}' does not offer resource subscriptions`);
  await (gen.resourceListen ??= new ResourceListen(ctx.name, gen.client)).add(uri);
}

export async function unsubscribeResource(
  gen: Connected,
  uri: string,
  signal: AbortSignal | undefined,
  ctx: RequestContext,
): Promise<void> {
  if (gen.client.getProtocolEra() === 'modern') await gen.resourceListen?.remove(uri);
  else await forwardRequest(gen, 'resources/unsubscribe', { uri }, signal ? { signal } : {}, ctx);
}
