// What an HTTP request brings (a JSON body, read up to a bound; MCP messages, with their
// malformed answers replaced) and the error bodies that go back: a JSON-RPC error, which MCP
// clients know how to show, for every status mcpmux refuses with.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { messageOf } from '../common/errors.js';
import { wellFormedAnswers } from '../protocol/answer-shape.js';
import { PARSE_ERROR } from '../protocol/json-line-reader.js';

/** A body refused before it reached MCP: too large (413) or not JSON (400, JSON-RPC's parse error). */
export class BodyError extends Error {
  readonly status: 400 | 413;
  readonly code: number;

  constructor(message: string, status: 400 | 413, code = status === 400 ? PARSE_ERROR : -32000) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const tooLarge = () =>
    new BodyError(`request body over ${maxBytes} bytes, the limit (--max-message-bytes)`, 413);
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new BodyError(`request body is not JSON: ${messageOf(error)}`, 400);
  }
}

/**
 * A POSTed body of MCP messages: readJson's, with the client's malformed answers (to a
 * server's question) replaced by the error that stands for each, told to `log`, so that the
 * question fails at once (the SDK refused the whole body with 400, and the question waited).
 */
export async function readMessages(
  req: IncomingMessage,
  maxBytes: number,
  log: (why: string) => void,
): Promise<unknown> {
  return wellFormedAnswers(await readJson(req, maxBytes), 'the client', log);
}

/** A JSON-RPC error body, which MCP clients know how to show. */
export function reply(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  replyError(res, status, { code: -32000, message }, null, headers);
}

/** The answer to a request that failed before MCP could have it: a BodyError as it says, else 500. */
export function replyFailure(res: ServerResponse, error: unknown): void {
  if (!(error instanceof BodyError)) return reply(res, 500, messageOf(error));
  // Its body may be left unread (past the bound): the connection cannot carry another request.
  replyError(res, error.status, { code: error.code, message: error.message }, null, { Connection: 'close' });
}

/** A JSON-RPC error answering the request `id` (null when it is not known). */
export function replyError(
  res: ServerResponse,
  status: number,
  error: { code: number; message: string; data?: unknown },
  id: string | number | null,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id }));
}

/** What a request refused while draining is told to wait before it tries again (another instance, or this one's successor). */
const DRAIN_RETRY_AFTER_SECONDS = 5;

/** 503 with when to try again: mcpmux drains (SIGTERM), or a replica has not joined its cluster yet. */
export function replyUnavailable(res: ServerResponse, draining: boolean): void {
  res.setHeader('Retry-After', draining ? String(DRAIN_RETRY_AFTER_SECONDS) : '1');
  if (draining) res.setHeader('Connection', 'close');
  reply(
    res,
    503,
    draining
      ? 'mcpmux is shutting down; try again (another instance, or after its restart)'
      : "this replica has not read its cluster's set of servers yet; try again (another replica, or this one in a moment)",
  );
}
