// The HTTP+SSE transport of MCP's 2024-11-05 revision, for clients that still speak it (the
// Vercel AI SDK's `type: 'sse'`, LangChain's and n8n's SSE clients, older IDE configs). The
// spec replaced it with streamable HTTP in 2025-03-26 and asks servers that want old clients
// to keep serving it beside the new endpoint. The SDK's v2 server packages dropped it; its
// wire is small: a GET opens an event stream whose first event names where to POST, each
// POSTed message is answered 202 at once, and everything for the client goes on the stream.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { reply } from './http-bodies.js';
import { isJsonRpcMessage } from '../protocol/json-line-reader.js';
import { serializeMessage } from '../protocol/json-serialization.js';
import { refusedRequest } from '../protocol/request-ids.js';

/** Where a legacy client opens its stream, and where it is told to post its messages. */
export const LEGACY_SSE_PATH = '/sse';
export const LEGACY_MESSAGES_PATH = '/messages';

/**
 * Whether a GET of the MCP endpoint with no session id opens an HTTP+SSE session: it asks for
 * events, as an old client given the one URL does (the spec's fallback: POST failed, so GET
 * the same URL), and says nothing only a streamable HTTP client says (the protocol version
 * header, which HTTP+SSE predates, or a stream to resume). Such a GET from a streamable
 * client is one whose session ended (the SDK's client reopens its stream with no session id
 * after DELETE): it gets 400, not a session that would hold a place for as long as it lives.
 */
export function opensLegacySession(req: IncomingMessage): boolean {
  return (
    (req.headers.accept ?? '').includes('text/event-stream') &&
    req.headers['mcp-protocol-version'] === undefined &&
    req.headers['last-event-id'] === undefined
  );
}

/** Answers 405 to a method an HTTP+SSE endpoint does not take (GET opens a stream, POST brings a message). */
export function refusedLegacyMethod(
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
  mcpPath: string,
): boolean {
  const [allow, use] =
    url.pathname === LEGACY_SSE_PATH
      ? ['GET', `open an HTTP+SSE session with GET ${LEGACY_SSE_PATH}; streamable HTTP is at ${mcpPath}`]
      : ['POST', `post messages to ${LEGACY_MESSAGES_PATH}?sessionId=…`];
  if (req.method === allow) return false;
  res.setHeader('Allow', allow);
  reply(res, 405, use);
  return true;
}

/**
 * How often a quiet stream gets an SSE comment: a reverse proxy closes a response that has
 * said nothing for a while (nginx: 60 s), which would end the session. 15 s, as the SDK's
 * streamable transport does on its streams.
 */
const KEEPALIVE_MS = 15_000;

export class LegacySseTransport implements Transport {
  readonly sessionId = randomUUID();
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #stream: ServerResponse;
  readonly #keepAliveMs: number;
  #keepAlive: NodeJS.Timeout | undefined;
  #closed = false;

  /** `stream` is the response to the client's GET: the session lives as long as it does. */
  constructor(stream: ServerResponse, { keepAliveMs = KEEPALIVE_MS } = {}) {
    this.#stream = stream;
    this.#keepAliveMs = keepAliveMs;
  }

  async start(): Promise<void> {
    this.#stream.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    // A path, not a URL: the client resolves it against the stream's, through any reverse proxy.
    this.#stream.write(`event: endpoint\ndata: ${LEGACY_MESSAGES_PATH}?sessionId=${this.sessionId}\n\n`);
    this.#stream.once('close', () => this.#ended());
    this.#keepAlive = setInterval(() => this.#stream.write(': keepalive\n\n'), this.#keepAliveMs).unref();
  }

  /**
   * A POSTed body: one message or a batch of them, each handed over on its own. Returns
   * what is wrong with it, for a 400, or undefined when it was taken.
   */
  receive(body: unknown): string | undefined {
    if (this.#closed) return 'the session has ended; open a new one with GET ' + LEGACY_SSE_PATH;
    const messages = Array.isArray(body) ? body : [body];
    if (messages.length === 0 || !messages.every(isJsonRpcMessage))
      return 'the body is not a JSON-RPC 2.0 message (nor a batch of them)';
    for (const message of messages) {
      const refusal = refusedRequest(message);
      if (refusal) void this.send(refusal.answer).catch(() => {});
      else this.onmessage?.(message);
    }
    return undefined;
  }

  // Every message goes on the one stream: the old transport has no per-request streams, so
  // relatedRequestId has nowhere else to send it.
  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.#closed) throw new Error('the SSE stream is closed');
    this.#stream.write(`event: message\ndata: ${serializeMessage(message)}\n\n`);
  }

  async close(): Promise<void> {
    this.#stream.end();
    this.#ended();
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.onclose?.();
  }
}
