// Connecting one generation of a child: spawn it (or adopt the process main.ts spawned)
// and speak to it over stdio, or reach a remote server over streamable HTTP (falling back
// to HTTP+SSE); find its protocol era (probe with server/discover, fall back to
// initialize); and list its catalog. The connection across generations is the host.
// The server package's error classes match the client's (the SDK brands them across packages).
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/server';
import type { Client, FetchLike } from '@modelcontextprotocol/client';
import { MuxError, messageOf } from '../common/errors.js';
import { CAPABILITY_ROWS, EMPTY_CATALOG, rowsChangedBy, type Catalog } from '../protocol/capabilities.js';
import type { RemoteServerSpec, StdioServerSpec } from './server-spec.js';
import { needsConfig } from './start-failure.js';
import { fetchWithoutSignIn } from '../oauth/sign-in-offer.js';
import { listCatalog, listingOptions } from './catalog/catalog-listing.js';
import { newChildClient } from './child-client.js';
import { clientSdk, warmSchemasWhileWaiting, type ClientSdk } from '../protocol/client-sdk.js';
import type { ConnectHost, ConnectMemory } from './connect-host.js';
import { DRAIN_AFTER_EXIT_MS, type Generation } from './generation.js';
import { stdioLink } from './process/stdio-link.js';
import type { ChildProcess } from './process/child-process.js';
import { bridgeMissingResultType } from './catalog/result-type-bridge.js';
import { boundedFetch } from './remote/bounded-fetch.js';
import { openHopLink } from './remote/hop-link.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../protocol/json-line-reader.js';
import { startPinging, type Pinging } from './liveness.js';
import { closedByServer, handshakeVerdict } from './start-failure.js';
import { delay } from '../common/delay.js';

/** Connects the generation (spawn, or reach the URL), shakes hands and lists its catalog. */
export async function connectGeneration(
  host: ConnectHost,
  gen: Generation,
  handshakeAfter: Promise<unknown> | undefined,
): Promise<Catalog> {
  const spec = host.spec;
  if (spec.unconfigured) throw needsConfig(host.name, spec.unconfigured);
  const options = { signal: gen.startup.signal, timeout: 2 ** 31 - 1 };
  const sdk = clientSdk(); // loading while the process starts
  if (spec.transport === 'http') {
    await handshakeAfter;
    const client = await connectRemote(host, gen, spec, options, await sdk);
    return listCatalog(client, CAPABILITY_ROWS, EMPTY_CATALOG, listingOptions(host, gen, options));
  }
  return spawnAndConnect(host, gen, spec, options, handshakeAfter, sdk);
}

/**
 * A remote server: streamable HTTP first; a server that answers that with 400, 404 or
 * 405 is taken for one of the older HTTP+SSE kind and tried again that way (the SDK's
 * advice for clients that must reach both).
 */
async function connectRemote(
  host: ConnectHost,
  gen: Generation,
  spec: RemoteServerSpec,
  options: { signal: AbortSignal; timeout: number },
  sdk: ClientSdk,
): Promise<Client> {
  const url = new URL(spec.url);
  if (spec.clusterHop) {
    // Another replica's copy of a server placed on one, over the cluster's hop.
    const hop = newClient(host, gen, sdk);
    await hop.connect(await openHopLink(url, spec.headers, host, options), connectOptions(host, options));
    gen.remote = 'cluster-hop';
    settleEra(host, gen, hop);
    return hop;
  }
  const requestInit: RequestInit = { headers: { ...spec.headers } };
  const signIn = host.memory.signIn;
  const bounded = boundedFetch(signIn?.fetch ?? fetchWithoutSignIn(spec.url), {
    limit: host.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    onDropped: (why) => host.log.warn(`[${host.name}] ${why}`),
  });
  const streamable = newClient(host, gen, sdk);
  let refused: string;
  try {
    await streamable.connect(
      new sdk.StreamableHTTPClientTransport(url, { requestInit, fetch: bounded }),
      connectOptions(host, options),
    );
    gen.remote = 'streamable-http';
    settleEra(host, gen, streamable);
    return streamable;
  } catch (error) {
    if (
      gen.startup.signal.aborted ||
      !(error instanceof SdkHttpError && [400, 404, 405].includes(error.status ?? 0))
    )
      throw error;
    host.log.info(
      `[${host.name}] ${spec.url} does not speak streamable HTTP (${error.message}); trying HTTP+SSE`,
    );
    await streamable.close().catch(() => {});
    refused = `HTTP ${error.status ?? '?'} (${error.message.slice(0, 200)})`;
  }
  return connectSse(host, gen, { spec, url, fetch: bounded, refused }, options, sdk);
}

/** The older HTTP+SSE transport, after streamable HTTP was `refused`. */
async function connectSse(
  host: ConnectHost,
  gen: Generation,
  remote: { spec: RemoteServerSpec; url: URL; fetch: FetchLike; refused: string },
  options: { signal: AbortSignal; timeout: number },
  sdk: ClientSdk,
): Promise<Client> {
  const { spec, url, refused } = remote;
  const bounded = remote.fetch;
  const requestInit: RequestInit = { headers: { ...spec.headers } };
  const sse = newClient(host, gen, sdk);
  const headers = { ...spec.headers };
  // Failing both ways, both answers are told: a wrong path is seen in the first one as much as in the second.
  const bothRefused = (error: unknown) => {
    if (gen.startup.signal.aborted || !(error instanceof sdk.SseError || error instanceof SdkHttpError))
      throw error;
    const status = error instanceof SdkHttpError ? error.status : error.code;
    throw new Error(
      `streamable HTTP's POST was answered ${refused}, and HTTP+SSE's GET HTTP ${status ?? '?'} (${error.message}); is it the server's MCP endpoint?`,
    );
  };
  await sse
    .connect(
      new sdk.SSEClientTransport(url, {
        requestInit,
        fetch: bounded,
        eventSourceInit: {
          fetch: (input, init) =>
            bounded(input, {
              ...init,
              headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers },
            }),
        },
      }),
      options,
    )
    .catch(bothRefused);
  gen.remote = 'sse';
  settleEra(host, gen, sse);
  return sse;
}

async function spawnAndConnect(
  host: ConnectHost,
  gen: Generation,
  spec: StdioServerSpec,
  options: { signal: AbortSignal; timeout: number },
  handshakeAfter: Promise<unknown> | undefined,
  sdk: Promise<ClientSdk>,
): Promise<Catalog> {
  const signal = options.signal;
  // A configured server was spawned by main.ts before the rest of mcpmux loaded: its first start adopts that process.
  const spawned = host.memory.spawned;
  host.memory.spawned = undefined;
  const proc = await (spawned ?? host.options.spawnPolicy.spawn(host.name, spec));
  gen.process = proc;
  gen.tail.follow(proc.stderr);
  // Spawned; spoken to once the client has said what it can do (or at once if it exits meanwhile).
  if (handshakeAfter) await Promise.race([handshakeAfter, proc.exited]);
  if (signal.aborted) throw signal.reason;
  const transport = stdioLink(host, gen, proc);
  const loaded = await sdk;
  const client = newClient(host, gen, loaded);
  void proc.exited.then(() => host.noticeEnd(gen));
  // An exit during start-up must fail the start at once, not wait for the timeout.
  const exitedEarly = proc.exited.then(() => Promise.reject(new MuxError('STARTUP_FAILED', 'exited')));
  exitedEarly.catch(() => {});
  // A start failed from outside the SDK (the deadline; what the child writes, stdio-link.ts)
  // ends at once, even while the SDK still waits for an answer of its own.
  const failed = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
  failed.catch(() => {});
  const probing = host.memory.era === undefined;
  const connecting = client.connect(transport, connectOptions(host, options));
  warmSchemasWhileWaiting(loaded);
  try {
    await Promise.race([connecting, exitedEarly, failed]);
  } catch (error) {
    await judgeFailedStart(
      host,
      { proc, signal, connecting, probing, loaded, stderr: () => gen.tail.lines() },
      error,
    );
    throw error;
  }
  settleEra(host, gen, client);
  return await Promise.race([
    listCatalog(client, CAPABILITY_ROWS, EMPTY_CATALOG, listingOptions(host, gen, options)),
    exitedEarly,
  ]);
}

/** Connect options with the era this server spoke last time, when it is known. */
function connectOptions(host: ConnectHost, options: { signal: AbortSignal; timeout: number }) {
  return host.memory.era ? { ...options, prior: host.memory.era } : options;
}

/**
 * Remembers the era the server speaks; a 2026-07-28 server's list changes come on a
 * subscriptions/listen stream, which is opened here for every list it says can change.
 */
function settleEra(host: ConnectHost, gen: Generation, client: Client): void {
  const discover = client.getDiscoverResult();
  host.memory.era = discover ? { kind: 'modern', discover } : { kind: 'legacy' };
  if (client.getProtocolEra() !== 'modern') return;
  if (client.transport)
    bridgeMissingResultType(client.transport, () =>
      host.log.warn(
        `[${host.name}] answers without resultType, which 2026-07-28 requires; such results are taken as complete`,
      ),
    );
  const capabilities = client.getServerCapabilities() ?? {};
  const filter = {
    ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
    ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
    ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
  };
  if (Object.keys(filter).length === 0) return;
  // Not awaited: a server that never acknowledges the stream must not hold up its start;
  // it only means its changes go unheard, which is logged. Once it is acknowledged, the lists
  // are read again, so a change made before the stream was open is not missed.
  client.listen(filter).then(
    (subscription) => {
      host.log.debug(
        () => `[${host.name}] listening for ${Object.keys(subscription.honoredFilter ?? filter).join(', ')}`,
      );
      host.relist(
        gen,
        CAPABILITY_ROWS.filter((row) => capabilities[row.capability]?.listChanged),
      );
    },
    (error: unknown) =>
      host.log.warn(
        `[${host.name}] its list changes will not be heard: subscriptions/listen failed (${messageOf(error)})`,
      ),
  );
}

/** The generation's SDK client, with its end and the child's list changes watched. */
function newClient(host: ConnectHost, gen: Generation, sdk: ClientSdk): Client {
  const client = newChildClient(sdk, gen, {
    name: host.name,
    era: host.spec.era,
    upstream: host.options.upstream,
    logger: host.log,
    remote: host.spec.transport === 'http',
  });
  gen.client = client;
  gen.transportClosed = new Promise<void>((resolve) => {
    client.onclose = () => {
      resolve();
      if (gen.client === client) host.noticeEnd(gen);
    };
  });
  for (const row of CAPABILITY_ROWS) {
    client.setNotificationHandler(row.listChanged, () =>
      host.relistWhenQuiet(gen, rowsChangedBy(row.listChanged)),
    );
  }
  return client;
}

/** Starts; a server that exited on the era probe is started again at once, with initialize. */
export async function startOrRetryLegacy<T>(
  memory: ConnectMemory,
  start: (handshakeAfter: Promise<unknown> | undefined) => Promise<T>,
  handshakeAfter: Promise<unknown> | undefined,
): Promise<T> {
  try {
    return await start(handshakeAfter);
  } catch (error) {
    if (!memory.exitedOnProbe) throw error;
    memory.exitedOnProbe = false;
    return await start(undefined);
  }
}

/**
 * Aborts the start when it takes longer than `timeoutMs`; the time spent waiting for the
 * client to open (`handshakeAfter`) does not count against the server. Returns the disarm.
 */
export function armStartupDeadline(
  gen: Generation,
  name: string,
  timeoutMs: number,
  handshakeAfter: Promise<unknown> | undefined,
): () => void {
  let settled = false;
  const arm = () =>
    setTimeout(
      () =>
        gen.startup.abort(
          new MuxError(
            'STARTUP_TIMEOUT',
            `server '${name}' did not finish start-up (initialize and tools/list) within ${timeoutMs / 1000} s`,
          ),
        ),
      timeoutMs,
    );
  let timer = handshakeAfter ? undefined : arm();
  void handshakeAfter?.then(() => {
    if (!settled) timer = arm();
  });
  return () => {
    settled = true;
    clearTimeout(timer);
  };
}

/** Liveness pings of a generation that runs (none with --ping-interval 0; a remote one's also on its errors). */
export function pingGeneration(host: ConnectHost, gen: Generation): Pinging | undefined {
  if (!gen.client) return undefined;
  return startPinging({
    name: host.name,
    client: gen.client,
    intervalMs: host.options.pingIntervalMs ?? 30_000,
    timeoutMs: host.options.pingTimeoutMs ?? 10_000,
    logger: host.log,
    running: () => host.runs(gen),
    lost: (error) => host.lostRemote(gen, error),
    remote: host.spec.transport === 'http',
  });
}

/**
 * Why a local start failed, thrown as the error that says it: the era refused by a server
 * pinned to 2026-07-28, the handshake's verdict, or else the error as it came. A server that
 * exited on the 2026-07-28 probe is remembered, to be started next with initialize.
 */
async function judgeFailedStart(
  host: ConnectHost,
  start: {
    proc: ChildProcess;
    signal: AbortSignal;
    connecting: Promise<void>;
    probing: boolean;
    loaded: ClientSdk;
    /** What it wrote on stderr: its reason to exit. */
    stderr: () => readonly string[];
  },
  error: unknown,
): Promise<never> {
  const { proc, signal, connecting, probing, loaded } = start;
  // Judged now, before the exit that the SDK's closing of a refused connection brings.
  const alive = proc.exit === undefined && !signal.aborted;
  const verdict = handshakeVerdict(host.name, error, alive, loaded.SUPPORTED_PROTOCOL_VERSIONS);
  // A server pinned to 2026-07-28 that does not speak it: the SDK's verdict, not the exit it caused.
  const refusal = await Promise.race([
    connecting.then(
      () => undefined,
      (e: unknown) => e,
    ),
    delay(100),
  ]);
  // (Only a pinned server is refused for its era; a closed connection is the process's doing.)
  const refused =
    host.spec.era === 'modern' &&
    refusal instanceof SdkError &&
    refusal.code === SdkErrorCode.EraNegotiationFailed &&
    !closedByServer(refusal);
  if (refused) {
    throw new MuxError(
      'PROTOCOL_MISMATCH',
      `server '${host.name}' does not speak the 2026-07-28 protocol (its era is set to modern): ${refusal.message}; set era to auto or legacy`,
    );
  }
  if (verdict) throw verdict;
  // Some servers exit on any request before initialize: next time, go straight to it. (One
  // stopped meanwhile, by a remove or mcpmux's shutdown, was killed, and is not started again.)
  if (probing && host.spec.era === undefined) await Promise.race([proc.exited, delay(DRAIN_AFTER_EXIT_MS)]);
  if (
    probing &&
    host.spec.era === undefined &&
    proc.exit !== undefined &&
    !signal.aborted &&
    mayHaveRefusedProbe(start.stderr())
  ) {
    host.memory.era = { kind: 'legacy' };
    host.memory.exitedOnProbe = true;
    host.log.warn(
      `[${host.name}] exited while asked server/discover (the 2026-07-28 probe); starting it again with initialize`,
    );
  }
  throw error;
}

/** What a server that dies on a request before initialize says of it: the method, or that it wants initialize. */
const PROBE_REFUSAL =
  /discover|initiali[sz]|method not found|unknown method|unsupported method|-3260[01]|invalid request|protocol version/i;

/**
 * Whether an exit during the 2026-07-28 probe may be the probe's doing: the server said so, or
 * said nothing. One that gives a reason of its own (a missing key, npm's 404 for a misspelt
 * package) is not started a second time for nothing.
 */
function mayHaveRefusedProbe(stderr: readonly string[]): boolean {
  const said = stderr.join('\n');
  return said.trim() === '' || PROBE_REFUSAL.test(said);
}
