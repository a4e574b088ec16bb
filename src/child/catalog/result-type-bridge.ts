// A 2026-07-28 result must say `resultType`; some servers of that era still leave it out, and
// the SDK's client then refuses the result (only a 2025 server gets "absent means complete").
// mcpmux fronts servers it does not control, so for a modern child it reads a result without
// one as complete, says so once, and answers its own client with the field in place (on the
// forwarding fast path too, where the child's answer does not pass the SDK's client).
import type { Transport } from '@modelcontextprotocol/client';

const COMPLETE = 'complete';

/** Makes `transport` deliver results without `resultType` as complete ones; `onFirst` is told once. */
export function bridgeMissingResultType(transport: Transport, onFirst: () => void): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  let told = false;
  transport.onmessage = (message, extra) => {
    const result = (message as { result?: unknown }).result;
    if (typeof result === 'object' && result !== null && !('resultType' in result)) {
      if (!told) {
        told = true;
        onFirst();
      }
      (result as Record<string, unknown>)['resultType'] = COMPLETE;
    }
    deliver.call(transport, message, extra);
  };
}

/** A modern child's result as its client must read it: `resultType` absent means complete. */
export function withResultType<T extends object>(result: T): T {
  return 'resultType' in result ? result : { ...result, resultType: COMPLETE };
}
