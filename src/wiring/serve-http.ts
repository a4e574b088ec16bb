// Clients by URL: a session per 2025 client, and for a modern (2026-07-28) client, whose
// requests come without a session, a server per request sharing what must outlive one (kept
// results, the search pool) and list changes published on its listen streams.
import type { HttpOptions } from '../cli/cli-options.js';
import type { StartupGate } from '../children/startup-gate.js';
import { messageOf } from '../common/errors.js';
import { exitWith } from '../process-exit.js';
import { newResultStore, type SharedResults } from '../results/result-store.js';
import { ListChangePublisher } from '../session/list-changes/list-change-publisher.js';
import { watchResources } from '../session/list-changes/resource-watch.js';
import { newActivationPool, type ExposeMode } from '../session/exposure.js';
import type { MuxServer } from '../session/mux-server.js';
import type { PerRequestState } from '../session/mux-server-options.js';
import { hopServer } from '../session/hop-server.js';
import type { Core } from './core.js';
import type { SessionFactory } from './sessions.js';

type McpHttpServer = Awaited<
  ReturnType<(typeof import('../transport/http-server.js'))['McpHttpServer']['listen']>
>;

export interface HttpServing {
  readonly http: McpHttpServer;
  /** What modern clients' one-request servers share. */
  readonly perRequest: PerRequestState;
  /** Ends the publisher, the tools view and the server (the shared results after the children). */
  close(): Promise<void>;
}

export async function serveHttp(
  core: Core,
  sessions: SessionFactory,
  options: {
    http: HttpOptions;
    expose: ExposeMode;
    activePoolSize: number;
    maxResultBytes: number;
    maxMessageBytes: number;
    startup: () => StartupGate | undefined;
    /** A replica of a cluster: its part in the HTTP server. */
    replica?: ReplicaServing;
  },
): Promise<HttpServing> {
  const { children, router, upstream, logger } = core;
  let publisher: ListChangePublisher | undefined;
  const perRequest: PerRequestState = {
    // Shared by clients with no session, a handle is the only key: 128 random bits.
    results: newResultStore(options.maxResultBytes, 16, options.replica?.sharedResults),
    pool: newActivationPool(options.expose, options.activePoolSize),
    publish: (method) => publisher?.changed(method),
    flush: async () => publisher?.flush(),
  };
  // Updates of the resources modern HTTP clients listen for go out on their listen streams.
  let updateListeners: ((uri: string) => void) | undefined;
  // Loaded only when serving HTTP: the HTTP adapter and its framework cost a stdio session memory for nothing.
  const { McpHttpServer } = await import('../transport/http-server.js');
  const http = await McpHttpServer.listen({
    ...options.http,
    maxBodyBytes: options.maxMessageBytes,
    createSession: () => sessions.newSession(),
    // A session opened while the configured servers start is given their instructions too.
    beforeSession: () => options.startup()?.openingWait(),
    // A wave of sessions that ended leaves their garbage in a heap at its burst size.
    onSessionEnd: () => core.idleCollection.activity(),
    createRequestServer: () => sessions.requestServer(perRequest).server,
    onListen: (uris) =>
      watchResources({ children, router, upstream, logger }, uris, async (n) =>
        updateListeners?.(String(n.params?.['uri'])),
      ),
    toolInputSchema: (name) => router.toolRoute(children.snapshot, name)?.item.inputSchema,
    ready: () => isReady(options),
    ...(options.replica && replicaParts(options.replica, core)),
    logger,
  }).catch((error: unknown) =>
    exitWith(
      1,
      `mcpmux: cannot serve HTTP on ${options.http.host}:${options.http.port}: ${messageOf(error)}`,
    ),
  );
  // With --expose search or code, a modern client's tools are mcpmux's own and the shared
  // pool's: a request server of the publisher's own tells whether a change touched them.
  const toolsView: MuxServer | undefined =
    options.expose !== 'all' ? sessions.requestServer(perRequest) : undefined;
  publisher = new ListChangePublisher({
    children,
    publish: (method) => http.publish(method),
    ...(toolsView && { toolsChangedSinceAsked: () => toolsView.toolsChangedSinceLastList() }),
  });
  updateListeners = (uri) => http.resourceUpdated(uri);
  // The replicas that reach a server here through the hop hear that its lists changed.
  if (options.replica) children.onChange((change) => http.hopChanged(change.kinds));
  return {
    http,
    perRequest,
    async close() {
      publisher?.close();
      await toolsView?.close();
      await http.close();
    },
  };
}

/** What a replica of a cluster brings to its HTTP server. */
export interface ReplicaServing {
  /** Whether it has read its cluster's set of servers (not ready before). */
  ready(): boolean;
  /** Modern clients' kept results, readable through every replica. */
  sharedResults: SharedResults;
  /** The others' hop to the servers it runs for them: the cluster's token, and which those are. */
  hop: { accepts(token: string): boolean; runs(name: string): boolean };
  version: string;
}

/** A replica refuses requests until it has joined, and answers the others' hop. */
function replicaParts(replica: ReplicaServing, core: Core) {
  return {
    joining: () => !replica.ready(),
    hop: {
      ...replica.hop,
      createServer: (name: string) =>
        hopServer(core.children, name, {
          version: replica.version,
          relay: core.inputRelay,
          router: core.router,
        }),
    },
  };
}

/** Ready once the configured servers have each started or failed, and a replica once it has its cluster's set. */
function isReady(options: { startup: () => StartupGate | undefined; replica?: ReplicaServing }): boolean {
  const startup = options.startup();
  return startup !== undefined && !startup.wait() && (options.replica?.ready() ?? true);
}
