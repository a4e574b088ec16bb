// What is still open between mcpmux and a client (its stdio client; an HTTP session's, for the
// answers it owes when it closes, unanswered-requests.ts): the client's requests handed to the
// SDK and not yet answered, and mcpmux's requests to the client (a child's sampling,
// elicitation, roots) not yet answered. When the client closes its input, the first are what
// mcpmux still owes it before it stops (a script piped into mcpmux, as into any server built
// on an MCP SDK, gets every answer), and the second can never be answered: they fail at once
// instead of waiting for their timeouts, and the calls waiting on them with them.
// The fast path's requests are counted by the fast path itself (FastPath.open), which keeps
// them in a table built for the hot path; this one sees only what goes through the SDK.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { cancelledRequestId } from '../protocol/request-ids.js';

type Id = string | number;

/** The error a request of mcpmux's gets once the client cannot answer it. */
export const INPUT_CLOSED_CODE = -32000;

export class OpenExchanges {
  /** By id, how many times (a client may reuse an id once its request is answered, even before the answer is written). */
  readonly #owed = new Map<Id, number>();
  #owedCount = 0;
  readonly #asked = new Set<Id>();
  #inputEnded = false;

  /** A message of the client's, handed to the SDK. */
  read(message: JSONRPCMessage): void {
    if ('method' in message) {
      if ('id' in message) {
        // A listen stream is answered only when it ends, which the client's leaving is.
        if (message.method !== 'subscriptions/listen') this.#owe(message.id);
      } else {
        // A cancelled request gets no answer (the SDK drops it).
        const cancelled = cancelledRequestId(message);
        if (cancelled !== undefined) this.#settle(cancelled);
      }
    } else if ('id' in message) this.#asked.delete(message.id as Id);
  }

  /** A message of mcpmux's, as it is sent. A request sent after the input ended: its failure, to hand back. */
  sent(message: JSONRPCMessage): JSONRPCMessage | undefined {
    if (!('id' in message)) {
      // A question the SDK gave up on (its timeout) is cancelled, and no longer waits.
      const cancelled = cancelledRequestId(message);
      if (cancelled !== undefined) this.#asked.delete(cancelled);
      return undefined;
    }
    if (!('method' in message)) {
      this.#settle(message.id as Id);
      return undefined;
    }
    if (this.#inputEnded) return inputClosedAnswer(message.id);
    this.#asked.add(message.id);
    return undefined;
  }

  /** The client closed its input: the failures of what mcpmux had asked it, to hand back. */
  inputEnded(): JSONRPCMessage[] {
    this.#inputEnded = true;
    const failures = [...this.#asked].map(inputClosedAnswer);
    this.#asked.clear();
    return failures;
  }

  /** Requests of the client's that the SDK has not answered yet. */
  get owed(): number {
    return this.#owedCount;
  }

  /** Their ids. */
  owedIds(): Id[] {
    return [...this.#owed.keys()];
  }

  #owe(id: Id): void {
    this.#owed.set(id, (this.#owed.get(id) ?? 0) + 1);
    this.#owedCount++;
  }

  #settle(id: Id): void {
    const times = this.#owed.get(id);
    if (times === undefined) return;
    if (times > 1) this.#owed.set(id, times - 1);
    else this.#owed.delete(id);
    this.#owedCount--;
  }
}

function inputClosedAnswer(id: Id): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: INPUT_CLOSED_CODE, message: 'the client closed its input (stdin), so it cannot answer' },
  };
}
