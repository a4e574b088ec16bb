// The single place where outcomes become MCP answers: tool results (JSON data as a text
// block plus the same object as structuredContent; domain errors as `isError` results whose
// text tells the agent what to do next) and JSON-RPC errors for every other request.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { WireError, isMuxError, messageOf, relayedError } from '../common/errors.js';
import { scrubSecrets, scrubbedCopy } from '../secrets/secret-scrubber.js';

/** mcpmux's own result, scrubbed of the secrets it holds (a child's results are relayed as they are). */
export function jsonResult(data: Record<string, unknown>): CallToolResult {
  const shown = scrubbedCopy(data);
  return { content: [{ type: 'text', text: JSON.stringify(shown, null, 2) }], structuredContent: shown };
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: scrubSecrets(message) }], isError: true };
}

/**
 * Domain errors (and anything unexpected) become `isError` results. A JSON-RPC error that
 * a child returned is rethrown, so the client sees exactly what the child said, and so is
 * one of mcpmux's own about the request itself (a requestState that is not this call's).
 */
export function toToolResult(error: unknown): CallToolResult {
  if (error instanceof ProtocolError) throw relayedError(error);
  if (error instanceof WireError) throw error;
  if (isMuxError(error)) return errorResult(`${error.message} [${error.code}]`);
  return errorResult(`mcpmux failed unexpectedly: ${messageOf(error)}`);
}

/**
 * For requests other than tools/call, which answer with JSON-RPC errors: a domain error
 * becomes a JSON-RPC error (resource not found is -32002 as the spec says; anything the caller
 * named wrongly is invalid params), and a child's own JSON-RPC error passes unchanged.
 */
export function toJsonRpcError(error: unknown): WireError {
  if (error instanceof ProtocolError) return relayedError(error);
  if (isMuxError(error)) {
    const code =
      error.code === 'RESOURCE_NOT_FOUND'
        ? RESOURCE_NOT_FOUND
        : error.code.endsWith('_NOT_FOUND')
          ? ProtocolErrorCode.InvalidParams
          : ProtocolErrorCode.InternalError;
    return new WireError(code, scrubSecrets(`${error.message} [${error.code}]`));
  }
  return new WireError(
    ProtocolErrorCode.InternalError,
    scrubSecrets(`mcpmux failed unexpectedly: ${messageOf(error)}`),
  );
}

/** The MCP spec's code for an unknown resource. */
const RESOURCE_NOT_FOUND = -32002;
