// @ts-check
// For fixtures written by hand, without an SDK, so that they can misbehave where an SDK
// would not let them: a message written whole to stdout, and the answer to initialize.
import { writeSync } from 'node:fs';

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
  send({
    id,
    result: { protocolVersion: params.protocolVersion, capabilities, serverInfo: { name, version: '1.0.0' } },
  });
}
