// JSON-RPC messages as JSON text, for every transport mcpmux writes to. A child's message has
// been through JSON.parse, which takes any depth; JSON.stringify recurses and fails past
// ~5,000 levels (10 KB of brackets). An answer that cannot be written must still reach its
// requester, as an error under its id, or the requester waits for ever.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { INTERNAL_ERROR, unhandledReason } from '../common/errors.js';

/** Results sent many times unchanged, with their JSON once it has been made. */
const reusedResults = new WeakMap<object, string | null>();

/**
 * Marks a result that will be sent again unchanged (the aggregated tool list: 5,000 tools
 * are a megabyte of JSON), so it is serialized once. The caller must not mutate it.
 */
export function reuseSerialization<T extends object>(result: T): T {
  reusedResults.set(result, null);
  return result;
}

/**
 * The message as JSON. One JSON cannot hold (too deep; a BigInt): an answer goes out as an
 * error under its id, so its requester is not left waiting; a request or notification is
 * refused with an error that says why, to whoever sends it.
 */
export function serializeMessage(message: JSONRPCMessage): string {
  try {
    return serialize(message);
  } catch (error) {
    if (!isAnswer(message)) throw new Error(`${describe(message)}: ${couldNotWrite(error)}`);
    return JSON.stringify(unwritableAnswer(message.id, error));
  }
}

/**
 * The answer itself when it can be written as JSON, else the error that replaces it. For a
 * transport that serializes messages itself and, failing, drops them without a word (the
 * SDK's streamable HTTP transport does: it reports to onerror and closes the request's
 * stream, answerless). Costs one serialization more per answer.
 */
export function answerThatSerializes(message: JSONRPCMessage): JSONRPCMessage {
  if (!isAnswer(message)) return message;
  try {
    serialize(message);
    return message;
  } catch (error) {
    return unwritableAnswer(message.id, error);
  }
}

type Answer = JSONRPCMessage & { id: string | number };

const isAnswer = (message: JSONRPCMessage): message is Answer => !('method' in message) && 'id' in message;

const describe = (message: JSONRPCMessage) => ('method' in message ? message.method : 'a message');

const couldNotWrite = (error: unknown) => `mcpmux could not write it as JSON: ${unhandledReason(error)}`;

const unwritableAnswer = (id: string | number, error: unknown): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  error: { code: INTERNAL_ERROR, message: couldNotWrite(error) },
});

function serialize(message: JSONRPCMessage): string {
  const result = (message as { result?: unknown }).result;
  if (typeof result !== 'object' || result === null || !reusedResults.has(result))
    return JSON.stringify(message);
  let json = reusedResults.get(result);
  if (json == null) {
    json = JSON.stringify(result);
    reusedResults.set(result, json);
  }
  const { id } = message as { id: string | number };
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}`;
}
