// The internal hop between a cluster's replicas: POST /cluster/servers/NAME/mcp reaches server
// NAME on this replica (one it runs for the cluster, placement "one"), as 2026-07-28 requests
// with no session. Only a replica may use it: the bearer token is the cluster's own (derived
// from MCPMUX_STATE_KEY), not the clients', and the Host and Origin checks of the client door
// do not apply (replicas reach each other by address).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';
import {
  toNodeHandler,
  type NodeIncomingMessageLike,
  type NodeMcpRequestHandler,
} from '@modelcontextprotocol/node';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { CatalogKind } from '../protocol/capabilities.js';
import { readMessages, reply } from './http-bodies.js';

const HOP_PATH = /^\/cluster\/servers\/([A-Za-z0-9_-]{1,128})\/mcp$/;

export interface HopOptions {
  /** Whether `token` is the cluster's hop token. */
  accepts(token: string): boolean;
  /** Whether this replica runs `name` (the hop answers 404 for any other). */
  runs(name: string): boolean;
  /** The hop's server for `name`, undefined when this replica does not run it. */
  createServer(name: string): Server | undefined;
}

export class HopRequests {
  readonly #options: HopOptions & { maxRequestBodySize: number; logger: Logger };
  readonly #handlers = new Map<string, { handler: McpHttpHandler; serve: NodeMcpRequestHandler }>();

  constructor(options: HopOptions & { maxRequestBodySize: number; logger: Logger }) {
    this.#options = options;
  }

  /** The server a request's path names, when the path is the hop's. */
  static serverOf(url: string | undefined): string | undefined {
    return HOP_PATH.exec((url ?? '/').split('?')[0]!)?.[1];
  }

  /** Answers a request of the hop; `track` counts it in flight (a drain waits for it). */
  async serve(name: string, req: IncomingMessage, res: ServerResponse, track: () => void): Promise<void> {
    track();
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined || !this.#options.accepts(token))
      return reply(res, 401, "the cluster's hop takes the replicas' own token only");
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return reply(res, 405, 'the hop takes 2026-07-28 requests (POST) only');
    }
    if (!this.#options.runs(name)) return reply(res, 404, `server '${name}' does not run on this replica`);
    const body = await readMessages(req, this.#options.maxRequestBodySize, (why) =>
      this.#options.logger.warn(why),
    );
    await this.#handlerOf(name).serve(req as NodeIncomingMessageLike, res, body);
  }

  /** The replicas forwarding to a server here hear that its lists changed. */
  changed(kinds: readonly CatalogKind[]): void {
    for (const { handler } of this.#handlers.values())
      for (const kind of kinds) {
        if (kind === 'tools') handler.notify.toolsChanged();
        else if (kind === 'prompts') handler.notify.promptsChanged();
        else handler.notify.resourcesChanged();
      }
  }

  #handlerOf(name: string): { handler: McpHttpHandler; serve: NodeMcpRequestHandler } {
    const known = this.#handlers.get(name);
    if (known) return known;
    const { maxRequestBodySize, logger } = this.#options;
    const onerror = (error: Error) => logger.debug(() => `cluster hop '${name}': ${messageOf(error)}`);
    const handler = createMcpHandler(
      () => {
        const server = this.#options.createServer(name);
        if (!server) throw new Error(`server '${name}' does not run on this replica`);
        return server;
      },
      { legacy: 'reject', maxRequestBodySize, onerror },
    );
    const made = { handler, serve: toNodeHandler(handler, { maxRequestBodySize, onerror }) };
    this.#handlers.set(name, made);
    return made;
  }
}
