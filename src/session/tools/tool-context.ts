// What one of mcpmux's own tools is given when it is called (its session's children, router,
// index, results, model…) and what it is: the contract between the tools (management-tools,
// agent-tools, code-mode-tools) and the session that calls them (mux-server, tool-calls).
import type { CallToolResult, ClientCapabilities, Tool } from '@modelcontextprotocol/server';
import type { AgentRuns } from '../../agent/agent-runs.js';
import type { ModelSource } from '../../agent/model-source.js';
import type { ToolIndex } from '../../search/tool-index.js';
import type { CallOptions, InputOrigin } from '../../child/child-types.js';
import type { CodeMode } from '../../code/code-mode.js';
import type { SpawnPolicy } from '../../policy/spawn-policy.js';
import type { Children } from '../../children/children.js';
import type { ResultStore } from '../../results/result-store.js';
import type { CatalogRouter } from '../../router/catalog-router.js';
import type { ServerSpec } from '../../child/server-spec.js';
import type { HeldRun } from '../relay/held-call.js';
import type { KeptSecrets } from '../../secrets/kept-secrets.js';
import type { McpRegistries } from '../../mcp-registry/mcp-registries.js';

export interface ManagementContext {
  children: Children;
  router: CatalogRouter;
  /** What the operator allows add_server to run; absent: anything. */
  policy?: SpawnPolicy | undefined;
  /** The search index over every exposed tool. */
  index: ToolIndex;
  /** The tools/list this client gets now (depends on --expose and activations). */
  listedTools: () => readonly Tool[];
  /** Results too large for a reply, kept for read_result. */
  results: ResultStore;
  /** In `--expose search` mode: lists found tools (bounded pool). */
  activate?: ((names: readonly string[]) => { added: string[]; evicted: string[] }) | undefined;
  /** The config file mcpmux was started with, for `persist`; absent without --config. */
  config?: PersistentConfig | undefined;
  /** In `--expose code` mode: the sandbox and the typed wrappers. */
  code?: CodeMode | undefined;
  /** The cancellation signal and progress of the management call itself. */
  callOptions: CallOptions;
  /**
   * Calls any exposed tool by name (call_tool delegates here); `options` replace the
   * management call's own (a sub-agent's calls carry the run's cancellation).
   */
  callTool: (
    name: string,
    args: Record<string, unknown> | undefined,
    options?: CallOptions,
  ) => Promise<CallToolResult>;
  /**
   * A 2026-07-28 client's tools/call: work that asks the client (a sub-agent sampling it) is
   * held across the client's rounds, each question going out as an input_required result.
   */
  heldRounds?: HeldRounds | undefined;
  /** Settles once the servers given at start have each started or failed. */
  started: () => Promise<void>;
  /** The agent and output tools' runs and model; absent where they are off. */
  agent?: AgentAccess | undefined;
  /** MCP registries for find_servers and add_server's registry entries; absent where they are off. */
  registries?: RegistryAccess | undefined;
  /** This replica's link to its cluster's set of servers; absent for a mcpmux on its own. */
  cluster?: ClusterLink | undefined;
}

/** What add_server, remove_server and list_servers do with a cluster's set of servers (cluster/cluster-servers.ts). */
export interface ClusterLink {
  readonly replica: string;
  /** CLUSTER_UNAVAILABLE, before anything changes, when a change could not be shared now. */
  reachable(): Promise<void>;
  /**
   * A server added here (running already) becomes every replica's; resolves once every live
   * replica has applied it, or with those still behind after a bound.
   */
  published(name: string, entry: Readonly<Record<string, unknown>>): Promise<{ waiting: string[] }>;
  /** A server of the cluster, removed here, leaves every replica (as published waits); undefined when it was this replica's alone. */
  unpublished(name: string): Promise<{ waiting: string[] } | undefined>;
  /** A server of the cluster, reloaded here, is reloaded on every replica that runs it (as published waits). */
  reloaded(name: string): Promise<{ waiting: string[] }>;
  /** Whether `name` is one of the cluster's servers. */
  has(name: string): boolean;
  /** Where a server of the cluster runs: every replica, or one (which); undefined for one that is not the cluster's. */
  placement(name: string): { placement: 'every' | 'one'; runs_on?: string } | undefined;
  /** The cluster's servers this replica does not run, and why. */
  refusals(): readonly { name: string; by: string; reason: string }[];
}

/** What find_servers and an add from a registry entry use. */
export interface RegistryAccess {
  registries: McpRegistries;
  /** Secrets people agreed to keep. */
  kept: KeptSecrets;
  /** --allow-model-secrets: a secret the model passes in env is used rather than refused. */
  allowModelSecrets: boolean;
}

export interface HeldRounds {
  /** What the client declared on this request. */
  capabilities: ClientCapabilities | undefined;
  /** Runs `run` (once; a later round resumes it) and answers with its next round or its result. */
  hold(tool: string, run: HeldRun): Promise<Record<string, unknown>>;
}

export interface PersistentConfig {
  readonly path: string;
  persist(name: string, entry: Record<string, unknown> | undefined, spec?: ServerSpec): Promise<void>;
  /** Reads the file again and applies what changed (as an edit with --watch-config does). */
  sync(): Promise<unknown>;
}

export interface ManagementTool {
  definition: Tool;
  handle: (args: Record<string, unknown> | undefined, ctx: ManagementContext) => Promise<CallToolResult>;
}

/** What a session gives the agent tools. */
export interface AgentAccess {
  runs: AgentRuns;
  /**
   * The model for a run, or what to configure to have one. A background run outlives the
   * request, so it reaches the client on its session rather than on the request's stream.
   */
  model: (background: boolean, call: CallOptions, rounds?: HeldRounds) => ModelSource | string;
  /** Whether this session's client has a model for agent now (else agent and output are not listed). */
  available: () => boolean;
  /** Where the children's questions during a background run go (the session's client). */
  sessionOrigin?: InputOrigin | undefined;
}
