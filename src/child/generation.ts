// One generation of a child: one process (or one connection to a remote server) from its
// start to its end. A reload or a restart makes a new one; events of an older one are ignored.
import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';
import type { MuxError } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { ServerSpec } from './server-spec.js';
import type { ChildLane } from './requests/child-lane.js';
import type { CapabilityRow, CatalogKind } from '../protocol/capabilities.js';
import type { ChildProcess, ExitInfo, StopTimings } from './process/child-process.js';
import type { InputOrigin } from './child-types.js';
import type { ChildInput } from './process/input-backlog.js';
import type { Pinging } from './liveness.js';
import type { ResourceListen } from './catalog/resource-listen.js';
import { StderrTail } from './process/stderr-tail.js';
import type { StdoutNoise } from './process/stdout-noise.js';
import { describeEnd } from './process/exit-words.js';
import { delay } from '../common/delay.js';

/** How long after an exit the last messages on stdout may still arrive. */
export const DRAIN_AFTER_EXIT_MS = 250;

export interface Generation {
  readonly number: number;
  readonly tail: StderrTail;
  readonly startup: AbortController;
  process?: ChildProcess;
  client?: Client;
  transportClosed?: Promise<void>;
  cleanup?: Promise<unknown>;
  /** Settles once an unexpected end has been judged (crash recorded), for calls that saw the close first. */
  ended?: Promise<void>;
  /** Why the calls of this generation were ended, once they were (the error each in-flight call gets). */
  callsEnded?: MuxError;
  /** Aborted with that error then: what waits between requests to it (a task's polls) stops waiting. */
  readonly callsEnd: AbortController;
  /** A remote server: which HTTP transport reached it. */
  remote?: 'streamable-http' | 'sse' | 'cluster-hop';
  /** What a stdio child printed on stdout that is not JSON-RPC, for a failed start's report. */
  noise?: StdoutNoise;
  /** Why the connection was judged lost when no process exit says so (a remote server that stopped answering). */
  lostBecause?: string;
  /** A remote server answered 404 to this generation's session: it ended there (session-renewal.ts). */
  sessionEnded?: boolean;
  /** Requests on the SDK's path waiting for the child's answer. */
  requests: number;
  /** The liveness pings of this generation. */
  ping?: Pinging | undefined;
  /**
   * The clients of the calls in flight, oldest first. A 2025 server's request names no call,
   * so it goes to the client of the most recent one (in a 2026-07-28 round it is that call's).
   */
  readonly origins: InputOrigin[];
  /** A 2026-07-28 server's stream of the resources its client subscribed to. */
  resourceListen?: ResourceListen;
  /** What the child was told at its handshake that its client can do (what it may ask). */
  declared?: ClientCapabilities;
  /** The forwarding fast path's calls to this generation (a stdio child). */
  lane?: ChildLane;
  /** What waits to be written to a stdio child (input-backlog.ts). */
  input?: ChildInput;
  /** What its lists held that is not valid MCP, and so is not exposed: by list, each item with why. */
  skipped?: Partial<Record<CatalogKind, readonly string[]>>;
  /** The lists a burst of the child's list_changed asks to re-list, once it is quiet. */
  pendingRefresh?: { rows: Set<CapabilityRow>; since: number; timer: NodeJS.Timeout | undefined } | undefined;
}

/** Makes `origin` the client of a call in flight until the returned end is called. */
export function originDuring(gen: Generation, origin: InputOrigin): () => void {
  gen.origins.push(origin);
  return () => void gen.origins.splice(gen.origins.lastIndexOf(origin), 1);
}

export function newGeneration(
  number: number,
  tail: { maxLines: number; onLine: (line: string) => void },
): Generation {
  return {
    number,
    tail: new StderrTail(tail),
    startup: new AbortController(),
    callsEnd: new AbortController(),
    origins: [],
    requests: 0,
  };
}

/**
 * Fails every call in flight at once with `error`. Closing the client rejects its pending
 * requests (and ends the child's stdin, the first step of the stop ladder anyway), so no
 * per-call abort controller is needed on the hot path.
 */
export function endCalls(gen: Generation, error: MuxError): void {
  gen.callsEnded ??= error;
  gen.callsEnd.abort(gen.callsEnded);
  gen.lane?.end(error);
  void gen.client?.close().catch(() => {});
}

/** Closes the client and stops the process group; resolves once the group is dead. */
export async function releaseGeneration(
  gen: Generation,
  server: { name: string; spec: ServerSpec; options: { stopTimings?: StopTimings | undefined }; log: Logger },
  /** The start under way, if any: a spawn still in progress assigns the process when it ends. */
  starting: () => Promise<unknown> | undefined,
): Promise<void> {
  if (gen.ping) clearInterval(gen.ping.timer);
  if (server.spec.transport === 'http') {
    await gen.client?.close().catch(() => {});
    return;
  }
  // Wait for the process to be assigned if the spawn is still under way.
  if (!gen.process) await starting()?.catch(() => {});
  const proc = gen.process;
  if (!proc) return;
  const exit = await proc.stop(server.options.stopTimings);
  await gen.client?.close().catch(() => {});
  server.log.debug(() => `[${server.name}] process ${proc.pid} ended (${describeEnd(exit)})`);
  if (proc.escaped.length > 0)
    server.log.warn(
      `server '${server.name}' had started processes outside its process group (pid ${proc.escaped.join(', ')}); ` +
        'they were ended with it',
    );
}

/** An end nobody asked for, once the last messages on stdout have arrived: what it was. */
export async function judgeEnd(gen: Generation): Promise<{ error: string; exit: ExitInfo | undefined }> {
  await Promise.race([gen.transportClosed, delay(DRAIN_AFTER_EXIT_MS)]);
  if (gen.process && !gen.process.exit) await Promise.race([gen.process.exited, delay(DRAIN_AFTER_EXIT_MS)]);
  const exit = gen.process?.exit;
  const error = exit
    ? `exited unexpectedly (${describeEnd(exit)})`
    : (gen.lostBecause ?? 'closed its connection unexpectedly');
  return { error, exit };
}
