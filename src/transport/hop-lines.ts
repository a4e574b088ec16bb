// The internal hop between a cluster's replicas. Another replica opens
// GET /cluster/servers/NAME/lines with `Upgrade: mcpmux-hop` and the cluster's bearer token
// (derived from MCPMUX_STATE_KEY, not the clients'); the connection then carries JSON-RPC
// lines both ways, on which this replica serves server NAME (one it runs for the cluster,
// placement "one") as the 2026-07-28 revision's stdio binding serves a client: each request
// with its envelope, list changes on subscriptions/listen. One connection per forwarding
// replica and server, its token checked once: a call costs a line each way, where an HTTP
// request per call cost an exchange and an SDK server built for it (docs/performance.md).
// The Host and Origin checks of the client door do not apply: replicas reach each other by address.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { CatalogKind } from '../protocol/capabilities.js';
import { StdioServerTransport } from './stdio-server-transport.js';
import { HOP_UPGRADE } from '../child/remote/hop-link.js';

const HOP_PATH = /^\/cluster\/servers\/([A-Za-z0-9_-]{1,128})\/lines$/;

export interface HopOptions {
  /** Whether `token` is the cluster's hop token. */
  accepts(token: string): boolean;
  /** Whether this replica runs `name` (the hop answers 404 for any other). */
  runs(name: string): boolean;
  /** The hop's server for `name`, undefined when this replica does not run it. */
  createServer(name: string): Server | undefined;
}

interface HopLinesOptions extends HopOptions {
  maxMessageBytes: number;
  logger: Logger;
  /** Told when a request answered leaves none open on any connection (a drain waits for that). */
  idle: () => void;
}

/** One forwarding replica's connection to one server here. */
interface HopLine {
  readonly name: string;
  readonly socket: Duplex;
  readonly transport: StdioServerTransport;
  readonly handle: StdioServerHandle;
  /** The server the connection was pinned to, once its first request came. */
  server?: Server;
}

export class HopLines {
  readonly #options: HopLinesOptions;
  readonly #open = new Set<HopLine>();

  constructor(options: HopLinesOptions) {
    this.#options = options;
  }

  /** The server a request's path names, when the path is the hop's. */
  static serverOf(url: string | undefined): string | undefined {
    return HOP_PATH.exec((url ?? '/').split('?')[0]!)?.[1];
  }

  /** Requests read on the hop and not answered yet. */
  get openRequests(): number {
    let open = 0;
    for (const line of this.#open) open += line.transport.unanswered;
    return open;
  }

  /** Takes an upgrade request: the hop's, when `hop` is this replica's; nothing else upgrades. */
  static upgrade(hop: HopLines | undefined, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const name = HopLines.serverOf(req.url);
    if (!hop || name === undefined)
      return refuseUpgrade(socket, 404, 'not found; MCP is served at /mcp, without Upgrade');
    hop.#take(name, req, socket, head);
  }

  /** An upgrade request for server `name`: refused with an HTTP answer, or served on its socket. */
  #take(name: string, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined || !this.#options.accepts(token))
      return refuseUpgrade(socket, 401, "the cluster's hop takes the replicas' own token only");
    if (req.method !== 'GET' || req.headers.upgrade?.toLowerCase() !== HOP_UPGRADE)
      return refuseUpgrade(socket, 426, `the hop is a GET with Upgrade: ${HOP_UPGRADE}`);
    if (!this.#options.runs(name))
      return refuseUpgrade(socket, 404, `server '${name}' does not run on this replica`);
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${HOP_UPGRADE}\r\nConnection: Upgrade\r\n\r\n`,
    );
    if (head.length > 0) socket.unshift(head);
    this.#serve(name, socket);
  }

  /** The replicas forwarding to a server here hear that its lists changed. */
  changed(kinds: readonly CatalogKind[]): void {
    for (const { server } of this.#open) {
      if (!server) continue;
      for (const kind of kinds) {
        const sent =
          kind === 'tools'
            ? server.sendToolListChanged()
            : kind === 'prompts'
              ? server.sendPromptListChanged()
              : server.sendResourceListChanged();
        sent.catch(() => {});
      }
    }
  }

  /** Every connection closed (mcpmux ends). */
  async close(): Promise<void> {
    await Promise.all([...this.#open].map((line) => line.handle.close().catch(() => {})));
    for (const { socket } of this.#open) socket.destroy();
    this.#open.clear();
  }

  #serve(name: string, socket: Duplex): void {
    const { logger, maxMessageBytes } = this.#options;
    const onerror = (error: Error) => logger.debug(() => `cluster hop '${name}': ${messageOf(error)}`);
    const transport = new StdioServerTransport({
      stdin: socket,
      stdout: socket,
      maxMessageBytes,
      // A replica slow to read its answers holds up its own connection, not this replica's children.
      pausesChildren: false,
      onDropped: (why) => logger.warn(`cluster hop '${name}': ${why}`),
    });
    const line: HopLine = {
      name,
      socket,
      transport,
      handle: serveStdio(
        () => {
          const server = this.#options.createServer(name);
          if (!server) throw new Error(`server '${name}' does not run on this replica`);
          line.server = server;
          return server;
        },
        { legacy: 'reject', transport: this.#answered(transport), onerror },
      ),
    };
    this.#open.add(line);
    socket.once('close', () => {
      this.#open.delete(line);
      void line.handle.close().catch(() => {});
      this.#idleCheck();
    });
    socket.on('error', onerror);
  }

  /** The transport, telling the drain when the last request open on the hop is answered. */
  #answered(transport: StdioServerTransport): StdioServerTransport {
    const send = transport.send.bind(transport);
    transport.send = (message) => {
      const sent = send(message);
      if (!('method' in message)) this.#idleCheck();
      return sent;
    };
    return transport;
  }

  #idleCheck(): void {
    if (this.openRequests === 0) this.#options.idle();
  }
}

/** An upgrade refused: a plain HTTP answer, and the connection ends. */
function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const reason = STATUS_CODES[status] ?? 'Error';
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
