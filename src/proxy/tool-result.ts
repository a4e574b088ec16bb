// The single place where outcomes become MCP tool results: JSON data as a text block plus
// the same object as structuredContent, and domain errors as `isError` results whose text
// tells the agent what to do next.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { isMuxError, messageOf } from '../errors.js';

export function jsonResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }], structuredContent: data };
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Domain errors (and anything unexpected) become `isError` results. A JSON-RPC error that
 * a child returned is rethrown, so the client sees exactly what the child said.
 */
export function toToolResult(error: unknown): CallToolResult {
  if (error instanceof McpError) throw error;
  if (isMuxError(error)) return errorResult(`${error.message} [${error.code}]`);
  return errorResult(`mcpmux failed unexpectedly: ${messageOf(error)}`);
}
