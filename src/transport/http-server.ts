// mcpmux for clients that connect by URL: streamable HTTP at /mcp. Each client gets its own
// session (its own MCP server object, with the SDK's transport); all sessions share the same
// children, so a server added by one is there for all, and every session hears list_changed.
// Every request passes the guard (Host, Origin, bearer token) before anything else; sessions
// are capped, and one left idle is closed with everything it held.
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { isInitializeRequest, type Transport } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { messageOf } from '../common/errors.js';
import type { CatalogKind, ListChangedMethod } from '../protocol/capabilities.js';
import { readMessages, reply, replyError, replyFailure, replyUnavailable } from './http-bodies.js';
import { HttpGuard } from './http-guard.js';
import { malformedInitialize } from '../protocol/initialize-check.js';
import { SessionTable } from './http-sessions.js';
import {
  LEGACY_MESSAGES_PATH,
  LEGACY_SSE_PATH,
  LegacySseTransport,
  opensLegacySession,
  refusedLegacyMethod,
} from './legacy-sse.js';
import { boundSessionBacklog, type SessionBacklog } from './session-backlog.js';
import { sendOnlyWritableAnswers, wireSession, type HttpSession } from './session-wiring.js';
import type { HttpServeOptions } from './http-serve-options.js';
import { HopLines } from './hop-lines.js';
import { ModernRequests } from './modern-requests.js';

export const MCP_PATH = '/mcp';
/** Probes for supervisors and orchestrators: answered for any Host and without the token (they tell status only). */
const HEALTH_PATH = '/healthz';
const READY_PATH = '/readyz';
const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
const DEFAULT_MAX_SESSIONS = 100;
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
const KEEPALIVE_DELAY_MS = 60_000;

interface OpenSession {
  /** Streamable HTTP's, or the 2024-11-05 HTTP+SSE transport's for an old client. */
  transport: NodeStreamableHTTPServerTransport | LegacySseTransport;
  session: HttpSession;
  backlog: SessionBacklog;
}

export class McpHttpServer {
  readonly #options: HttpServeOptions;
  readonly #http: HttpServer;
  readonly #guard: HttpGuard;
  readonly #sessions: SessionTable<OpenSession>;
  readonly #maxSessions: number;
  readonly #maxBody: number;
  #shuttingDown = false;
  /** Since SIGTERM: new requests are refused (503), those in flight finish. */
  #draining = false;
  /** POSTs being answered now (a drain waits for them); their count, and who waits for none. */
  #inFlight = 0;
  #idle: (() => void) | undefined;
  /** What a request a closing session leaves unanswered is told (unanswered-requests.ts). */
  readonly #closedWhy = () =>
    this.#shuttingDown ? 'mcpmux is shutting down' : 'the session ended before this request was answered';
  /** Modern requests, each without a session (legacy ones are served by the sessions above). */
  readonly #modern: ModernRequests | undefined;
  readonly #hop: HopLines | undefined;

  private constructor(options: HttpServeOptions, http: HttpServer) {
    this.#options = options;
    this.#http = http;
    this.#guard = new HttpGuard({
      bindHost: options.host,
      authToken: options.authToken,
      ...(options.allowedHosts && { allowedHosts: options.allowedHosts }),
      ...(options.allowedOrigins && { allowedOrigins: options.allowedOrigins }),
    });
    this.#maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    const maxRequestBodySize = (this.#maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    const createRequestServer = options.createRequestServer;
    if (createRequestServer)
      this.#modern = new ModernRequests({ ...options, createRequestServer, maxRequestBodySize });
    const { logger } = options;
    const idle = () => this.#idleCheck();
    if (options.hop)
      this.#hop = new HopLines({ ...options.hop, maxMessageBytes: maxRequestBodySize, logger, idle });
    this.#sessions = new SessionTable({
      idleTimeoutMs: options.sessionIdleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      maxSessions: this.#maxSessions,
      expire: (id, idleMs) => {
        options.logger.info(
          `HTTP session ${id} expired after ${Math.round(idleMs / 1000)} s without a request`,
        );
        void this.#sessions.get(id)?.transport.close();
      },
      evict: (id, { transport }, idleMs) => {
        options.logger.info(
          `HTTP session ${id} closed to make room for a new one (--max-sessions ${this.#maxSessions} reached); ` +
            `it had had no request for ${Math.round(idleMs / 1000)} s (${this.#sessions.size} open)`,
        );
        void transport.close();
      },
    });
  }

  static async listen(options: HttpServeOptions): Promise<McpHttpServer> {
    // A client gone without a word (a laptop asleep, a network cut) leaves its GET stream open
    // and its session busy, so it never expires and keeps one of the --max-sessions places.
    // TCP keepalive probes such a connection after a minute's silence and closes it once the
    // probes go unanswered (~12 min with Linux's defaults); the session's idle time runs from then.
    const http = createServer({ keepAlive: true, keepAliveInitialDelay: KEEPALIVE_DELAY_MS });
    const server = new McpHttpServer(options, http);
    http.on('request', (req, res) => void server.#handle(req, res));
    // Another replica's hop, answered while this one drains too (it runs the server until it ends).
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      HopLines.upgrade(server.#hop, req, socket, head),
    );
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

  /** Tells modern clients' listen streams that a list changed (legacy sessions hear it from their own server). */
  publish(method: ListChangedMethod): void {
    this.#modern?.publish(method);
  }

  /** Tells the replicas forwarding to servers here that their lists changed. */
  hopChanged(kinds: readonly CatalogKind[]): void {
    this.#hop?.changed(kinds);
  }

  /** Tells modern clients' listen streams that name `uri` that it changed. */
  resourceUpdated(uri: string): void {
    this.#modern?.resourceUpdated(uri);
  }

  async close(): Promise<void> {
    this.#shuttingDown = true;
    const sessions = this.#sessions.drain();
    await Promise.all(
      sessions.map(({ transport, session }) => transport.close().then(() => session.close())),
    );
    await this.#hop?.close();
    this.#http.closeAllConnections();
    await new Promise((resolve) => this.#http.close(resolve));
  }

  /**
   * Stops taking new requests (503 with Retry-After; /readyz says draining) and settles once
   * the requests in flight are answered, or after `waitMs`: what SIGTERM does before the end.
   * `minMs`: answer 503 at least this long (within `waitMs`), so that a load balancer checking
   * /readyz has taken this one out before its connections close (a request it sends on one
   * closing under it would fail at its client).
   */
  async drain(waitMs: number, minMs = 0): Promise<number> {
    this.#draining = true;
    const started = Date.now();
    const inFlight = () => this.#inFlight + (this.#hop?.openRequests ?? 0);
    if (inFlight() > 0 && waitMs > 0) {
      this.#options.logger.info(
        `draining: ${inFlight()} request(s) in flight may finish (up to ${waitMs / 1000} s)`,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.#idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const rest = Math.min(minMs, waitMs) - (Date.now() - started);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    return inFlight();
  }

  /** GET /healthz and /readyz: true when `req` was one (and is answered). */
  #probe(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '/').split('?')[0];
    const answer = (code: number, status: string) =>
      res
        .writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify({ status }));
    if (path === HEALTH_PATH) answer(200, 'ok');
    else if (path !== READY_PATH) return false;
    else if (this.#draining) answer(503, 'draining');
    else if (this.#options.ready && !this.#options.ready()) answer(503, 'starting');
    else answer(200, 'ready');
    return true;
  }

  /** A POST counted in flight until its response is done (the answer of a call, or its stream's end). */
  #track(res: ServerResponse): void {
    this.#inFlight++;
    res.once('close', () => {
      this.#inFlight--;
      this.#idleCheck();
    });
  }

  /** Tells a drain once nothing is in flight, on the client door or the cluster's hop. */
  #idleCheck(): void {
    if (this.#inFlight === 0 && (this.#hop?.openRequests ?? 0) === 0) this.#idle?.();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (this.#probe(req, res)) return;
      if (this.#draining || this.#options.joining?.()) return replyUnavailable(res, this.#draining);
      const verdict = this.#guard.check(req.headers);
      if (!verdict.ok) {
        // Before anything else: a refused request reaches no handler and opens no session.
        this.#options.logger.warn(
          `refused HTTP ${req.method} ${req.url} from ${req.socket.remoteAddress}: ${verdict.message}`,
        );
        return reply(res, verdict.status, verdict.message, verdict.headers);
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === LEGACY_SSE_PATH || url.pathname === LEGACY_MESSAGES_PATH)
        return await this.#handleLegacy(url, req, res);
      if (url.pathname !== MCP_PATH)
        return reply(
          res,
          404,
          `not found; MCP is served at ${MCP_PATH} (and ${LEGACY_SSE_PATH} for HTTP+SSE)`,
        );
      const sessionId = req.headers['mcp-session-id'];
      const found = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
      const existing = found?.transport instanceof LegacySseTransport ? undefined : found;
      if (req.method === 'POST') return await this.#handlePost(req, res, sessionId, existing);
      if (req.method === 'GET' && sessionId === undefined && opensLegacySession(req))
        return await this.#newLegacySession(req, res);
      if (req.method === 'GET' || req.method === 'DELETE') {
        if (!existing)
          return reply(res, sessionId === undefined ? 400 : 404, 'a valid mcp-session-id header is required');
        return await this.#serve(sessionId as string, existing, req, res);
      }
      res.setHeader('Allow', 'GET, POST, DELETE');
      return reply(res, 405, `method ${req.method} is not allowed`);
    } catch (error) {
      this.#options.logger.warn(`HTTP ${req.method} ${req.url}: ${messageOf(error)}`);
      if (!res.headersSent) replyFailure(res, error);
    }
  }

  /** A POST to /mcp: a modern request, a message of an open session, or an initialize that opens one. */
  async #handlePost(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string | string[] | undefined,
    existing: OpenSession | undefined,
  ): Promise<void> {
    const body = await readMessages(req, this.#maxBody, (why) => this.#options.logger.warn(why));
    // A listen stream stays open for as long as its client listens: no request to wait for.
    if ((body as { method?: unknown } | null)?.method !== 'subscriptions/listen') this.#track(res);
    if (this.#modern && sessionId === undefined && (await this.#modern.takes(req, body)))
      return await this.#modern.serve(req, res, body);
    if (existing) return await this.#serve(sessionId as string, existing, req, res, body);
    if (sessionId !== undefined)
      return reply(res, 404, 'unknown session (it was closed or expired); initialize a new one');
    if (!isInitializeRequest(body)) {
      const malformed = malformedInitialize(body);
      if (malformed) return replyError(res, 400, { code: -32602, message: malformed.message }, malformed.id);
      return reply(res, 400, 'no session: the first request must be initialize');
    }
    return await this.#newSession(req, res, body);
  }

  /** The 2024-11-05 transport's two endpoints: GET opens a session's stream, POST brings it a message. */
  async #handleLegacy(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (refusedLegacyMethod(url, req, res, MCP_PATH)) return;
    if (url.pathname === LEGACY_SSE_PATH) return await this.#newLegacySession(req, res);
    const id = url.searchParams.get('sessionId');
    const open = id === null ? undefined : this.#sessions.get(id);
    if (!(open?.transport instanceof LegacySseTransport))
      return reply(
        res,
        404,
        `unknown session (it was closed or expired); open a new one with GET ${LEGACY_SSE_PATH}`,
      );
    const done = this.#sessions.busy(id as string);
    try {
      const body = await readMessages(req, this.#maxBody, (why) => this.#options.logger.warn(why));
      const wrong = open.transport.receive(body);
      if (wrong) return reply(res, 400, wrong);
      res.writeHead(202).end('Accepted');
    } finally {
      done();
    }
  }

  /** An HTTP+SSE session: it lives as long as its GET stream, which counts as activity all along. */
  async #newLegacySession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.#sessions.reserve()) return this.#refuseSession(req, res);
    // Made once the wait is over, as a streamable session is: its stream's first event (where
    // to post) comes then, and its initialize answer carries the instructions of what runs.
    await this.#options.beforeSession?.();
    if (res.destroyed) return this.#sessions.unreserve(); // the client left while it waited
    const transport = new LegacySseTransport(res);
    const session = this.#options.createSession();
    const backlog = boundSessionBacklog(transport, this.#options.logger);
    backlog.watch(res);
    transport.onclose = () => this.#ended(transport, session);
    this.#sessions.add(transport.sessionId, { transport, session, backlog });
    res.once('close', this.#sessions.busy(transport.sessionId));
    this.#options.logger.info(`HTTP+SSE session ${transport.sessionId} opened (${this.#sessions.size} open)`);
    try {
      await session.connect(transport);
      wireSession(transport, session, this.#options.logger, this.#closedWhy);
    } catch (error) {
      this.#options.logger.warn(`HTTP+SSE session ${transport.sessionId}: ${messageOf(error)}`);
      await transport.close();
    }
  }

  /** A request of an open session; the session counts as busy until its response (or stream) closes. */
  async #serve(
    id: string,
    { transport, backlog }: OpenSession,
    req: IncomingMessage,
    res: ServerResponse,
    body?: unknown,
  ): Promise<void> {
    const done = this.#sessions.busy(id);
    res.once('close', done);
    backlog.watch(res);
    await (transport as NodeStreamableHTTPServerTransport).handleRequest(req, res, body);
  }

  async #newSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!this.#sessions.reserve()) return this.#refuseSession(req, res);
    // Made once the wait is over: its initialize answer carries the instructions of what runs then.
    await this.#options.beforeSession?.();
    const session = this.#options.createSession();
    let opened = false;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        opened = true;
        this.#sessions.add(id, { transport, session, backlog });
        this.#options.logger.info(`HTTP session ${id} opened (${this.#sessions.size} open)`);
      },
      // A DELETE ends the session at once; the SDK answers it but leaves closing to us.
      onsessionclosed: () => void transport.close(),
    });
    transport.onclose = () => this.#ended(transport, session);
    const backlog = boundSessionBacklog(transport, this.#options.logger);
    backlog.watch(res);
    try {
      await session.connect(transport);
      wireSession(transport, session, this.#options.logger, this.#closedWhy);
      sendOnlyWritableAnswers(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize the SDK refused opened no session: nothing of it may stay behind.
      if (!opened) {
        this.#sessions.unreserve();
        await transport.close();
      }
    }
  }

  #refuseSession(req: IncomingMessage, res: ServerResponse): void {
    const message = `mcpmux has ${this.#maxSessions} HTTP sessions open, its limit (--max-sessions), and none has been idle for a minute to make room; end one (DELETE) or try again later`;
    this.#options.logger.warn(`refused a new HTTP session from ${req.socket.remoteAddress}: ${message}`);
    res.setHeader('Retry-After', '60');
    reply(res, 503, message);
  }

  /** A session's transport closed: the session goes, and with it what it held. */
  #ended(transport: Transport, session: HttpSession): void {
    const id = transport.sessionId;
    if (id !== undefined && this.#sessions.remove(id))
      this.#options.logger.info(`HTTP session ${id} closed (${this.#sessions.size} open)`);
    this.#options.onSessionEnd?.();
    void session
      .close()
      .catch((error: unknown) =>
        this.#options.logger.debug(() => `closing HTTP session ${id}: ${messageOf(error)}`),
      );
  }
}
