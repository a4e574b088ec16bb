// What the client asked of its servers that must outlive any one child process: the
// logging level (logging/setLevel) and resource subscriptions (resources/subscribe). A
// change is fanned out to the children it concerns at once, and a child that starts later
// (added, reloaded) is brought up to date before its tools are announced.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import type { ChildConnection } from '../child/child-connection.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import { runningServers, type Registry } from '../registry/registry.js';
import { toJsonRpcError } from './results.js';

export interface ClientSettingsOptions {
  registry: Registry;
  router: CatalogRouter;
  logger: Logger;
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
    server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      this.#level = request.params.level;
      await Promise.all(this.#running().filter((c) => c.capabilities?.logging).map((c) => this.#applyLevel(c)));
      return {};
    });
    server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
      try {
        const target = this.#options.router.resolveResource(this.#options.registry.snapshot, request.params.uri);
        await target.connection.request('resources/subscribe', { uri: target.uri }, { signal: extra.signal });
        this.#subscriptions.set(target.server, (this.#subscriptions.get(target.server) ?? new Map()).set(target.uri, request.params.uri));
        return {};
      } catch (error) {
        throw toJsonRpcError(error);
      }
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
      try {
        const target = this.#options.router.resolveResource(this.#options.registry.snapshot, request.params.uri);
        this.#subscriptions.get(target.server)?.delete(target.uri);
        if (target.connection.state.kind === 'running') {
          await target.connection.request('resources/unsubscribe', { uri: target.uri }, { signal: extra.signal });
        }
        return {};
      } catch (error) {
        throw toJsonRpcError(error);
      }
    });
  }

  /** Brings a newly started child up to date: the client's log level, and the subscriptions it had. */
  async apply(server: string, connection: ChildConnection): Promise<void> {
    const capabilities = connection.capabilities;
    if (this.#level !== undefined && capabilities?.logging) await this.#applyLevel(connection);
    const uris = this.#subscriptions.get(server);
    if (uris && capabilities?.resources?.subscribe) {
      await Promise.all([...uris.keys()].map((uri) => connection.request('resources/subscribe', { uri })));
    }
  }

  /** URIs of `server` the client is subscribed to, as the client subscribed them. */
  subscribedUris(server: string): readonly string[] {
    return [...(this.#subscriptions.get(server)?.values() ?? [])];
  }

  /** A server was removed: its subscriptions end with it. */
  forget(server: string): void {
    this.#subscriptions.delete(server);
  }

  async #applyLevel(connection: ChildConnection): Promise<void> {
    try {
      await connection.request('logging/setLevel', { level: this.#level });
    } catch (error) {
      this.#options.logger.warn(`[${connection.name}] logging/setLevel ${this.#level} failed: ${messageOf(error)}`);
    }
  }

  #running(): ChildConnection[] {
    return runningServers(this.#options.registry.snapshot).map((view) => view.connection);
  }
}
