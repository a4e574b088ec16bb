// Domain errors of mcpmux. Codes are strings on purpose: the MCP SDK copies a numeric
// `code` of a thrown error onto the wire as a JSON-RPC error code, while these must
// become `isError` tool results (see proxy/to-tool-result.ts).

export type MuxErrorCode =
  | 'INVALID_ARGUMENTS'
  | 'INVALID_NAME'
  | 'NAME_TAKEN'
  | 'SERVER_NOT_FOUND'
  | 'SERVER_BUSY'
  | 'SPAWN_FAILED'
  | 'STARTUP_FAILED'
  | 'STARTUP_TIMEOUT'
  | 'SERVER_CRASHED'
  | 'SERVER_STOPPED'
  | 'TOOL_NOT_FOUND'
  | 'PROMPT_NOT_FOUND'
  | 'RESOURCE_NOT_FOUND'
  | 'TOOL_NAME_COLLISION'
  | 'NOT_SUPPORTED'
  | 'CALL_TIMEOUT'
  | 'CHILD_ERROR';

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
