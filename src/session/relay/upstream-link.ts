// What children send to the one client: requests (sampling, elicitation, roots) go up and
// their answers come back; log messages go up with the server's name in `logger` (to a
// 2026-07-28 client only through its requests that asked: request-logs.ts); resource
// updates go up under the URI the client knows, and the end of a URL-mode elicitation to the
// client that was asked (url-elicitations.ts). It also tells each child what the client can
// do, and has a new child brought up to date (log level, subscriptions) before it is used.
import type { Era } from '../../protocol/era.js';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Server, ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/server';
import type {
  ChildUpstream,
  InputOrigin,
  JSONRPCRequestLike,
  NotifyClient,
  StartedChild,
  StopReason,
} from '../../child/child-types.js';
import { asServerLog, logToRequests, moreVerbose } from '../../child/requests/request-logs.js';
import { MuxError, WireError, messageOf, relayedError } from '../../common/errors.js';
import type { Logger } from '../../common/log.js';
import type { CatalogRouter } from '../../router/catalog-router.js';
import type { Children } from '../../children/children.js';
import { UncheckedResult } from '../../protocol/answer-shape.js';
import { ChildTaskTable } from '../tasks/child-tasks.js';
import type { ClientSettings } from '../client-settings.js';
import { UrlElicitations, elicitationsRequired } from './url-elicitations.js';

interface Attachment {
  /** A session's own server; a listen stream has none (it only hears resource updates). */
  server?: Server;
  /** A 2026-07-28 client declares what it can do on each request, not once. */
  era: Era;
  children: Children;
  settings: ClientSettings;
  /** Where its notifications go (a session and its listen streams share one: an update goes out once). */
  deliver: NotifyClient;
  /** Until a 2025 client has said `notifications/initialized`: when it does. Undefined once it has. */
  initializing?: () => Promise<void> | undefined;
}

/** Which client capability a child's request needs. */
const NEEDS: Readonly<Record<string, keyof ClientCapabilities>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** Longest a server's question waits for a client to say initialized before it is asked anyway. */
const INITIALIZED_WAIT_MS = 10_000;

/** Everything a child may ask of a client through mcpmux. */
const RELAYABLE: ClientCapabilities = Object.freeze({
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
});

export class UpstreamLink implements ChildUpstream {
  /** Children's tasks that clients created, every session's (child-tasks.ts). */
  readonly childTasks = new ChildTaskTable();
  readonly #router: CatalogRouter;
  readonly #log: Logger;
  /** Connected clients, most recent last: one over stdio, any number over HTTP. */
  readonly #attached: Attachment[] = [];

  readonly #declareRelayable: boolean;
  /** Children speak the one client's era when it is 2025 (ChildUpstream.childEra). */
  readonly #followClientEra: boolean;
  readonly #elicitations = new UrlElicitations();
  /**
   * 2025 sessions ever attached: with only one, every notice is its client's. (A 2026-07-28
   * session, such as the one an auto-negotiating client's discover opens on stdio before its
   * initialize replaces it, hears no such notice.)
   */
  #sessionsServed = 0;
  /**
   * What a 2026-07-28 client on stdio declared in its requests so far (their union): it
   * says what it can do on each request, and a 2025 child must be told once, at its start.
   */
  #declaredPerRequest: ClientCapabilities | undefined;
  #clientAwaited: () => void = () => {};
  /**
   * Settles when a server's request first waits for a client's initialization. A client's
   * initialize answer, held while the servers given at start start, then goes out at once:
   * held on, it would wait for a server that waits for it.
   */
  readonly clientAwaited = new Promise<void>((resolve) => (this.#clientAwaited = resolve));

  /**
   * `declareRelayable`: tell every child that the client side can sample, elicit and list
   * roots, whoever is connected now. Over HTTP clients come and go (a configured server
   * starts before any), so a child learns what mcpmux can relay; a request that no
   * connected client declared is answered with an error that says so. Default false: a
   * child is told what the connected client(s) declared.
   */
  constructor(options: {
    router: CatalogRouter;
    logger: Logger;
    declareRelayable?: boolean;
    /** One client (stdio): children that speak both eras are spoken to in its era when it is 2025. */
    followClientEra?: boolean;
  }) {
    this.#router = options.router;
    this.#log = options.logger;
    this.#declareRelayable = options.declareRelayable ?? false;
    this.#followClientEra = options.followClientEra ?? false;
  }

  /**
   * Connects a client's server (the children are built before it, so this comes later), or a
   * 2026-07-28 client's listen stream for resource updates; returns the detach.
   */
  attach(attachment: Attachment): () => void {
    this.#attached.push(attachment);
    if (attachment.server && attachment.era === 'legacy') this.#sessionsServed++;
    return () => {
      const at = this.#attached.indexOf(attachment);
      if (at === -1) return;
      this.#attached.splice(at, 1);
      // What the session held at the children is given back (unless another session holds it
      // too), and its tasks there end with it.
      attachment.settings.release();
      if (attachment.server) this.childTasks.release(attachment.deliver);
    };
  }

  childEra(): 'legacy' | undefined {
    if (!this.#followClientEra) return undefined;
    return this.#attached.findLast((a) => a.server)?.era === 'legacy' ? 'legacy' : undefined;
  }

  sessionLogLevel(): LoggingLevel | undefined {
    let level: LoggingLevel | undefined;
    for (const { server, era, settings } of this.#attached)
      if (server && era === 'legacy') level = moreVerbose(level, settings.level ?? 'debug');
    return level;
  }

  /** The settings of every connected session, for sessions to see what the others hold. */
  sessionSettings(): readonly ClientSettings[] {
    return this.#attached.map((a) => a.settings);
  }

  /**
   * What a child is told the client can do. With several clients (HTTP), what any of them
   * can do: a request goes to one that declared it.
   */
  clientCapabilities(): ClientCapabilities {
    if (this.#declareRelayable) return RELAYABLE;
    const modern = this.#attached.some((a) => a.era === 'modern');
    // A 2026-07-28 client that has not said yet what it can do: each of its requests is checked then.
    if (modern && this.#declaredPerRequest === undefined) return RELAYABLE;
    const merged: ClientCapabilities = { ...(modern && this.#declaredPerRequest) };
    for (const { server, era } of this.#attached)
      if (era === 'legacy') Object.assign(merged, server?.getClientCapabilities() ?? {});
    return merged;
  }

  /**
   * A 2026-07-28 stdio client's request declared `capabilities` (seen as it arrives, before
   * it is handled, so that the servers it starts are told): children started from now on are
   * told what it declared, as a 2025 client's are, rather than all mcpmux can relay, and so
   * list the same tools as they would to it directly.
   */
  declaredInRequest(capabilities: ClientCapabilities): void {
    this.#declaredPerRequest = { ...this.#declaredPerRequest, ...capabilities };
  }

  async request(
    server: string,
    request: JSONRPCRequestLike,
    signal: AbortSignal,
    origin?: InputOrigin,
  ): Promise<Record<string, unknown>> {
    const need = NEEDS[request.method];
    // A task's question names mcpmux's id for the task, and goes to the session whose task it is.
    const { message: asked, owner } = this.childTasks.related(server, request);
    if (origin) {
      // During a call: the client that made it answers, in its own era.
      // Answered as a client without the capability answers (method not found), saying why.
      if (need !== undefined && !origin.capabilities?.[need])
        throw new WireError(
          ProtocolErrorCode.MethodNotFound,
          `the client calling server '${server}' did not declare the '${need}' capability, so mcpmux cannot forward ${request.method} to it`,
        );
      this.#log.debug(() => `[${server}] ${request.method} → the calling client`);
      this.#elicitations.asked(server, asked, origin.notify?.bind(origin));
      return this.#relayed(() => origin.ask(asked, signal));
    }
    // Outside any call: the most recently connected client that can answer it, one whose
    // initialization is done first.
    const able = [...this.#attached]
      .reverse()
      .filter(
        (a) =>
          a.server &&
          (owner === undefined || a.deliver === owner) &&
          (need === undefined || a.server.getClientCapabilities()?.[need]),
      );
    const target = able.find((a) => !a.initializing?.()) ?? able[0];
    const upstream = target?.server;
    if (!upstream)
      throw new MuxError(
        'NOT_SUPPORTED',
        `no client connected to mcpmux can answer ${request.method} from server '${server}'`,
      );
    // MCP's lifecycle: a client is asked nothing before its initialization is done. A server
    // that asks while mcpmux starts (a client's initialize answer held for it) waits for that;
    // a client that never says initialized (some do not) is asked all the same, later.
    const initializing = target.initializing?.();
    if (initializing) {
      this.#log.debug(() => `[${server}] ${request.method} waits for the client's initialization`);
      this.#clientAwaited();
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, INITIALIZED_WAIT_MS)));
      await untilAborted(Promise.race([initializing, bound]), signal).finally(() => clearTimeout(timer));
    }
    this.#log.debug(() => `[${server}] ${request.method} → client`);
    this.#elicitations.asked(server, asked, target.deliver);
    return this.#relayed(() =>
      upstream.request(
        { method: asked.method, ...(asked.params && { params: asked.params }) },
        UncheckedResult,
        { signal },
      ),
    );
  }

  /** The client's refusal goes back to the child as the client said it. */
  async #relayed(ask: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
    try {
      return await ask();
    } catch (error) {
      throw error instanceof ProtocolError ? relayedError(error) : error;
    }
  }

  /** A call's -32042 error named URL elicitations: their ends go to the client whose call it answered. */
  elicitationsRequired(server: string, error: unknown, notify: NotifyClient | undefined): void {
    for (const params of elicitationsRequired(error))
      this.#elicitations.asked(server, { method: 'elicitation/create', params }, notify);
  }

  notify(server: string, notification: JSONRPCRequestLike, callers: readonly InputOrigin[] = []): void {
    if (notification.method === 'notifications/elicitation/complete')
      return this.#elicitationCompleted(server, notification);
    if (notification.method === 'notifications/tasks/status')
      return this.childTasks.status(server, notification);
    // A task's log line names mcpmux's id for the task, and goes only to the session whose task it is.
    const { message, owner } = this.childTasks.related(server, notification);
    // Listen streams of one client share a delivery: an update goes out once, the SDK copies it to each stream.
    const delivered = new Set<NotifyClient>();
    for (const attached of this.#attached) {
      if (owner !== undefined && attached.deliver !== owner) continue;
      const forwarded = this.#forOne(attached, server, message);
      const { deliver } = attached;
      if (!forwarded || delivered.has(deliver)) continue;
      delivered.add(deliver);
      deliver(forwarded).catch((error: unknown) => {
        this.#log.debug(() => `[${server}] ${notification.method} not relayed: ${messageOf(error)}`);
      });
    }
    // A 2026-07-28 client hears a log message only through a request of its that asked for it.
    if (message.method === 'notifications/message')
      logToRequests(server, message, callers, (error) =>
        this.#log.debug(() => `[${server}] ${notification.method} not relayed: ${messageOf(error)}`),
      );
  }

  /** Only to the client that was asked (MCP's rule), or to the only one there has been. */
  #elicitationCompleted(server: string, notification: JSONRPCRequestLike): void {
    const tell = this.#elicitations.completed(server, notification) ?? this.#onlyClient();
    if (!tell)
      return this.#log.debug(
        () => `[${server}] ${notification.method} not relayed: no client is known to have been asked`,
      );
    tell({ method: notification.method, ...(notification.params && { params: notification.params }) }).catch(
      (error: unknown) =>
        this.#log.debug(() => `[${server}] ${notification.method} not relayed: ${messageOf(error)}`),
    );
  }

  #onlyClient(): NotifyClient | undefined {
    if (this.#sessionsServed !== 1) return undefined;
    return this.#attached.find((a) => a.server && a.era === 'legacy')?.deliver;
  }

  /** The notification as this client gets it, or undefined when it is not for it. */
  #forOne(
    attached: Attachment,
    server: string,
    notification: JSONRPCRequestLike,
  ): JSONRPCRequestLike | undefined {
    const params = notification.params ?? {};
    if (notification.method === 'notifications/message') {
      // Children log at the most verbose level any session asked for; each session gets its own.
      // A 2026-07-28 client has no session level: its requests ask (request-logs.ts).
      if (!attached.server || attached.era === 'modern' || !attached.settings.wants(params['level']))
        return undefined;
      return asServerLog(server, notification);
    }
    if (notification.method === 'notifications/resources/updated' && typeof params['uri'] === 'string') {
      // Only clients subscribed to the resource hear of it.
      if (!attached.settings.holds(server, params['uri'])) return undefined;
      return {
        method: notification.method,
        params: {
          ...params,
          uri: this.#router.exposedUri(attached.children.snapshot, server, params['uri']),
        },
      };
    }
    return undefined;
  }

  async started(server: string, connection: StartedChild): Promise<void> {
    for (const attached of this.#attached) await attached.settings.apply(server, connection);
  }

  ended(server: string, reason: 'crashed' | StopReason): void {
    this.#elicitations.forget(server);
    const told = new Map<NotifyClient, Set<string>>();
    for (const attached of this.#attached) {
      if (reason === 'removed') attached.settings.forget(server);
      if (reason !== 'crashed') continue;
      // A subscribed resource of a crashed server is gone: say so, so the client re-reads and learns why.
      const { deliver } = attached;
      const uris = told.get(deliver) ?? new Set<string>();
      told.set(deliver, uris);
      for (const uri of attached.settings.subscribedUris(server)) {
        if (uris.has(uri)) continue;
        uris.add(uri);
        deliver({ method: 'notifications/resources/updated', params: { uri } }).catch((error: unknown) => {
          this.#log.debug(() => `[${server}] resources/updated for ${uri} not sent: ${messageOf(error)}`);
        });
      }
    }
  }
}

/** `work`, or the abort's reason as a rejection once `signal` aborts first. */
async function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  let stop: () => void = () => {};
  try {
    await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        stop = () => reject(signal.reason);
        signal.addEventListener('abort', stop, { once: true });
      }),
    ]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
