// An HTTP session's requests still unanswered when it closes (the client's DELETE, mcpmux's
// shutdown) are answered with an error first. The SDK's transport closes their streams
// without a word, and the SDK's client, which resumes such a stream only to find no session,
// then waits out its request timeout (60 s by default) for an answer that cannot come.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { OpenExchanges } from './open-exchanges.js';

/** The JSON-RPC error code of such an answer (an implementation-defined server error). */
export const SESSION_ENDED_CODE = -32000;

/**
 * Follows the requests `transport` takes and the answers it sends; its close answers those
 * left with an error saying `why()`, then closes. Wrap after anything else that wraps the
 * transport's onmessage (the fast path), so that every request is seen.
 */
export function answerUnansweredAtClose(transport: Transport, why: () => string): void {
  const exchanges = new OpenExchanges();
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    exchanges.read(message);
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    exchanges.sent(message);
    return send(message, options);
  };
  const close = transport.close.bind(transport);
  transport.close = async () => {
    await Promise.all(
      exchanges.owedIds().map((id) => {
        const answer: JSONRPCMessage = {
          jsonrpc: '2.0',
          id,
          error: { code: SESSION_ENDED_CODE, message: `${why()} [SESSION_ENDED]` },
        };
        exchanges.sent(answer);
        // A stream the client already closed takes nothing: nobody waits there.
        return send(answer, { relatedRequestId: id }).catch(() => {});
      }),
    );
    return close();
  };
}
