// A 2026-07-28 client's call to a 2025 child on the fast path. Such a child asks by sending
// requests in the middle of the call, and a 2026-07-28 client can only be asked by an
// input_required answer to its request, so the SDK's path holds every such call open
// (held-call.ts) in case the child asks. Most calls ask nothing: this one goes as a line, and
// this origin stands for it on the child's side while it runs (the child's questions go to
// the most recent call's origin). A question its request did not declare is refused by the
// upstream link before it gets here; the first one it did declare turns the call into a held
// call there and then: the client's request is answered with the round, the child's answer
// goes to the held call from then on, and later rounds are the SDK's path's, as for any held call.
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import type { InputOrigin, JSONRPCRequestLike } from '../../child/child-types.js';
import type { RequestLogs } from '../../child/requests/request-logs.js';
import { MuxError, WireError, relayedError } from '../../common/errors.js';
import type { HeldCall } from '../relay/held-call.js';
import type { InputCapableMethod, InputRelay } from '../relay/input-relay.js';
import { plainError, type ForwardedCall, type Params, type Shaping } from '../../protocol/forwarded-call.js';

/** The call as the origin needs it to hold it: who it goes to, and what the client named. */
export interface HoldableCall {
  call: ForwardedCall;
  request: { server: string; method: InputCapableMethod; requested: string };
  relay: InputRelay;
  /** The client's request was answered (with a round): its id is the client's again. */
  answered(): void;
}

/** Once held, a child's answer goes to the held call unshaped: the round that carries it shapes it. */
const TO_HELD_CALL: Shaping = {
  result: (result) => result,
  failure: (error) => ({ error: error as never }),
};

export class FastCallOrigin implements InputOrigin {
  readonly #declared: ClientCapabilities;
  readonly #holdable: HoldableCall | undefined;
  #held: HeldCall | undefined;
  readonly logs: RequestLogs | undefined;

  /**
   * `holdable`: absent for a request that cannot carry a question (completion/complete), or
   * whose child was not told it may ask; `logs`: what the request asked to hear (request-logs.ts).
   */
  constructor(declared: ClientCapabilities, holdable?: HoldableCall, logs?: RequestLogs) {
    this.#declared = declared;
    this.#holdable = holdable;
    this.logs = logs;
  }

  /** What the client declared: on its first request, then on the round being served. */
  get capabilities(): ClientCapabilities {
    return this.#held ? (this.#held.capabilities ?? {}) : this.#declared;
  }

  ask(request: JSONRPCRequestLike, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (!this.#holdable) return Promise.reject(new Error(`${request.method} cannot be put to this request`));
    this.#held ??= hold(this.#holdable, this.#declared);
    return this.#held.ask(request, signal);
  }
}

/** The fast-path call from now on a held call; its client's request gets the first round. */
function hold({ call, request, relay, answered }: HoldableCall, declared: ClientCapabilities): HeldCall {
  const { reply, shaping, id } = call;
  let settle!: { resolve: (result: Params) => void; reject: (error: unknown) => void };
  const childResult = new Promise<Params>((resolve, reject) => (settle = { resolve, reject }));
  const held = relay.holdStarted(
    (_origin, signal) => {
      // Given up (the client went away, or did not answer in time): the child hears it cancelled.
      signal.addEventListener(
        'abort',
        () => {
          call.lane?.cancel(call, 'the call was cancelled while it waited for input');
          settle.reject(signal.reason);
        },
        { once: true },
      );
      return childResult;
    },
    declared,
    request,
  );
  // Until the client's request is answered, progress still goes to it.
  held.call.onprogress = (progress) => {
    if (call.progressToken !== undefined)
      reply({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { ...progress, progressToken: call.progressToken },
      } as never);
  };
  call.shaping = TO_HELD_CALL;
  call.reply = (message) => {
    if ('method' in message) {
      // Progress goes to the round being served.
      const { progressToken: _, ...progress } = (message.params ?? {}) as Params;
      held.call.onprogress?.(progress as never);
    } else if ('error' in message) {
      const error = message.error as unknown;
      settle.reject(error instanceof Error ? error : relayedError(error as never));
    } else settle.resolve(message.result as Params);
  };
  held.first
    // The child ended before its question was put: the client gets the result as the fast path gives it.
    .then(async ({ done, result }) => ({ result: done ? await shaping.result(result, Infinity) : result }))
    .catch((error: unknown) =>
      error instanceof WireError
        ? { error: plainError(error) }
        : shaping.failure(error instanceof MuxError ? error : new MuxError('CHILD_ERROR', String(error))),
    )
    .then((body) => {
      held.call.onprogress = undefined;
      answered();
      reply({ jsonrpc: '2.0', id, ...body } as never);
    });
  return held.call;
}
