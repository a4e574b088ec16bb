// The parts one mcpmux makes once and every client session shares: the router of exposed
// names, the upstream link (children's requests to the client), the children themselves
// (Children), the tool index, code mode, the agent tool's runs, MCP registries, the relay of
// modern clients' rounds, and the idle collection. serve.ts makes it from the command line;
// the test harness makes the same from its own settings.
import type { AgentOptions, CliOptions } from '../cli/cli-options.js';
import type { ChildConnectionOptions } from '../child/child-types.js';
import { Children } from '../children/children.js';
import { formatBytes } from '../common/byte-sizes.js';
import { IdleCollection } from '../common/idle-collection.js';
import type { Logger } from '../common/log.js';
import { cacheDir } from '../common/state-dir.js';
import { telemetry } from '../common/telemetry.js';
import type { CodeMode, CodeModeOptions } from '../code/code-mode.js';
import { AgentRuns } from '../agent/agent-runs.js';
import { ModelChoice } from '../agent/model-choice.js';
import { defaultAgentDir } from '../agent/transcript.js';
import { McpRegistries } from '../mcp-registry/mcp-registries.js';
import type { SpawnPolicy } from '../policy/spawn-policy.js';
import { CatalogRouter } from '../router/catalog-router.js';
import { serverNameProblem } from '../router/tool-names.js';
import { KeptSecrets } from '../secrets/kept-secrets.js';
import { toolRanker, type SearchRankerChoice } from '../search/semantic/ranker-choice.js';
import { ToolIndex } from '../search/tool-index.js';
import { ownToolNames, type ExposeMode } from '../session/exposure.js';
import { InputRelay } from '../session/relay/input-relay.js';
import { UpstreamLink } from '../session/relay/upstream-link.js';
import type { AgentSetup } from '../session/tools/agent-access.js';
import type { RegistryAccess } from '../session/tools/tool-context.js';
import type { QuarantineMode } from '../trust/quarantine.js';
import { TrustKeeper } from '../trust/trust-keeper.js';
import { HeldRecords } from '../trust/held-records.js';
import { PinStore } from '../trust/pin-store.js';
import { join } from 'node:path';

export interface CoreOptions {
  logger: Logger;
  policy: SpawnPolicy;
  /** The longest exposed tool name (--max-tool-name). */
  maxToolName: number;
  /**
   * What children are told of the client: over HTTP, what mcpmux can relay (clients come and
   * go); on stdio, what the client declared, in its era. Default: neither (UpstreamLink's).
   */
  upstream?: { declareRelayable: boolean; followClientEra: boolean };
  /** What each child connection is made with, besides its spawner and upstream (timeouts, bounds). */
  connection?: Partial<
    Omit<ChildConnectionOptions, 'name' | 'spec' | 'onEvent' | 'logger' | 'spawnPolicy' | 'upstream'>
  >;
  expose: ExposeMode;
  /** How search_tools ranks; undefined: BM25. */
  searchRanker?: SearchRankerChoice;
  /** With expose code: the sandbox's settings. */
  code?: Omit<CodeModeOptions, 'logger'>;
  /** The agent tool's settings; undefined: no agent tools. */
  agent?: AgentOptions;
  /** MCP registries (find_servers); undefined or empty: none. */
  registries?: { urls: readonly string[]; allowModelSecrets: boolean };
  /** Which servers start held (--quarantine); every list passes the trust gate. */
  quarantine: QuarantineMode;
  /** Where approvals (pins/) and what is held (held/) are kept; default $XDG_STATE_HOME/mcpmux. */
  trustState?: string;
  /** A replica of a cluster: what signs 2026-07-28 requestStates (shared by the replicas), and its name. */
  replica?: { requestStateKey: Uint8Array; name: string };
}

export interface Core {
  readonly logger: Logger;
  readonly policy: SpawnPolicy;
  readonly router: CatalogRouter;
  readonly upstream: UpstreamLink;
  readonly children: Children;
  /** How far each server's text is trusted; what is held from the model. */
  readonly trust: TrustKeeper;
  readonly index: ToolIndex;
  readonly expose: ExposeMode;
  readonly code: CodeMode | undefined;
  readonly agents: AgentSetup | undefined;
  readonly registries: RegistryAccess | undefined;
  /** A 2026-07-28 client's rounds may reach different servers (one per HTTP request): one relay for all. */
  readonly inputRelay: InputRelay;
  readonly idleCollection: IdleCollection;
  /** Ends what the core holds, the children last but one (the index after them). */
  close(): Promise<void>;
}

/** What each child connection is made with, from the command line; a one-shot command pings nothing. */
export function connectionFromCli(
  options: CliOptions,
  { pings }: { pings: boolean },
): NonNullable<CoreOptions['connection']> {
  return {
    startupTimeoutMs: options.startupTimeoutMs,
    callTimeoutMs: options.callTimeoutMs,
    pingIntervalMs: pings ? options.pingIntervalMs : 0,
    maxMessageBytes: options.maxMessageBytes,
    ...(options.clientMetadataUrl !== undefined && { clientMetadataUrl: options.clientMetadataUrl }),
  };
}

export async function createCore(options: CoreOptions): Promise<Core> {
  const { logger, maxToolName } = options;
  const router = new CatalogRouter({ maxToolName, reservedToolNames: ownToolNames(), logger });
  const upstream = new UpstreamLink({ router, logger, ...options.upstream });
  const state = options.trustState;
  const trust = new TrustKeeper({
    mode: options.quarantine,
    logger,
    ...(state && { store: new PinStore(join(state, 'pins')), held: new HeldRecords(join(state, 'held')) }),
  });
  trust.watch();
  const children = new Children({
    logger,
    validateName: (name) => serverNameProblem(name, maxToolName),
    connection: { spawnPolicy: options.policy, upstream, ...options.connection },
    trust,
  });
  observeServers(children);
  const ranker = options.searchRanker && toolRanker(options.searchRanker, logger);
  const index = new ToolIndex({ router, ...(ranker && { ranker }) });
  // Where search is how tools are found, the ranker prepares as servers come (the model embeds them).
  if (options.expose === 'search')
    children.onChange((change) => {
      if (change.kinds.includes('tools')) index.prepare(children.snapshot);
    });
  const code = options.expose === 'code' ? await startCodeMode(options, children) : undefined;
  const idleCollection = idleCollectionFor(logger);
  idleCollection.activity();
  children.onChange(() => idleCollection.activity());
  const agents = options.agent && agentSetup(options.agent, logger);
  const registries = options.registries?.urls.length ? registryAccess(options, logger) : undefined;
  const inputRelay = new InputRelay(
    options.replica && { stateKey: options.replica.requestStateKey, replica: options.replica.name },
  );
  return {
    logger,
    policy: options.policy,
    router,
    upstream,
    children,
    trust,
    index,
    expose: options.expose,
    code,
    agents,
    registries,
    inputRelay,
    idleCollection,
    async close() {
      idleCollection.close();
      inputRelay.close();
      await agents?.runs.close();
      await children.close();
      trust.close();
      await code?.close();
      await index.close();
    },
  };
}

/** Servers by status, for OpenTelemetry's gauge. */
function observeServers(children: Children): void {
  telemetry.observe('mcpmux.servers', () => {
    const byStatus = new Map<string, number>();
    for (const { status } of children.list()) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    return [...byStatus].map(([status, value]) => ({
      value,
      attributes: { 'mcpmux.server.status': status },
    }));
  });
}

/** Loaded only for --expose code: esbuild, json-schema-to-typescript and QuickJS cost every other start time. */
async function startCodeMode(options: CoreOptions, children: Children): Promise<CodeMode> {
  const { CodeMode } = await import('../code/code-mode.js');
  const code = new CodeMode({ logger: options.logger, ...options.code });
  code.follow(children, options.logger);
  return code;
}

/**
 * Start-up, a burst of servers (a config's, or an agent's adds), of lists or of HTTP sessions
 * leave the heap at its burst size: given back once quiet. The heap is read after each
 * collection only when the debug line that shows it is written.
 */
function idleCollectionFor(logger: Logger): IdleCollection {
  return new IdleCollection(
    logger.enabled('debug')
      ? {
          onCollected: ({ usedBytes, totalBytes }) => {
            const { rss, external, arrayBuffers } = process.memoryUsage();
            logger.debug(
              `idle collection: ${formatBytes(usedBytes)} live of a ${formatBytes(totalBytes)} heap; ` +
                `RSS ${formatBytes(rss)}, outside the heap ${formatBytes(external)} (buffers ${formatBytes(arrayBuffers)})`,
            );
          },
        }
      : {},
  );
}

/** The agent tool's runs (they outlive the request, and the session, that started them) and its model choice. */
function agentSetup(agent: AgentOptions, logger: Logger): AgentSetup {
  return {
    runs: new AgentRuns({
      dir: agent.dir ?? defaultAgentDir(),
      logger,
      maxToolCalls: agent.maxToolCalls,
      timeoutMs: agent.timeoutMs,
      concurrency: agent.concurrency,
    }),
    models: new ModelChoice({
      provider: agent.provider,
      ...(agent.apiKey && {
        anthropic: { apiKey: agent.apiKey, baseURL: agent.baseUrl, model: agent.model },
      }),
    }),
  };
}

/** find_servers ranks registry entries as search_tools ranks tools, with a ranker of its own. */
function registryAccess(options: CoreOptions, logger: Logger): RegistryAccess {
  return {
    registries: new McpRegistries({
      urls: [...options.registries!.urls],
      dir: cacheDir('registries'),
      ranker: toolRanker(options.searchRanker ?? 'bm25', logger),
    }),
    kept: new KeptSecrets(),
    allowModelSecrets: options.registries!.allowModelSecrets,
  };
}
