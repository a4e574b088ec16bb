// A child's log messages go up as they came, past the SDK's client. A server logging a flood
// had each message checked by the SDK against every JSON-RPC shape on its way in (zod
// building an issue for each shape it was not) and again on its way out: 100,000 messages
// took 9.2 s of mcpmux's CPU and 6.3 s, and now take 1.6 s and 1.4 s (peak RSS 175 → 108
// MB). On a 2025 connection they also go out past the SDK's server (MuxServer.useWire).
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { ChildUpstream, InputOrigin } from '../child-types.js';

/**
 * Sends `message` up when it is a log message in the shape the spec gives it (params an
 * object with a string level) and says so; anything else is left to the SDK, which says
 * what is wrong with it.
 */
export function relayedLogMessage(
  server: string,
  message: JSONRPCMessage,
  upstream: ChildUpstream,
  callers: readonly InputOrigin[],
): boolean {
  if (!('method' in message) || message.method !== 'notifications/message' || 'id' in message) return false;
  const params = message.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  if (typeof params['level'] !== 'string') return false;
  upstream.notify(server, message, callers);
  return true;
}
