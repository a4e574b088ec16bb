// What one client session asked of its servers that must outlive any one child process:
// the logging level (logging/setLevel) and resource subscriptions (resources/subscribe). A
// change is fanned out to the children it concerns at once, and a child that starts later
// (added, reloaded) is brought up to date before its tools are announced. Several sessions
// (HTTP) share the children: a child logs at the most verbose level any session asked for
// (each session gets only what it asked for), holds a subscription while any session does,
// and what a session held is given back when it ends.
import type { Server, LoggingLevel } from '@modelcontextprotocol/server';
import type { ChildConnection } from '../child/child-connection.js';
import type { StartedChild } from '../child/child-types.js';
import { atOrAbove, moreVerbose } from '../child/requests/request-logs.js';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import { type Children } from '../children/children.js';
import { runningServers } from '../children/children-snapshot.js';
import { toJsonRpcError } from './results.js';

export interface ClientSettingsOptions {
  children: Children;
  router: CatalogRouter;
  logger: Logger;
  /** The settings of the other sessions that share the children. Default: none. */
  peers?: () => readonly ClientSettings[];
}

export class ClientSettings {
  readonly #options: ClientSettingsOptions;
  #level: LoggingLevel | undefined;
  /** Subscriptions per server: the URI as the child knows it → as the client subscribed it. */
  readonly #subscriptions = new Map<string, Map<string, string>>();

  constructor(options: ClientSettingsOptions) {
    this.#options = options;
  }

  /** Takes over logging/setLevel and resources/(un)subscribe on the client's server. */
  install(server: Server): void {
    server.setRequestHandler('logging/setLevel', async (request) => {
      this.#level = request.params.level;
      await this.#applyLevelToAll();
      return {};
    });
    server.setRequestHandler('resources/subscribe', async (request, ctx) => {
      await this.subscribe(request.params.uri, ctx.mcpReq.signal);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', async (request, ctx) => {
      await this.unsubscribe(request.params.uri, ctx.mcpReq.signal);
      return {};
    });
  }

  /** Subscribes this client to a resource (by the URI it knows) at the child that has it. */
  async subscribe(uri: string, signal?: AbortSignal): Promise<void> {
    try {
      const target = this.#options.router.resolveResource(this.#options.children.snapshot, uri);
      await target.connection.subscribeResource(target.uri, signal);
      this.#subscriptions.set(
        target.server,
        (this.#subscriptions.get(target.server) ?? new Map()).set(target.uri, uri),
      );
    } catch (error) {
      throw toJsonRpcError(error);
    }
  }

  async unsubscribe(uri: string, signal?: AbortSignal): Promise<void> {
    try {
      const target = this.#options.router.resolveResource(this.#options.children.snapshot, uri);
      this.#subscriptions.get(target.server)?.delete(target.uri);
      // Another session still subscribed keeps the child's subscription.
      if (
        target.connection.state.kind === 'running' &&
        !this.#peers().some((p) => p.holds(target.server, target.uri))
      )
        await target.connection.unsubscribeResource(target.uri, signal);
    } catch (error) {
      throw toJsonRpcError(error);
    }
  }

  /** Brings a newly started child up to date: the log level, and the subscriptions this session had. */
  async apply(server: string, connection: StartedChild): Promise<void> {
    const capabilities = connection.capabilities;
    if (this.#level !== undefined && capabilities?.logging)
      await this.#applyLevel(connection, this.#sharedLevel()!);
    const uris = this.#subscriptions.get(server);
    if (uris && capabilities?.resources?.subscribe) {
      await Promise.all([...uris.keys()].map((uri) => connection.subscribeResource(uri)));
    }
  }

  /** URIs of `server` the client is subscribed to, as the client subscribed them. */
  subscribedUris(server: string): readonly string[] {
    return [...(this.#subscriptions.get(server)?.values() ?? [])];
  }

  /** Whether this session is subscribed to `uri` (as the child knows it) of `server`. */
  holds(server: string, uri: string): boolean {
    return this.#subscriptions.get(server)?.has(uri) ?? false;
  }

  /** Whether this session wants a log message of this level (it gets all when it set none). */
  wants(level: unknown): boolean {
    return this.#level === undefined || atOrAbove(level, this.#level);
  }

  get level(): LoggingLevel | undefined {
    return this.#level;
  }

  /** A server was removed: its subscriptions end with it. */
  forget(server: string): void {
    this.#subscriptions.delete(server);
  }

  /**
   * The session ended: subscriptions no other session holds are ended at the children, and
   * children log at the level the remaining sessions asked for (MCP has no way to unset one).
   */
  release(): void {
    const peers = this.#peers();
    for (const [server, uris] of this.#subscriptions) {
      const connection = this.#options.children.snapshot.servers.get(server)?.connection;
      if (!connection || connection.state.kind !== 'running') continue;
      for (const uri of uris.keys()) {
        if (peers.some((p) => p.holds(server, uri))) continue;
        connection.unsubscribeResource(uri).catch((error: unknown) => {
          this.#options.logger.debug(
            () => `[${server}] resources/unsubscribe ${uri} after the session ended: ${messageOf(error)}`,
          );
        });
      }
    }
    this.#subscriptions.clear();
    const before = this.#sharedLevel();
    this.#level = undefined;
    if (before !== undefined && this.#sharedLevel() !== undefined && this.#sharedLevel() !== before)
      void this.#applyLevelToAll();
  }

  /** The level children log at: the most verbose any session asked for. */
  #sharedLevel(): LoggingLevel | undefined {
    return this.#peers().reduce((level, peer) => moreVerbose(level, peer.level), this.#level);
  }

  async #applyLevelToAll(): Promise<void> {
    const level = this.#sharedLevel();
    if (level === undefined) return;
    await Promise.all(
      this.#running()
        .filter((c) => c.capabilities?.logging)
        .map((c) => this.#applyLevel(c, level)),
    );
  }

  async #applyLevel(connection: StartedChild, level: LoggingLevel): Promise<void> {
    try {
      await connection.setLogLevel(level);
    } catch (error) {
      this.#options.logger.warn(`[${connection.name}] logging/setLevel ${level} failed: ${messageOf(error)}`);
    }
  }

  #peers(): readonly ClientSettings[] {
    return (this.#options.peers?.() ?? []).filter((p) => p !== this);
  }

  #running(): ChildConnection[] {
    return runningServers(this.#options.children.snapshot).map((view) => view.connection);
  }
}
