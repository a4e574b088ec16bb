// mcpmux's one client on stdio, in either era. The SDK's serveStdio reads the opening
// message and pins the connection to an era: a 2025 client opens with initialize, a
// 2026-07-28 client with server/discover (or any request carrying the _meta envelope).
// Each era gets its own session object from the same factory; a session built for an
// opening that was then abandoned (an auto-negotiating client's discover, answered, then
// followed by initialize) is closed when the next one replaces it.
import type { Era } from '../protocol/era.js';
import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import type { ClientCapabilities, JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import type { Logger } from '../common/log.js';
import { messageOf } from '../common/errors.js';
import { throttledWarning } from '../common/throttled-warning.js';
import { cancelledRequestId } from '../protocol/request-ids.js';
import { StdioServerTransport, type StdioServerTransportOptions } from './stdio-server-transport.js';
import { listenedResources } from '../session/list-changes/resource-watch.js';
import type { Reply } from '../protocol/forwarded-call.js';

/** What serving needs of a session (MuxServer). */
export interface StdioSession {
  readonly server: Server;
  /** Settles when the client can be served (legacy: after initialize; modern: at once). */
  readonly initialized: Promise<void>;
  close(): Promise<void>;
  /** A 2026-07-28 client's listen stream named resources to hear updates of; and its end. */
  watchResources?(stream: string | number, uris: readonly string[]): Promise<void> | undefined;
  unwatchResources?(stream: string | number): void;
  /** Writes to the client past the SDK's server (children's log messages). */
  useWire?(post: (message: JSONRPCMessage) => void): void;
  /** Takes a message on the forwarding fast path (answered through `reply`), or leaves it (false). */
  claim?(message: JSONRPCMessage, reply: Reply): boolean;
  /** The same for a line before it is parsed (a plain tools/call, whose arguments are never parsed). */
  claimLine?(line: string, reply: Reply): boolean;
  /** Requests it took on the fast path and has not answered yet. */
  openRequests?(): number;
}

export interface StdioServingOptions {
  newSession: (era: Era) => StdioSession;
  logger: Logger;
  /** Largest message taken from the client. Default 16 MiB. */
  maxMessageBytes?: number;
  /**
   * A 2025 client's initialize answer, and a 2026-07-28 client's opening server/discover answer,
   * wait for `wait` (the configured servers' start, bounded) and then carry `instructions()`:
   * a client reads instructions only there, so the servers' own reach it only if they have
   * started by then.
   */
  opening?: { wait: () => Promise<unknown> | undefined; instructions: () => string };
  /** A 2026-07-28 request's client capabilities (its `_meta` envelope), as it arrives. */
  onRequestCapabilities?: (capabilities: ClientCapabilities) => void;
}

export interface StdioServing {
  /**
   * Settles once the client has opened for real: initialized (legacy; or a request other
   * than ping after its initialize, from a client that never sends notifications/initialized,
   * which would otherwise wait for the configured servers for ever), or made a request
   * other than server/discover (modern). A probe that only asks server/discover and goes
   * away never settles it.
   */
  readonly ready: Promise<void>;
  /**
   * Settles once the client has said what it can do, which is what the configured servers
   * are told: its initialize or opening discover processed (the answer waits for them), or `ready`.
   */
  readonly declared: Promise<void>;
  /**
   * Once the client has closed its input: settles when every request read from it has been
   * answered and written, or once `stopWaiting` says so, with the number still open.
   */
  finishAnswering(stopWaiting: () => boolean): Promise<number>;
  close(): Promise<void>;
}

/** The session open now, and the era it was opened in. */
type Current = { session: StdioSession; era: Era } | undefined;

export function serveMuxOverStdio(options: StdioServingOptions): StdioServing {
  const { logger } = options;
  let current: Current;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let markDeclared: () => void = () => {};
  const declared = Promise.race([ready, new Promise<void>((resolve) => (markDeclared = resolve))]);
  // The opening answer (initialize; a 2026-07-28 client's first discover): once the SDK has
  // made it the client's capabilities are known (a discover carries them in its envelope), and
  // the configured servers are spoken to; it goes out when they have started (or failed), or
  // after a few seconds (StartupGate.openingWait), with their instructions.
  const holdOpening = (id: string | number) =>
    transport.holdAnswer(id, async (answer) => {
      const opening = options.opening;
      if (!opening || !('result' in answer)) return answer;
      markDeclared();
      await opening.wait();
      return { ...answer, result: { ...answer.result, instructions: opening.instructions() } };
    });
  const transport = new StdioServerTransport({
    ...inputWarnings(logger),
    ...(options.maxMessageBytes !== undefined && { maxMessageBytes: options.maxMessageBytes }),
    claim: (message) => current?.session.claim?.(message, reply) ?? false,
    claimLine: (line) => current?.session.claimLine?.(line, reply) ?? false,
    onIncoming: (message) => seeIncoming(message, { current, holdOpening, markReady, options }),
  });
  const reply: Reply = Object.assign((message: JSONRPCMessage) => transport.post(message), {
    pieces: (pieces: readonly (string | Buffer)[]) => transport.postPieces(pieces),
  });
  const handle: StdioServerHandle = serveStdio(
    ({ era }) => {
      const previous = current?.session;
      const session = options.newSession(era);
      current = { session, era };
      session.useWire?.(reply);
      if (era === 'legacy') void session.initialized.then(() => current?.session === session && markReady());
      if (previous)
        void previous
          .close()
          .catch((error: unknown) => logger.debug(() => `closing a replaced session: ${messageOf(error)}`));
      logger.debug(() => `stdio client opened a ${era} session`);
      return session.server;
    },
    { transport, onerror: (error) => logger.debug(() => `stdio: ${messageOf(error)}`) },
  );
  const open = () => (current?.session.openRequests?.() ?? 0) + transport.unanswered;
  return {
    ready,
    declared,
    finishAnswering: (stopWaiting) => allAnswered(open, () => transport.flushed, stopWaiting),
    async close() {
      await handle.close();
      await current?.session.close();
    },
  };
}

/** Settles once no request is open and every answer is written, or once `stopWaiting` says so: with the number open. */
async function allAnswered(
  open: () => number,
  flushed: () => boolean,
  stopWaiting: () => boolean,
): Promise<number> {
  // Polled: this runs once, at the end, and the answers come from several places.
  while ((open() > 0 || !flushed()) && !stopWaiting())
    await new Promise((resolve) => setTimeout(resolve, 10));
  return open();
}

/** What the client's input is warned of: lines that are not JSON-RPC, messages dropped, reading paused. */
function inputWarnings(
  logger: Logger,
): Pick<StdioServerTransportOptions, 'onSkippedLine' | 'onDropped' | 'onInputPaused'> {
  /** When the client was last warned of for not reading its answers (Date.now()). */
  let inputPauseWarned = 0;
  const skippedLine = throttledWarning(
    logger,
    (count, seconds) => `skipped ${count} more lines from the client that are not JSON-RPC in ${seconds} s`,
  );
  return {
    onSkippedLine: (line) =>
      skippedLine(() => `skipped a line from the client that is not JSON-RPC: ${line.slice(0, 200)}`),
    onDropped: (why) => logger.warn(why),
    onInputPaused: (why) => {
      // A client that reads slowly while it writes fast may pass the bound again and again: a warning a minute.
      if (why !== undefined && Date.now() - inputPauseWarned >= 60_000) {
        inputPauseWarned = Date.now();
        logger.warn(why);
      } else logger.debug(() => why ?? 'the client reads its answers again, and its requests are read again');
    },
  };
}

/**
 * A message of the client, seen before the SDK takes it: its opening held for the configured
 * servers, the moment the client is ready (its servers may be spoken to), a 2026-07-28 client's
 * declared capabilities, and the resources its listen streams name.
 */
function seeIncoming(
  message: JSONRPCMessage,
  {
    current,
    holdOpening,
    markReady,
    options,
  }: {
    current: Current;
    holdOpening: (id: string | number) => void;
    markReady: () => void;
    options: StdioServingOptions;
  },
): void {
  const method = (message as { method?: unknown }).method;
  if (typeof method !== 'string') return;
  if (method === 'initialize' && 'id' in message) holdOpening(message.id as string | number);
  // A 2026-07-28 client reads instructions only in the answer to its opening discover.
  else if (method === 'server/discover' && 'id' in message && !current)
    holdOpening(message.id as string | number);
  // A pinned 2026-07-28 client may open with its first real request: no session exists yet
  // while this runs (the SDK makes it next), and that request must not wait for an
  // initialize that never comes. An initialize opens a 2025 session, even after a discover
  // probe's 2026-07-28 one (which it replaces): the servers wait for what it declares.
  const modern = method !== 'initialize' && current?.era !== 'legacy';
  if (!modern) {
    if (current && 'id' in message && method !== 'initialize' && method !== 'ping') markReady();
    return;
  }
  const declared = envelopeCapabilities(message);
  if (declared) options.onRequestCapabilities?.(declared);
  if ('id' in message && method !== 'server/discover') markReady();
  if (!current) return;
  // The SDK serves listen streams itself; the resources they name are subscribed at the children here.
  if (method === 'subscriptions/listen' && 'id' in message)
    current.session.watchResources?.(message.id as string | number, listenedResources(message));
  const cancelled = cancelledRequestId(message);
  if (cancelled !== undefined) current.session.unwatchResources?.(cancelled);
}

/** The client capabilities a 2026-07-28 request carries in its `_meta`, if any. */
function envelopeCapabilities(message: JSONRPCMessage): ClientCapabilities | undefined {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const declared = meta?.[CLIENT_CAPABILITIES_META_KEY];
  return typeof declared === 'object' && declared !== null ? (declared as ClientCapabilities) : undefined;
}
