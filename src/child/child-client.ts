// The SDK client that speaks to one generation of a child: what it is told the client of
// mcpmux can do, the requests and notifications of the child it relays up, and the
// envelope a 2026-07-28 server reads from each request.
import {
  ProtocolErrorCode,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
} from '@modelcontextprotocol/server';
import type { ClientSdk } from '../protocol/client-sdk.js';
import type { Client, ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/client';
import { WireError, messageOf } from '../common/errors.js';
import type { ServerSpec } from './server-spec.js';
import type { ChildUpstream, JSONRPCRequestLike } from './child-types.js';
import type { Generation } from './generation.js';
import type { Logger } from '../common/log.js';

const CLIENT_INFO = { name: 'mcpmux', version: '0.1.0' };

/**
 * How long a child may take to answer the 2026-07-28 probe (server/discover) before it is
 * taken for a 2025 server. A 2025 server answers an unknown method at once (or exits on it);
 * this only bounds one that ignores it or is slow to start (then initialize follows the probe
 * on the same pipe), and only on its first start (the verdict is remembered). Long enough for
 * a slow start: a v2 server that answers in 0.3 s on an idle machine can take over 3 s on a
 * loaded one, and a server of both eras taken for a 2025 one stays in 2025 (one of 2026-07-28
 * alone would fail its start). A silent 2025 server pays it once. A stdio child only:
 * for a remote one the SDK takes a probe without answer for a failed connection. Not for a
 * server pinned to 2026-07-28: it has no fallback, and its answer waits only for its start
 * (an npx download, say), which the start-up deadline bounds (armStartupDeadline).
 */
const ERA_PROBE_TIMEOUT_MS = 10_000;
/**
 * The same for a remote server, whose probe has no fallback (no answer is a failed connection):
 * a server far away, or starting cold, or a loaded machine's, may take longer than a stdio
 * child to answer its first request; the start-up deadline still bounds the whole start.
 */
const REMOTE_ERA_PROBE_TIMEOUT_MS = 30_000;

export interface ChildClientOptions {
  name: string;
  era: ServerSpec['era'];
  upstream: ChildUpstream | undefined;
  logger: Logger;
  /** A remote (HTTP) server, not a stdio child. */
  remote?: boolean;
}

/** The generation's SDK client, told what mcpmux's client can do, with every relay in place. */
export function newChildClient(sdk: ClientSdk, gen: Generation, options: ChildClientOptions): Client {
  const { upstream } = options;
  const declared = upstream ? childCapabilities(upstream.clientCapabilities()) : {};
  gen.declared = declared;
  // Both eras: probe with server/discover, fall back to initialize (2025) when it is not understood.
  const mode = negotiationMode(options.era ?? upstream?.childEra?.());
  const client = new sdk.Client(CLIENT_INFO, {
    capabilities: declared,
    versionNegotiation: {
      mode,
      ...(mode === 'auto' && {
        probe: { timeoutMs: options.remote ? REMOTE_ERA_PROBE_TIMEOUT_MS : ERA_PROBE_TIMEOUT_MS },
      }),
    },
  });
  if (upstream) relayToUpstream(gen, client, upstream, declared, options);
  client.onerror = (error) => options.logger.debug(() => `[${options.name}] protocol: ${messageOf(error)}`);
  return client;
}

/**
 * Requests of the child for what the client declared go up and their answers come back;
 * anything else gets an error that says the client cannot do it. Log messages and
 * resource updates go up as they come.
 */
function relayToUpstream(
  gen: Generation,
  client: Client,
  upstream: ChildUpstream,
  declared: ClientCapabilities,
  { name, logger }: ChildClientOptions,
): void {
  const relay = (request: JSONRPCRequestLike, ctx: { mcpReq: { signal: AbortSignal } }) =>
    upstream.request(name, request, ctx.mcpReq.signal, gen.origins.at(-1)) as Promise<never>;
  if (declared.sampling) client.setRequestHandler('sampling/createMessage', relay);
  if (declared.elicitation) client.setRequestHandler('elicitation/create', relay);
  if (declared.roots) client.setRequestHandler('roots/list', relay);
  client.fallbackRequestHandler = async (request) => {
    throw new WireError(ProtocolErrorCode.MethodNotFound, undeclaredRequestMessage(request.method));
  };
  client.setNotificationHandler('notifications/message', (n) => upstream.notify(name, n, gen.origins));
  client.setNotificationHandler('notifications/resources/updated', (n) => upstream.notify(name, n));
  client.setNotificationHandler('notifications/elicitation/complete', (n) => upstream.notify(name, n));
  // The SDK's v2 client keeps no task vocabulary: a task's status comes as an unknown method.
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/tasks/status') return upstream.notify(name, n);
    logger.debug(() => `[${name}] ${n.method} is not relayed to the client`);
  };
}

/** The SDK's negotiation mode for a spec's `era` (auto when it names none). */
function negotiationMode(era: ServerSpec['era']): 'auto' | 'legacy' | { pin: '2026-07-28' } {
  return era === 'modern' ? { pin: '2026-07-28' } : (era ?? 'auto');
}

/** What a child is told its client can do: what mcpmux's own client declared, for the requests mcpmux relays. */
export function childCapabilities(upstream: ClientCapabilities): ClientCapabilities {
  const declared: ClientCapabilities = {};
  if (upstream.sampling) declared.sampling = upstream.sampling;
  if (upstream.elicitation) declared.elicitation = upstream.elicitation;
  // mcpmux forwards the client's roots/list_changed, so a child may rely on it when the client sends it.
  if (upstream.roots) declared.roots = upstream.roots;
  return declared;
}

/** `params` with what a 2026-07-28 request carries in its `_meta` envelope: client capabilities, log level. */
export function withEnvelope(
  params: Record<string, unknown> | undefined,
  capabilities: ClientCapabilities | undefined,
  logLevel: LoggingLevel | undefined,
): Record<string, unknown> | undefined {
  if (capabilities === undefined && logLevel === undefined) return params;
  const meta = (params?.['_meta'] as Record<string, unknown> | undefined) ?? {};
  return {
    ...params,
    _meta: {
      ...meta,
      ...(capabilities && { [CLIENT_CAPABILITIES_META_KEY]: capabilities }),
      ...(logLevel && { [LOG_LEVEL_META_KEY]: logLevel }),
    },
  };
}

function undeclaredRequestMessage(method: string): string {
  const capability = {
    'sampling/createMessage': 'sampling',
    'elicitation/create': 'elicitation',
    'roots/list': 'roots',
  }[method];
  return capability
    ? `the client connected to mcpmux did not declare the '${capability}' capability, so mcpmux cannot forward ${method}`
    : `mcpmux does not forward ${method} from a server to its client`;
}
