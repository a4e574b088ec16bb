// @ts-check
// For fixtures written by hand, without an SDK, so that they can misbehave where an SDK
// would not let them: a message written whole to stdout, and the answer to initialize.
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Writes one JSON-RPC message as a line, synchronously (a fixture may close stdout next). */
export const send = (/** @type {object} */ message) =>
  writeSync(1, JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');

/** Answers initialize in the client's own protocol version, as server `name` with `capabilities`. */
export function answerInitialize(
  /** @type {string | number} */ id,
  /** @type {{ protocolVersion: string }} */ params,
  /** @type {string} */ name,
  capabilities = { tools: {} },
) {
  send({ id, result: initializeResult(params, name, capabilities) });
}

/** The result of initialize in the client's own protocol version, as server `name`. */
export const initializeResult = (
  /** @type {{ protocolVersion: string }} */ params,
  /** @type {string} */ name,
  capabilities = { tools: {} },
) => ({ protocolVersion: params.protocolVersion, capabilities, serverInfo: { name, version: '1.0.0' } });

/**
 * Calls `answer(id, result)` for each request on stdin: initialize's result as server `name`,
 * `{}` for any other (a server whose fault is in how it writes its answers).
 */
export function answerEachRequest(
  /** @type {string} */ name,
  /** @type {(id: string | number, result: object) => void} */ answer,
) {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const { id, method, params } = JSON.parse(line);
    if (id !== undefined) answer(id, method === 'initialize' ? initializeResult(params, name) : {});
  });
}
