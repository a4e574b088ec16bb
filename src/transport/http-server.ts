// mcpmux for clients that connect by URL: streamable HTTP at /mcp. Each client gets its own
// session (its own MCP server object, with the SDK's transport); all sessions share the one
// registry, so a server added by one is there for all, and every session hears list_changed.
// An optional bearer token guards every request; anything but loopback requires one.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** One client's session: what the HTTP server needs of an MCP server (MuxServer). */
export interface HttpSession {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

export interface HttpServeOptions {
  port: number;
  host: string;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  authToken?: string | undefined;
  createSession: () => HttpSession;
  logger: Logger;
  /** Largest request body, in bytes. Default 16 MiB. */
  maxBodyBytes?: number;
}

export const MCP_PATH = '/mcp';

export class McpHttpServer {
  readonly #options: HttpServeOptions;
  readonly #http: HttpServer;
  readonly #sessions = new Map<string, { transport: StreamableHTTPServerTransport; session: HttpSession }>();

  private constructor(options: HttpServeOptions, http: HttpServer) {
    this.#options = options;
    this.#http = http;
  }

  static async listen(options: HttpServeOptions): Promise<McpHttpServer> {
    const http = createServer();
    const server = new McpHttpServer(options, http);
    http.on('request', (req, res) => void server.#handle(req, res));
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port, options.host, () => resolve());
    });
    return server;
  }

  get url(): string {
    const { address, port } = this.#http.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    return `http://${host}:${port}${MCP_PATH}`;
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map(({ transport, session }) => transport.close().then(() => session.close())));
    this.#http.closeAllConnections();
    await new Promise((resolve) => this.#http.close(resolve));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== MCP_PATH) return reply(res, 404, `not found; MCP is served at ${MCP_PATH}`);
      if (!this.#authorized(req)) {
        res.setHeader('WWW-Authenticate', 'Bearer');
        return reply(res, 401, 'missing or wrong bearer token (Authorization: Bearer <token>)');
      }
      const sessionId = req.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
      if (req.method === 'POST') {
        const body = await readJson(req, this.#options.maxBodyBytes ?? 16 * 1024 * 1024);
        if (existing) return await existing.transport.handleRequest(req, res, body);
        if (sessionId !== undefined) return reply(res, 404, 'unknown session; initialize a new one');
        if (!isInitializeRequest(body)) return reply(res, 400, 'no session: the first request must be initialize');
        return await this.#newSession(req, res, body);
      }
      if (req.method === 'GET' || req.method === 'DELETE') {
        if (!existing) return reply(res, sessionId === undefined ? 400 : 404, 'a valid mcp-session-id header is required');
        return await existing.transport.handleRequest(req, res);
      }
      res.setHeader('Allow', 'GET, POST, DELETE');
      return reply(res, 405, `method ${req.method} is not allowed`);
    } catch (error) {
      this.#options.logger.warn(`HTTP ${req.method} ${req.url}: ${messageOf(error)}`);
      if (!res.headersSent) reply(res, error instanceof BodyError ? 400 : 500, messageOf(error));
    }
  }

  async #newSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const session = this.#options.createSession();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, session });
        this.#options.logger.info(`HTTP session ${id} opened (${this.#sessions.size} open)`);
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this.#sessions.delete(id)) this.#options.logger.info(`HTTP session ${id} closed`);
      void session.close();
    };
    await session.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  #authorized(req: IncomingMessage): boolean {
    const token = this.#options.authToken;
    if (token === undefined) return true;
    const given = Buffer.from(req.headers.authorization ?? '');
    const wanted = Buffer.from(`Bearer ${token}`);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }
}

class BodyError extends Error {}

async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new BodyError(`request body over ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new BodyError(`request body is not JSON: ${messageOf(error)}`);
  }
}

/** A JSON-RPC error body, which MCP clients know how to show. */
function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
