// What a forwarded request carries from the caller to the child: the caller's cancellation;
// when the caller asked for progress, the child's progress relayed under the caller's own
// token (the SDK gives the child a token of ours); and the caller as the one the child's
// requests during the call go to.
import type { Era } from '../../protocol/era.js';
import type { ClientCapabilities, Server } from '@modelcontextprotocol/server';
import type { CallOptions, InputOrigin, JSONRPCRequestLike } from '../../child/child-types.js';
import { requestLogs } from '../../child/requests/request-logs.js';
import { MuxError } from '../../common/errors.js';
import { UncheckedResult } from '../../protocol/answer-shape.js';
import { clientCapabilitiesOf } from './input-relay.js';

/** What forwarding needs of the SDK's handler context (`ctx.mcpReq`). */
interface CallerContext {
  mcpReq: {
    signal: AbortSignal;
    notify: (notification: never) => Promise<void>;
    send: (request: never, schema: never, options?: { signal?: AbortSignal }) => Promise<unknown>;
    envelope?: Readonly<Record<string, unknown>>;
  };
}

/** The client a request comes from: its era, and (2025) what it declared at initialize. */
export interface Caller {
  era: Era;
  /** A 2025 client's capabilities from its initialize (a 2026-07-28 one declares them on each request). */
  capabilities: () => ClientCapabilities | undefined;
  /** Tells a 2025 client something on its session, outside any request. */
  notify?: (notification: JSONRPCRequestLike) => Promise<void>;
}

type SendProgress = (notification: {
  method: 'notifications/progress';
  params: Record<string, unknown>;
}) => Promise<void>;

export function forwardingOptions(
  params: { _meta?: { progressToken?: string | number | undefined } | undefined } | undefined,
  ctx: CallerContext,
  caller: Caller,
): CallOptions {
  const { signal } = ctx.mcpReq;
  const origin = callerOrigin(ctx, caller);
  const progressToken = params?._meta?.progressToken;
  if (progressToken === undefined) return { signal, origin };
  const send = ctx.mcpReq.notify as unknown as SendProgress;
  return {
    signal,
    origin,
    onprogress: (progress) => {
      void send({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => {});
    },
  };
}

/**
 * A 2025 client is asked on its connection, tied to the request being served (over HTTP it
 * goes on that request's stream). A 2026-07-28 client can be asked only through an
 * input_required result, which input-relay.ts makes for the requests that allow one; any
 * other request cannot carry a question, and the child hears why.
 */
function callerOrigin(ctx: CallerContext, caller: Caller): InputOrigin {
  if (caller.era === 'modern') {
    return {
      capabilities: clientCapabilitiesOf(ctx),
      // Its log messages go on the request's own stream (over HTTP there is no other).
      logs: requestLogs(ctx.mcpReq.envelope, (notification) => ctx.mcpReq.notify(notification as never)),
      ask: (request) =>
        Promise.reject(
          new MuxError(
            'NOT_SUPPORTED',
            `${request.method} cannot reach a 2026-07-28 client during this request: such a client is asked only through the result of a tools/call, prompts/get or resources/read it made itself`,
          ),
        ),
    };
  }
  const send = ctx.mcpReq.send as unknown as (
    request: JSONRPCRequestLike,
    schema: typeof UncheckedResult,
    options: { signal: AbortSignal; timeout?: number },
  ) => Promise<Record<string, unknown>>;
  return {
    get capabilities() {
      return caller.capabilities();
    },
    ...(caller.notify && { notify: caller.notify }),
    ask: (request, signal, timeoutMs) =>
      send({ method: request.method, ...(request.params && { params: request.params }) }, UncheckedResult, {
        signal,
        ...(timeoutMs !== undefined && { timeout: timeoutMs }),
      }),
  };
}

/**
 * A 2025 client asked through its session's server: on the stream of its request
 * `relatedRequestId` (a call the fast path carries over HTTP, where sessions share the
 * children), or on the session itself (an agent run in the background).
 */
export function sessionCallerOrigin(
  server: Pick<Server, 'request' | 'notification' | 'getClientCapabilities'>,
  relatedRequestId?: string | number,
): InputOrigin {
  return {
    get capabilities() {
      return server.getClientCapabilities();
    },
    notify: (notification) => server.notification(notification as never),
    ask: (request, signal, timeoutMs) =>
      server.request(
        { method: request.method, ...(request.params && { params: request.params }) },
        UncheckedResult,
        {
          signal,
          ...(relatedRequestId !== undefined && { relatedRequestId }),
          ...(timeoutMs !== undefined && { timeout: timeoutMs }),
        },
      ) as Promise<Record<string, unknown>>,
  };
}
