// What a forwarded request carries from the caller to the child: the caller's cancellation,
// and, when the caller asked for progress, the child's progress relayed under the caller's
// own token (the SDK gives the child a token of ours).
import type { CallOptions } from '../child/child-connection.js';

interface CallerExtra {
  signal: AbortSignal;
  sendNotification: (notification: never) => Promise<void>;
}

type SendProgress = (notification: {
  method: 'notifications/progress';
  params: Record<string, unknown>;
}) => Promise<void>;

export function forwardingOptions(
  params: { _meta?: { progressToken?: string | number | undefined } | undefined } | undefined,
  extra: CallerExtra,
): CallOptions {
  const progressToken = params?._meta?.progressToken;
  if (progressToken === undefined) return { signal: extra.signal };
  const send = extra.sendNotification as unknown as SendProgress;
  return {
    signal: extra.signal,
    onprogress: (progress) => {
      void send({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => {});
    },
  };
}
