// Why an initialize request is not one, said as a client author can act on it: over HTTP the
// SDK's check (isInitializeRequest) only says whether it is, and a session-less POST that is
// not gets "the first request must be initialize"; on a session's transport (stdio, HTTP+SSE)
// the SDK answers -32603 with zod's issues as raw JSON.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** What MCP's initialize carries (2024-11-05 to 2025-11-25), as far as a client must write it. */
const InitializeRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number().int()]),
  method: z.literal('initialize'),
  params: z.object({
    protocolVersion: z.string(),
    capabilities: z.looseObject({}),
    clientInfo: z.looseObject({ name: z.string(), version: z.string() }),
  }),
});

/** For a message that asks to initialize but is malformed: its id and what is wrong; else undefined. */
export function malformedInitialize(
  body: unknown,
): { id: string | number | null; message: string } | undefined {
  if (typeof body !== 'object' || body === null || (body as { method?: unknown }).method !== 'initialize')
    return undefined;
  const parsed = InitializeRequest.safeParse(body);
  if (parsed.success) return undefined;
  const id = (body as { id?: unknown }).id;
  return {
    id: typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null,
    message: `invalid initialize request: ${z.prettifyError(parsed.error).replace(/\n\s*/g, ' ')}`,
  };
}

/**
 * A malformed initialize request as a refusal before the SDK dispatches it (invalidRequestId's
 * shape, request-ids.ts): the Invalid Params answer under its id, and the line to log. A
 * notification, which nothing answers, is left to the SDK.
 */
export function initializeRefusal(
  message: JSONRPCMessage,
): { answer: JSONRPCMessage; why: string } | undefined {
  if (!('id' in message)) return undefined;
  const malformed = malformedInitialize(message);
  if (!malformed) return undefined;
  return {
    answer: {
      jsonrpc: '2.0',
      id: malformed.id as string | number,
      error: { code: -32602, message: malformed.message },
    },
    why: `refused the client's initialize: ${malformed.message}`,
  };
}
