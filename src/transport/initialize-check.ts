// Why an initialize request is not one, said as a client author can act on it: over HTTP the
// SDK's check (isInitializeRequest) only says whether it is, and a session-less POST that is
// not gets "the first request must be initialize"; on stdio the SDK answers -32603 with zod's
// issues as raw JSON.
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
