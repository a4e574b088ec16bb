// What a forwarded request carries from the caller to the child: the caller's cancellation,
// and, when the caller asked for progress, the child's progress relayed under the caller's
// own token (the SDK gives the child a token of ours).
import type { CallOptions } from '../child/child-connection.js';

/** What forwarding needs of the SDK's handler context (`ctx.mcpReq`). */
interface CallerContext {
  mcpReq: {
    signal: AbortSignal;
    notify: (notification: never) => Promise<void>;
  };
}

type SendProgress = (notification: {
  method: 'notifications/progress';
  params: Record<string, unknown>;
}) => Promise<void>;

export function forwardingOptions(
  params: { _meta?: { progressToken?: string | number | undefined } | undefined } | undefined,
  ctx: CallerContext,
): CallOptions {
  const { signal } = ctx.mcpReq;
  const progressToken = params?._meta?.progressToken;
  if (progressToken === undefined) return { signal };
  const send = ctx.mcpReq.notify as unknown as SendProgress;
  return {
    signal,
    onprogress: (progress) => {
      void send({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => {});
    },
  };
}
