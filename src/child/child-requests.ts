// What mcpmux asks of a running generation on a client's behalf, on the SDK's path (the
// fast path is forwarding/fast-path.ts): the caller's cancellation, progress and origin go
// with the request, a 2026-07-28 server is told per request what the caller can do, and a
// failure says what happened to the child (removed, reloaded, crashed, timed out).
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import type { Client } from '@modelcontextprotocol/client';
import { MuxError } from '../errors.js';
import { callTimeoutError } from '../forwarding/child-lane.js';
import { UncheckedResult } from '../relay.js';
import { StreamClosedError } from '../transport/json-line-writer.js';
import { childCapabilities, withEnvelope } from './child-client.js';
import type { CallOptions } from './child-types.js';
import { DRAIN_AFTER_EXIT_MS, originDuring, type Generation } from './generation.js';
import { ResourceListen } from './resource-listen.js';
import { delay } from './start-failure.js';

export interface RequestContext {
  name: string;
  callTimeoutMs: number;
  /** The error for a child that is not running, as its state says (crashed, stopping…). */
  notRunning(): MuxError;
  /** A remote server that cannot be reached at all any more: judged lost (its crash). */
  lostRemote(error: unknown): boolean;
}

type Connected = Generation & { client: Client };

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
  if (gen.client.getProtocolEra() === 'modern')
    params = withEnvelope(
      params,
      origin?.capabilities && childCapabilities(origin.capabilities),
      gen.logLevel,
    );
  try {
    return await gen.client.request({ method, ...(params !== undefined && { params }) }, UncheckedResult, {
      ...(options.signal && { signal: options.signal }),
      timeout: ctx.callTimeoutMs,
      resetTimeoutOnProgress: true,
      ...(options.onprogress && { onprogress: options.onprogress }),
      ...(options.allowInputRequired && { allowInputRequired: true }),
    });
  } catch (error) {
    // The generation's calls were ended by us (removed, reloaded, crashed): say why.
    if (gen.callsEnded) throw gen.callsEnded;
    if (ctx.lostRemote(error)) {
      await gen.ended;
      throw gen.callsEnded ?? ctx.notRunning();
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
      throw gen.callsEnded ?? ctx.notRunning();
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && !options.signal?.aborted) {
      const what = method === 'tools/call' ? `tool '${String(params?.['name'])}'` : method;
      throw callTimeoutError(ctx.name, what, ctx.callTimeoutMs);
    }
    throw error;
  } finally {
    release?.();
  }
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
