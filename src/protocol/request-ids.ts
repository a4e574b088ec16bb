// What MCP allows as a request's id, checked where a client's messages come in before the
// SDK's dispatch (stdio, HTTP+SSE): the SDK drops a request with any other id without a word.
// There too a malformed envelope (request-shape.ts) and a malformed initialize
// (initialize-check.ts) are refused: refusedRequest is all three.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { initializeRefusal } from './initialize-check.js';
import { malformedRequest } from './request-shape.js';

/**
 * A request whose id MCP does not allow (it must be a string or an integer, never null): the
 * JSON-RPC "Invalid Request" answer, under the id as sent when it is a number (so the client
 * can match it) and null otherwise, as JSON-RPC says. An integer past 2^53 (1e21, say) is
 * refused too: no JavaScript peer holds it exactly, and the SDK's dispatch dropped such a
 * request without a word.
 */
export function invalidRequestId(
  message: JSONRPCMessage,
  from = 'the client',
): { answer: JSONRPCMessage; why: string } | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const id: unknown = message.id;
  if (typeof id === 'string' || Number.isSafeInteger(id)) return undefined;
  const shown = (JSON.stringify(id) ?? String(id)).slice(0, 100);
  return {
    answer: {
      jsonrpc: '2.0',
      id: (typeof id === 'number' && Number.isFinite(id) ? id : null) as number,
      error: {
        code: -32600,
        message: `Invalid Request: the id of a request must be a string or an integer (MCP) within ±(2^53 − 1), not ${shown}`,
      },
    },
    why: `refused a ${message.method} request from ${from}: its id ${shown} is not a string or an integer, as MCP requires`,
  };
}

/** The id of the request a `notifications/cancelled` names, when it is one (else undefined). */
export function cancelledRequestId(message: JSONRPCMessage): string | number | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message)
    return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * What a transport answers at once, before the SDK sees the message: a request whose id MCP
 * does not allow, whose method or params are not what a request's must be, or a malformed
 * initialize; undefined for everything else.
 */
export function refusedRequest(message: JSONRPCMessage): { answer: JSONRPCMessage; why: string } | undefined {
  return invalidRequestId(message) ?? malformedRequest(message) ?? initializeRefusal(message);
}
