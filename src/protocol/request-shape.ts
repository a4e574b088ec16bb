// A request whose envelope is wrong though its id can be read: "jsonrpc" missing or not
// "2.0", a method that is not a string, params that are not an object. Over stdio the SDK
// drops such a request without a word (and mcpmux's line reader skipped the first kind), so
// its sender, the client or a server asking mcpmux something, waits for an answer that never
// comes; JSON-RPC answers it under its id.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';

type Refusal = { answer: JSONRPCMessage; why: string };

/** Who sent a message, as the log line says it: "the client", or "the server" (the line's prefix names it). */
export type Sender = string;

/** A request that is JSON-RPC by its envelope but that MCP's dispatch cannot take; else undefined. */
export function malformedRequest(message: JSONRPCMessage, from: Sender = 'the client'): Refusal | undefined {
  return wrongEnvelope(message, { jsonrpcChecked: true, from });
}

/**
 * A parsed line that is not JSON-RPC 2.0 but carries a request's method and an id that can be
 * answered (a hand-written client that left out "jsonrpc", say); else undefined, and the line
 * is skipped as before.
 */
export function notJsonRpcRequest(value: unknown, from: Sender = 'the client'): Refusal | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return wrongEnvelope(value as Record<string, unknown>, { jsonrpcChecked: false, from });
}

function wrongEnvelope(
  message: object,
  { jsonrpcChecked, from }: { jsonrpcChecked: boolean; from: Sender },
): Refusal | undefined {
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  if (!('method' in message) || !answerable(id)) return undefined;
  const named = `${typeof method === 'string' ? `a ${method.slice(0, 100)} request` : 'a request'} from ${from}`;
  if (!jsonrpcChecked && jsonrpc !== '2.0')
    return refusal(id, -32600, `"jsonrpc" must be "2.0", not ${shown(jsonrpc)}`, named);
  if (typeof method !== 'string')
    return refusal(id, -32600, `"method" must be a string, not ${shown(method)}`, named);
  if (!('params' in message) || isObject(params)) return undefined;
  // JSON-RPC allows by-position params; MCP's requests all take an object.
  return Array.isArray(params)
    ? refusal(id, -32602, `"params" must be an object (MCP names every parameter), not an array`, named)
    : refusal(id, -32600, `"params" must be an object when present, not ${shown(params)}`, named);
}

/** An id JSON-RPC can answer under: a string or a safe integer (any other is request-ids.ts's). */
function answerable(id: unknown): id is string | number {
  return typeof id === 'string' || Number.isSafeInteger(id);
}

/** A JSON object: what params and results are (not null, not a list). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field's value as an error message shows it: its JSON, cut short, or "missing". */
export function shown(value: unknown): string {
  return value === undefined ? 'missing' : (JSON.stringify(value) ?? String(value)).slice(0, 100);
}

function refusal(id: string | number, code: number, problem: string, named: string): Refusal {
  const kind = code === -32602 ? 'Invalid params' : 'Invalid Request';
  return {
    answer: { jsonrpc: '2.0', id, error: { code, message: `${kind}: ${problem}` } },
    why: `refused ${named}: ${problem}`,
  };
}
