// What a child asks of a 2026-07-28 client, and the client's answers, across the eras. Such a
// client is asked by an input_required result (multi-round-trip): it answers the embedded
// requests and calls again with `inputResponses` and the `requestState` it was given.
// - A 2026-07-28 child asks the same way: its input_required result is passed to the client
//   as it is, with the child's own requestState sealed inside mcpmux's (nothing is kept here).
// - A 2025 child asks by sending requests in the middle of the call: the call is held open
//   (held-call.ts) and its questions go out as rounds until its result does.
// mcpmux's requestState is signed (the SDK's HMAC codec) and names the request it was issued
// for, so a client can neither forge one nor bring it to another tool.
import { randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolErrorCode,
  createRequestStateCodec,
  isInputRequiredResult,
} from '@modelcontextprotocol/server';
import type { ClientCapabilities, RequestStateCodec, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ChildConnection } from '../../child/child-connection.js';
import type { CallOptions } from '../../child/child-types.js';
import { MuxError, WireError } from '../../common/errors.js';
import { HeldCall, type HeldRun } from './held-call.js';

/** The requests whose results may be input_required (2026-07-28). */
export type InputCapableMethod = 'tools/call' | 'prompts/get' | 'resources/read';

/** Who serves a relayed request: a child, or mcpmux's own work that asks the client (the agent tool). */
export type RelayPeer = Pick<ChildConnection, 'name' | 'speaksModern' | 'request'>;

/** One forwarded request, as the relay needs it. */
export interface RelayTarget {
  connection: RelayPeer;
  method: InputCapableMethod;
  /** The params for the child (its own names), without the client's retry fields. */
  params: Record<string, unknown>;
  /** What the client named (exposed tool or prompt name, or URI): a requestState serves that request only. */
  requested: string;
}

/** What one request of a 2026-07-28 client brings to a multi-round-trip flow. */
export interface ClientRound {
  /** The requestState it echoed, as the server's verify hook decoded it (undefined: a first call). */
  state: unknown;
  inputResponses: Readonly<Record<string, unknown>> | undefined;
  /** What the client declared on this request's envelope. */
  capabilities: ClientCapabilities | undefined;
}

/** The request context fields a round is read from (the SDK's `ctx.mcpReq`). */
interface RoundContext {
  mcpReq: {
    requestState: () => unknown;
    inputResponses?: Readonly<Record<string, unknown>>;
    envelope?: Readonly<Record<string, unknown>>;
  };
}

export function clientRound(ctx: RoundContext): ClientRound {
  return {
    state: ctx.mcpReq.requestState(),
    inputResponses: ctx.mcpReq.inputResponses,
    capabilities: clientCapabilitiesOf(ctx),
  };
}

/** What the client of a 2026-07-28 request declared it can do (its `_meta` envelope). */
export function clientCapabilitiesOf(ctx: {
  mcpReq: { envelope?: Readonly<Record<string, unknown>> };
}): ClientCapabilities | undefined {
  return ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/** What mcpmux's requestState says: whose it is, and how to go on. */
const RelayState = z.discriminatedUnion('k', [
  // A 2026-07-28 child's flow: its own requestState, if it gave one.
  z.object({ k: z.literal('child'), for: z.string(), s: z.string().optional() }),
  // A held call to a 2025 child, at its round `r` (a state answers one round, once).
  // `at`: the replica of a cluster that holds it (the call lives in its memory).
  z.object({
    k: z.literal('held'),
    for: z.string(),
    id: z.string(),
    r: z.number(),
    at: z.string().optional(),
  }),
]);
type RelayState = z.infer<typeof RelayState>;

export interface InputRelayOptions {
  /** How long a round waits for the client's answer (and a requestState stays good). Default 600 s. */
  holdSeconds?: number;
  /** Held calls at most; past it the oldest is cancelled. Default 1000. */
  maxHeld?: number;
  /** What signs a requestState; default a key of this process. A cluster's replicas share one. */
  stateKey?: Uint8Array;
  /** A replica of a cluster: its name, in the state of a call it holds. */
  replica?: string;
}

/** How long a requestState outlives its hold (the codec's clock has a one-second grain). */
const STATE_GRACE_SECONDS = 60;

export class InputRelay {
  readonly #codec: RequestStateCodec<RelayState>;
  readonly #holdMs: number;
  readonly #maxHeld: number;
  readonly #replica: string | undefined;
  /** Held calls waiting for the client's next round, oldest first, with their expiry. */
  readonly #held = new Map<string, { call: HeldCall; expiry: NodeJS.Timeout }>();

  constructor(options: InputRelayOptions = {}) {
    const holdSeconds = options.holdSeconds ?? 600;
    this.#holdMs = holdSeconds * 1000;
    this.#maxHeld = options.maxHeld ?? 1000;
    this.#replica = options.replica;
    // A key of this process: a requestState is good only for the mcpmux that issued it (or,
    // given the cluster's, for any of its replicas). The codec counts whole seconds, so its
    // expiry gets a minute past the hold: a round that comes back late is refused by the
    // relay, which says how long it waited, not by a bare "expired".
    this.#codec = createRequestStateCodec<RelayState>({
      key: options.stateKey ?? randomBytes(32),
      ttlSeconds: holdSeconds + STATE_GRACE_SECONDS,
    });
  }

  /**
   * For the server's `requestState.verify`: a state mcpmux did not sign (or that expired) is
   * refused before any handler runs, with the spec's -32602.
   */
  readonly verify = async (state: string, ctx: ServerContext): Promise<RelayState> =>
    RelayState.parse(await this.#codec.verify(state, ctx));

  /** Forwards a request of a 2026-07-28 client; answers with the result, or the next input_required round. */
  async forward(
    target: RelayTarget,
    round: ClientRound,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    const boundTo = `${target.connection.name}\n${target.method}\n${target.requested}`;
    let state = round.state === undefined ? undefined : RelayState.parse(round.state);
    if (state && state.for !== boundTo)
      throw new WireError(
        ProtocolErrorCode.InvalidParams,
        `this requestState was issued for another request (it names ${state.for.split('\n').slice(1).join(' ')}); send it back only with the request that returned it`,
      );
    // A cluster's server placed on one replica: a round that came back through another replica's
    // hop carries, inside, the held call's own state, which is this replica's to go on with.
    if (state?.k === 'child' && state.s !== undefined && !target.connection.speaksModern)
      state = (await this.#heldInside(state.s)) ?? state;
    if (state?.k === 'held') {
      // Held by another replica, and this one reaches the server through a hop: the round goes there.
      if (state.at !== undefined && state.at !== this.#replica && target.connection.speaksModern) {
        const passed = { k: 'child' as const, for: boundTo, s: await this.#codec.mint(state) };
        return this.#passThrough(target, passed, boundTo, round, options);
      }
      return this.#resume(state, boundTo, round, options);
    }
    if (target.connection.speaksModern) return this.#passThrough(target, state, boundTo, round, options);
    const call = new HeldCall(
      (origin, signal, onprogress) =>
        target.connection.request(target.method, target.params, { origin, signal, onprogress }),
      round.capabilities,
    );
    call.onprogress = options.onprogress;
    call.logs = options.origin?.logs;
    return this.#nextRound(call, boundTo, options.signal);
  }

  /**
   * A call to a 2025 child that the forwarding fast path started, held from the child's first
   * question on as forward() holds one (fast-call-origin.ts): `run` resolves with the child's
   * result. `first` is the client's answer to the request that made the call: the round of
   * questions, or the result when the call ended first (`done`).
   */
  holdStarted(
    run: HeldRun,
    capabilities: ClientCapabilities | undefined,
    request: { server: string; method: InputCapableMethod; requested: string },
  ): { call: HeldCall; first: Promise<{ done: boolean; result: Record<string, unknown> }> } {
    const call = new HeldCall(run, capabilities);
    const boundTo = `${request.server}\n${request.method}\n${request.requested}`;
    return { call, first: this.#round(call, boundTo, undefined) };
  }

  /** The held call's state inside another replica's, when it is one of this cluster's. */
  async #heldInside(inner: string): Promise<Extract<RelayState, { k: 'held' }> | undefined> {
    try {
      const state = RelayState.parse(await this.#codec.verify(inner, undefined as never));
      return state.k === 'held' ? state : undefined;
    } catch {
      return undefined; // a 2026-07-28 server's own state: not ours to open
    }
  }

  /** Cancels every held call (mcpmux is stopping). */
  close(): void {
    for (const id of [...this.#held.keys()])
      this.#release(id)?.cancel(new MuxError('CALL_CANCELLED', 'mcpmux is stopping'));
  }

  /** How many calls wait for a client's answer now. */
  get heldCount(): number {
    return this.#held.size;
  }

  async #passThrough(
    target: RelayTarget,
    state: Extract<RelayState, { k: 'child' }> | undefined,
    boundTo: string,
    round: ClientRound,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    const params = {
      ...target.params,
      ...(round.inputResponses && { inputResponses: round.inputResponses }),
      ...(state?.s !== undefined && { requestState: state.s }),
    };
    const result = await target.connection.request(target.method, params, {
      ...options,
      allowInputRequired: true,
    });
    return isInputRequiredResult(result) ? this.#sealChildRound(result, boundTo) : result;
  }

  /**
   * A 2026-07-28 child's input_required result as its client gets it, for a request that did
   * not come through forward (the forwarding fast path's first calls): the child's
   * requestState sealed inside mcpmux's, bound to that server, method and name.
   */
  sealChildRound(
    result: Record<string, unknown>,
    request: { server: string; method: InputCapableMethod; requested: string },
  ): Promise<Record<string, unknown>> {
    return this.#sealChildRound(result, `${request.server}\n${request.method}\n${request.requested}`);
  }

  async #sealChildRound(result: Record<string, unknown>, boundTo: string): Promise<Record<string, unknown>> {
    const childState = result['requestState'];
    return {
      resultType: 'input_required',
      ...(result['inputRequests'] !== undefined && { inputRequests: result['inputRequests'] }),
      requestState: await this.#codec.mint({
        k: 'child',
        for: boundTo,
        ...(typeof childState === 'string' && { s: childState }),
      }),
    };
  }

  async #resume(
    state: Extract<RelayState, { k: 'held' }>,
    boundTo: string,
    round: ClientRound,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    if (state.at !== undefined && state.at !== this.#replica)
      throw new WireError(
        ProtocolErrorCode.InvalidParams,
        `this call is held by replica ${state.at} and this round reached replica ${this.#replica}: a call to a server that asks in the middle of it (a 2025 server) goes on only where it began; call again without requestState`,
      );
    const call = this.#held.get(state.id)?.call.rounds === state.r ? this.#release(state.id) : undefined;
    if (!call)
      throw new WireError(
        ProtocolErrorCode.InvalidParams,
        `the call this requestState belongs to no longer waits for input (it was answered already, or ${this.#holdMs / 1000} s passed); call again without requestState`,
      );
    call.capabilities = round.capabilities;
    call.onprogress = options.onprogress;
    call.logs = options.origin?.logs;
    call.answer(round.inputResponses ?? {});
    return this.#nextRound(call, boundTo, options.signal);
  }

  async #nextRound(
    call: HeldCall,
    boundTo: string,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    return (await this.#round(call, boundTo, signal)).result;
  }

  /** The call's next round as the client gets it: its result (done), or its questions with a requestState. */
  async #round(
    call: HeldCall,
    boundTo: string,
    signal: AbortSignal | undefined,
  ): Promise<{ done: boolean; result: Record<string, unknown> }> {
    const round = await call.next(signal ?? new AbortController().signal);
    if (round.kind === 'done') return { done: true, result: round.result };
    this.#hold(call);
    return {
      done: false,
      result: {
        resultType: 'input_required',
        inputRequests: round.inputRequests,
        requestState: await this.#codec.mint({
          k: 'held',
          for: boundTo,
          id: call.id,
          r: call.rounds,
          ...(this.#replica !== undefined && { at: this.#replica }),
        }),
      },
    };
  }

  /** Keeps a call until the client's next round, for as long as its requestState is good. */
  #hold(call: HeldCall): void {
    if (this.#held.size >= this.#maxHeld) {
      const oldest = this.#held.keys().next().value!;
      this.#release(oldest)?.cancel(
        new MuxError(
          'CALL_CANCELLED',
          `more than ${this.#maxHeld} calls waited for input; the oldest was cancelled`,
        ),
      );
    }
    const expiry = setTimeout(() => {
      this.#release(call.id)?.cancel(
        new MuxError('CALL_CANCELLED', `the client did not answer within ${this.#holdMs / 1000} s`),
      );
    }, this.#holdMs);
    expiry.unref();
    this.#held.set(call.id, { call, expiry });
  }

  #release(id: string): HeldCall | undefined {
    const entry = this.#held.get(id);
    if (!entry) return undefined;
    clearTimeout(entry.expiry);
    this.#held.delete(id);
    return entry.call;
  }
}
