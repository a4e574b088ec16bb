// Requests of 2026-07-28 clients over HTTP. They open no session: each names its era in its
// _meta envelope and is answered by a server of its own (the SDK's stateless handler), and
// list changes reach the client's listen streams through the handler's notify.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  type Server,
} from '@modelcontextprotocol/server';
import {
  toNodeHandler,
  toWebRequest,
  type NodeIncomingMessageLike,
  type NodeMcpRequestHandler,
} from '@modelcontextprotocol/node';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { ListChangedMethod } from '../protocol/capabilities.js';
import { callHeaderMismatch } from '../protocol/param-headers.js';
import { listenedResources } from '../session/list-changes/resource-watch.js';
import { replyError } from './http-bodies.js';
import { boundRequestStream } from './session-backlog.js';
import type { HttpServeOptions } from './http-serve-options.js';

type ModernOptions = Pick<HttpServeOptions, 'onListen' | 'beforeSession' | 'toolInputSchema'> & {
  createRequestServer: () => Server;
  maxRequestBodySize: number;
  logger: Logger;
};

export class ModernRequests {
  readonly #options: ModernOptions;
  readonly #handler: McpHttpHandler;
  readonly #serve: NodeMcpRequestHandler;

  constructor(options: ModernOptions) {
    this.#options = options;
    const { createRequestServer, maxRequestBodySize, logger } = options;
    const onerror = (error: Error) => logger.debug(() => `HTTP (2026-07-28): ${messageOf(error)}`);
    this.#handler = createMcpHandler(() => createRequestServer(), {
      legacy: 'reject',
      maxRequestBodySize,
      onerror,
    });
    this.#serve = toNodeHandler(this.#handler, { maxRequestBodySize, onerror });
  }

  /** Whether a POST without a session id is a 2026-07-28 request (it says so in its envelope). */
  async takes(req: IncomingMessage, body: unknown): Promise<boolean> {
    // Node's IncomingMessage is what the adapter takes; only its optional fields' typing differs.
    return !(await isLegacyRequest(await toWebRequest(req as NodeIncomingMessageLike, body), body));
  }

  async serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const uris = listenedResources(body);
    if (uris.length > 0 && this.#options.onListen) {
      const watch = this.#options.onListen(uris);
      res.once('close', watch.end);
      await watch.ready;
    }
    // A 2026-07-28 client reads instructions only there (a session in its initialize answer).
    if ((body as { method?: unknown } | null)?.method === 'server/discover')
      await this.#options.beforeSession?.();
    const mismatch = callHeaderMismatch(body, req.headers, (name) => this.#options.toolInputSchema?.(name));
    if (mismatch) return replyError(res, 400, mismatch.error, mismatch.id);
    boundRequestStream(res, this.#options.logger);
    return await this.#serve(req as NodeIncomingMessageLike, res, body);
  }

  /** Tells the clients' listen streams that a list changed. */
  publish(method: ListChangedMethod): void {
    const notify = this.#handler.notify;
    if (method === 'notifications/tools/list_changed') notify.toolsChanged();
    else if (method === 'notifications/prompts/list_changed') notify.promptsChanged();
    else notify.resourcesChanged();
  }

  /** Tells the listen streams that name `uri` that it changed. */
  resourceUpdated(uri: string): void {
    this.#handler.notify.resourceUpdated(uri);
  }
}
