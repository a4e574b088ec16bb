// What a client session's MCP server is made from: the parts every session shares (the
// children, the router, the index, code mode, agents, MCP registries) and how this one is
// served (its era; a session of its own, or one request of a sessionless 2026-07-28 client).
import type { Era } from '../protocol/era.js';
import type { Logger } from '../common/log.js';
import type { ActivationPool } from '../search/activation-pool.js';
import type { ResultStore } from '../results/result-store.js';
import type { ToolIndex } from '../search/tool-index.js';
import type { SpawnPolicy } from '../policy/spawn-policy.js';
import type { Children } from '../children/children.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import type { ListChangedMethod } from '../protocol/capabilities.js';
import type { StartupGate } from '../children/startup-gate.js';
import type { CodeMode } from '../code/code-mode.js';
import type { ClusterLink, PersistentConfig, RegistryAccess } from './tools/tool-context.js';
import type { InputRelay } from './relay/input-relay.js';
import type { UpstreamLink } from './relay/upstream-link.js';
import type { AgentSetup } from './tools/agent-access.js';
import type { ExposeMode } from './exposure.js';
import type { CallLog } from './call-log.js';

export interface MuxServerOptions {
  /** A tools/list was answered (at 5,000 tools, megabytes of JSON): the idle collection's cue. */
  onListed?: () => void;
  children: Children;
  router: CatalogRouter;
  /** The children reach the client through it; the server attaches it. */
  upstream: UpstreamLink;
  /** What add_server may run. Default: anything. */
  policy?: SpawnPolicy;
  /** The search index over every exposed tool (shared by all sessions). */
  index: ToolIndex;
  /**
   * all: every child tool is listed; search: only what search_tools activated; code: no
   * child tool, and programs call them through execute_code. Default all.
   */
  expose?: ExposeMode;
  /** The sandbox and typed wrappers of code mode (shared by all sessions); needed for `code`. */
  code?: CodeMode;
  /** The agent tools' runs and model choice; without it, agent and output are not listed. */
  agents?: AgentSetup;
  /** In search mode, how many found tools may be listed at once. Default 15. */
  activePoolSize?: number;
  /** Text bytes of a tool result before it is cut and kept for read_result. Default 16 384; 0: never cut. */
  maxResultBytes?: number;
  /** The config file, for add_server and remove_server with `persist`. */
  config?: PersistentConfig;
  /** A replica's cluster: add_server and remove_server change every replica's servers. */
  cluster?: ClusterLink;
  /** How the client reaches this session, for its spans: `pipe` (stdio, the default) or `tcp` (HTTP). */
  network?: 'pipe' | 'tcp';
  /** --call-log: a line per tool call, resource read and prompt get (shared by every session). */
  callLog?: CallLog;
  /** --trace-content: tool calls' arguments and results go into their spans. */
  traceContent?: boolean;
  /** MCP registries for find_servers and add_server's registry entries; without it, find_servers is not listed. */
  registries?: RegistryAccess;
  logger: Logger;
  /** Reported to the client in serverInfo. */
  version: string;
  /** Quiet time before list_changed is sent. Default 10 ms. */
  listChangedDebounceMs?: number;
  /**
   * The protocol era of the connection: legacy (2025, an initialize handshake) or modern
   * (2026-07-28: no handshake, list changes go out on the client's subscriptions/listen
   * stream). Default legacy.
   */
  era?: Era;
  /**
   * Set when this server answers one request of a modern (2026-07-28) HTTP client and is dropped
   * after it: kept results and the search pool are shared, list changes go out through `publish`
   * (the HTTP layer's, which hears the children once for all requests).
   */
  perRequest?: PerRequestState;
  /** The servers given at start: lists and calls wait until each has started or failed. */
  startup?: StartupGate;
  /**
   * Carries what children ask of a 2026-07-28 client (input_required rounds); shared by every
   * server of the process, since a modern client's rounds may come to different ones. Default: one of its own.
   */
  inputRelay?: InputRelay;
}

/** What modern HTTP requests share, since each is served by a server of its own. */
export interface PerRequestState {
  results: ResultStore;
  pool: ActivationPool | undefined;
  publish: (method: ListChangedMethod) => void;
  /** Sends the list changes pending now at once. */
  flush: () => Promise<void>;
}
