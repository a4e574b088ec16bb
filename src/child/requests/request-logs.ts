// Log messages for a 2026-07-28 client. That revision has no logging/setLevel and no session
// to log on: a request asks for the log messages sent while it is served by naming a level in
// its `_meta` (io.modelcontextprotocol/logLevel), and a server MUST NOT send any for a request
// that names none (SEP-2577). So a child's log message reaches such a client only through a
// request of its to that child still in flight that asked, at that level or above, and on
// that request (over HTTP, its stream). A 2025 client hears its children's log messages by
// session, at the level it set (client-settings.ts).
import { LOG_LEVEL_META_KEY, type LoggingLevel } from '@modelcontextprotocol/server';
import type { InputOrigin, JSONRPCRequestLike, RequestLogs } from '../child-types.js';

export type { RequestLogs } from '../child-types.js';

/** MCP's logging levels, least severe first. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Whether a message at `level` is at `threshold` or above (one at a level MCP has no name for is: the reader decides). */
export function atOrAbove(level: unknown, threshold: LoggingLevel): boolean {
  const rank = LOGGING_LEVELS.indexOf(level as LoggingLevel);
  return rank === -1 || rank >= LOGGING_LEVELS.indexOf(threshold);
}

/** The more verbose of two levels; undefined when neither is set. */
export function moreVerbose(
  a: LoggingLevel | undefined,
  b: LoggingLevel | undefined,
): LoggingLevel | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return LOGGING_LEVELS.indexOf(a) <= LOGGING_LEVELS.indexOf(b) ? a : b;
}

/** The log level a request's `_meta` names, if it names one MCP knows. */
export function requestedLogLevel(meta: unknown): LoggingLevel | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const level = (meta as Record<string, unknown>)[LOG_LEVEL_META_KEY];
  return LOGGING_LEVELS.includes(level as LoggingLevel) ? (level as LoggingLevel) : undefined;
}

/** A request's log messages: none unless its `_meta` names a level. */
export function requestLogs(meta: unknown, send: RequestLogs['send']): RequestLogs | undefined {
  const level = requestedLogLevel(meta);
  return level === undefined ? undefined : { level, send };
}

/** A child's log message as a client gets it: `logger` names the server first. */
export function asServerLog(server: string, notification: JSONRPCRequestLike): JSONRPCRequestLike {
  const params = notification.params ?? {};
  const logger = typeof params['logger'] === 'string' ? `${server}/${params['logger']}` : server;
  return { method: notification.method, params: { ...params, logger } };
}

/**
 * Sends a child's log message to the requests in flight to it (`callers`, its generation's)
 * that asked for messages at its level, once per destination (two calls of one stdio client
 * share one). Returns how many it went to.
 */
export function logToRequests(
  server: string,
  notification: JSONRPCRequestLike,
  callers: readonly InputOrigin[],
  onError: (error: unknown) => void,
): number {
  const sent = new Set<RequestLogs['send']>();
  for (const { logs } of callers) {
    if (!logs || sent.has(logs.send) || !atOrAbove(notification.params?.['level'], logs.level)) continue;
    sent.add(logs.send);
    logs.send(asServerLog(server, notification)).catch(onError);
  }
  return sent.size;
}
