// A session's messages past the SDK's server, whichever HTTP transport it has: the forwarding
// fast path in front of the SDK's dispatch, children's log messages written straight to it,
// and an answer for each request still open when it closes.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import { answerThatSerializes } from '../protocol/json-serialization.js';
import { answerUnansweredAtClose } from './unanswered-requests.js';

/** One session of a client, as the HTTP server serves it (the MCP server of mux-server.ts). */
export interface HttpSession {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
  /**
   * Offers a message of the client to the forwarding fast path before the SDK dispatches it:
   * true when it was taken, and its answer (and progress) will come through `reply`.
   */
  claim?(message: JSONRPCMessage, reply: (message: JSONRPCMessage) => void, shared: true): boolean;
  /** Writes to the client past the SDK's server (children's log messages). */
  useWire?(post: (message: JSONRPCMessage) => void): void;
}

export function wireSession(
  transport: Transport,
  session: HttpSession,
  logger: Logger,
  /** Why the session closed, for the requests it leaves unanswered. */
  closedWhy: () => string,
): void {
  if (session.claim) offerToFastPath(transport, session.claim.bind(session), logger);
  session.useWire?.((message) => sendOrLog(transport, logger, message));
  answerUnansweredAtClose(transport, closedWhy);
}

/**
 * The SDK's streamable HTTP transport serializes each message itself, and one it cannot
 * (a child's result nested too deeply) it reports to onerror and drops, closing the
 * request's stream answerless: the client would wait for ever. Each answer is checked first.
 */
export function sendOnlyWritableAnswers(transport: Transport): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(answerThatSerializes(message), options);
}

/**
 * Puts the session's fast path in front of the SDK's dispatch: a request it takes is answered
 * on the request's own stream (the SDK's transport finds it by the request id), as the SDK
 * answers one; what it does not take goes to the SDK as before.
 */
function offerToFastPath(
  transport: Transport,
  claim: NonNullable<HttpSession['claim']>,
  logger: Logger,
): void {
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const id = 'id' in message ? message.id : undefined;
    const reply = (answer: JSONRPCMessage) =>
      sendOrLog(transport, logger, answer, id === undefined ? {} : { relatedRequestId: id });
    if (claim(message, reply, true)) return;
    dispatch?.(message, extra);
  };
}

/** Sends with nobody waiting: a message the client can no longer get (its stream closed) is only logged. */
function sendOrLog(
  transport: Transport,
  logger: Logger,
  message: JSONRPCMessage,
  options: { relatedRequestId?: string | number } = {},
): void {
  transport
    .send(message, options)
    .catch((error: unknown) =>
      logger.debug(
        () => `HTTP session ${transport.sessionId}: a message was not delivered: ${messageOf(error)}`,
      ),
    );
}
