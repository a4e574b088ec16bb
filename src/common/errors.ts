// Domain errors of mcpmux. Codes are strings on purpose: the MCP SDK copies a numeric
// `code` of a thrown error onto the wire as a JSON-RPC error code, while these must
// become `isError` tool results (see session/results.ts).

export type MuxErrorCode =
  | 'INVALID_ARGUMENTS'
  | 'INVALID_NAME'
  | 'NAME_TAKEN'
  | 'SERVER_NOT_FOUND'
  | 'SERVER_BUSY'
  | 'SPAWN_FAILED'
  | 'STARTUP_FAILED'
  | 'STARTUP_TIMEOUT'
  | 'PROTOCOL_MISMATCH'
  | 'SERVER_CRASHED'
  | 'SERVER_STOPPED'
  | 'TOOL_NOT_FOUND'
  /** The server is held until a person approves its text (added from strangers' code, or a hard flag). */
  | 'SERVER_HELD'
  /** The item changed since a person approved it, and waits for them to approve the change. */
  | 'TOOL_CHANGED'
  /** The item is new since the server was approved, and waits for a person. */
  | 'TOOL_PENDING'
  | 'PROMPT_NOT_FOUND'
  | 'RESOURCE_NOT_FOUND'
  | 'TOOL_NAME_COLLISION'
  | 'NOT_SUPPORTED'
  | 'NOT_ALLOWED'
  | 'PERSIST_FAILED'
  | 'BUILD_FAILED'
  | 'RESULT_NOT_FOUND'
  | 'CALL_TIMEOUT'
  | 'CALL_CANCELLED'
  | 'CHILD_ERROR'
  | 'CODE_SYNTAX'
  | 'CODE_BUSY'
  | 'CODE_FAILED'
  /** A config's server refers to a variable that is not set, or a secret not kept: it waits for it. */
  | 'NEEDS_CONFIG'
  /** A remote server wants a sign-in that has not happened (yet). */
  | 'AUTH_REQUIRED'
  /** Signing in to a remote server failed. */
  | 'AUTH_FAILED'
  /** No agent run, in memory or on disk, has that id. */
  | 'AGENT_NOT_FOUND'
  /** As many background agents run as --agent-concurrency allows, or that agent is still running. */
  | 'AGENT_BUSY'
  /** The agent tool has no model: the client cannot sample and no API provider is configured. */
  | 'NO_MODEL'
  /** No configured MCP registry lists that entry (at that version). */
  | 'ENTRY_NOT_FOUND'
  /** No configured MCP registry could be read, and none is kept. */
  | 'REGISTRY_UNREACHABLE'
  /** A registry entry needs a secret only the person may give, and they could not be asked. */
  | 'SECRET_REQUIRED'
  /** The person declined (or dismissed) what they were asked. */
  | 'DECLINED'
  /** A folder or file that holds secrets or tokens could be read or replaced by someone else. */
  | 'UNSAFE_FILE'
  /** A server asked for the OS sandbox, which cannot be had here (what is missing is named). */
  | 'SANDBOX_UNAVAILABLE'
  /** The cluster's Redis cannot be reached: the set of servers cannot change until it is back. */
  | 'CLUSTER_UNAVAILABLE';

export class MuxError extends Error {
  override readonly name = 'MuxError';
  readonly code: MuxErrorCode;

  constructor(code: MuxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export const isMuxError = (error: unknown): error is MuxError => error instanceof MuxError;

/** The message of anything thrown, for logs and error results. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The same, in words for a stack overflow: JSON.stringify and schema checks recurse, JSON.parse does not. */
export function unhandledReason(error: unknown): string {
  return error instanceof RangeError && /call stack/i.test(error.message)
    ? 'it is nested too deeply (a JSON value deeper than mcpmux can handle)'
    : messageOf(error);
}

/** JSON-RPC's code for an error inside the receiver. */
export const INTERNAL_ERROR = -32603;

/**
 * A JSON-RPC error to answer a request with. The SDK puts a thrown error's numeric `code`,
 * `message` and `data` on the wire as they are; its own McpError would not do, because its
 * message already carries "MCP error <code>: ", which the receiving SDK adds once more.
 */
export class WireError extends Error {
  override readonly name = 'WireError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** A JSON-RPC error received from a child, to pass on unchanged: same code, message and data. */
export function relayedError(error: { code: number; message: string; data?: unknown }): WireError {
  let message = error.message;
  // Each SDK hop prefixed it once; the original text is what the client should read.
  const prefix = `MCP error ${error.code}: `;
  while (message.startsWith(prefix)) message = message.slice(prefix.length);
  return new WireError(error.code, message, error.data);
}
