// The forwarding fast path. A request of the client that goes to one child (a child tool's
// tools/call, directly or through call_tool; prompts/get; resources/read;
// completion/complete) travels as a JSON-RPC line with its id and progress token remapped,
// not through the SDK's Protocol on either side: no schema checks (the client checks what it
// gets, the child what it is sent), no per-request abort controllers or handler contexts.
// What the slow path does for such a request is done here too: names and URIs mapped to the
// child's, progress passed back under the client's token, cancellation passed on under the
// child's id, --call-timeout reset by progress, every call of a child settled at once when it
// crashes or is removed, a large tool result kept and cut, and errors shaped as before.
//
// Only this module knows the id and progress-token maps. It takes a request only when all of
// it is known to be plain: a client on stdio (after initialize, for a 2025 one), the
// configured servers started, a running child on stdio of the same era (or a 2025 child
// told it may not ask anything, for a 2026-07-28 client), and not a later round of a
// 2026-07-28 flow. Everything else (an unknown name, bad params, a child still starting, a
// child's questions carried across eras) goes to the SDK's path, which answers as it always has.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  isInputRequiredResult,
} from '@modelcontextprotocol/server';
import type { JSONRPCMessage, LoggingLevel } from '@modelcontextprotocol/server';
import type { ActivationPool } from '../catalog/activation-pool.js';
import type { ChildConnection } from '../child/child-connection.js';
import { childCapabilities } from '../child/child-client.js';
import type { InputCapableMethod, InputRelay } from '../proxy/input-relay.js';
import { MuxError, relayedError } from '../errors.js';
import { withExposedUris } from '../proxy/catalog-handlers.js';
import { errorResult, toJsonRpcError } from '../proxy/results.js';
import type { Registry } from '../registry/registry.js';
import type { StartupGate } from '../registry/startup-gate.js';
import type { ResultStore } from '../results/result-store.js';
import { forwardedParams, type CatalogRouter } from '../router/catalog-router.js';

type Id = string | number;
type Params = Record<string, unknown>;
/** Sends a message to the client. */
export type Reply = (message: JSONRPCMessage) => void;

/** How a child's answer becomes the client's, per method. */
interface Shaping {
  /** The child's result, with the length of the line it came on. */
  result(result: Params, bytes: number): Params | Promise<Params>;
  /** mcpmux's own verdict (timeout, crash, removal): tools/call answers it as an isError result. */
  failure(error: MuxError): { result: Params } | { error: { code: number; message: string; data?: unknown } };
}

/** One request in flight on the fast path, from the client's id to the child's and back. */
class ForwardedCall {
  lane: ChildLane | undefined;
  childId = '';
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: Id,
    /** The client's progress token, when it asked for progress. */
    readonly progressToken: Id | undefined,
    /** What the call is, for the timeout's message: `tool 'x'`, or the method. */
    readonly what: string,
    readonly reply: Reply,
    readonly shaping: Shaping,
    /** Called once when the call is over, however it ended. */
    readonly done: () => void,
  ) {}

  answer(body: { result: Params } | { error: unknown }): void {
    this.reply({ jsonrpc: '2.0', id: this.id, ...body } as JSONRPCMessage);
  }
}

export interface ChildLaneOptions {
  /** The server's name, for the timeout's message. */
  server: string;
  /** Writes a message to the child. */
  send: (message: JSONRPCMessage) => Promise<void>;
  /** --call-timeout: how long a call may go without an answer or progress. */
  callTimeoutMs: number;
  /** What the fast path must know of the child to choose (and shape) a call. */
  peer: {
    /** Whether it speaks 2026-07-28. */
    modern(): boolean;
    /** Whether it was told its client can be asked something (sampling, elicitation, roots). */
    mayAsk(): boolean;
    /** The log level a 2026-07-28 child is told on each request, once a client set one. */
    logLevel(): LoggingLevel | undefined;
  };
}

/**
 * One child generation's side: the calls sent to it, by the id it was given (which is also
 * the progress token it was given). Its transport offers it every message first (divert).
 */
export class ChildLane {
  readonly #options: ChildLaneOptions;
  readonly #pending = new Map<string, ForwardedCall>();
  #next = 0;

  constructor(options: ChildLaneOptions) {
    this.#options = options;
  }

  get peer(): ChildLaneOptions['peer'] {
    return this.#options.peer;
  }

  /** Sends a call to the child under an id of this lane (never a number, so never one the SDK's client uses). */
  start(call: ForwardedCall, method: string, params: Params): void {
    const childId = `mcpmux-${++this.#next}`;
    call.lane = this;
    call.childId = childId;
    this.#pending.set(childId, call);
    if (call.progressToken !== undefined)
      params = { ...params, _meta: { ...(params['_meta'] as Params | undefined), progressToken: childId } };
    this.#arm(call);
    // A write to a child that died fails; its crash (end) settles the call with the reason.
    this.#options.send({ jsonrpc: '2.0', id: childId, method, params }).catch(() => {});
  }

  /** A message from the child: takes the answers and progress of this lane's calls. */
  divert(message: JSONRPCMessage, bytes: number): boolean {
    if (!('method' in message)) {
      if (typeof message.id !== 'string') return false;
      const call = this.#pending.get(message.id);
      if (!call) return false;
      this.#settle(call);
      if ('error' in message) call.answer({ error: plainError(relayedError(message.error)) });
      else this.#answerResult(call, message.result as Params, bytes);
      return true;
    }
    if ('id' in message || message.method !== 'notifications/progress') return false;
    const params = message.params as { progressToken?: unknown } | undefined;
    const call =
      typeof params?.progressToken === 'string' ? this.#pending.get(params.progressToken) : undefined;
    if (!call) return false;
    this.#arm(call);
    call.reply({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { ...params, progressToken: call.progressToken },
    } as JSONRPCMessage);
    return true;
  }

  /** The client cancelled the call (or went away): the child hears it under its own id. */
  cancel(call: ForwardedCall, reason: string): void {
    if (this.#pending.get(call.childId) !== call) return;
    this.#settle(call);
    this.#options
      .send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: call.childId, reason },
      })
      .catch(() => {});
  }

  /** The generation ended (crash, removal, reload, shutdown): every call gets the reason at once. */
  end(error: MuxError): void {
    for (const call of [...this.#pending.values()]) {
      this.#settle(call);
      call.answer(call.shaping.failure(error));
    }
  }

  /** (Re)starts the call's timeout: a call may go --call-timeout without an answer or progress. */
  #arm(call: ForwardedCall): void {
    if (call.timer) clearTimeout(call.timer);
    call.timer = setTimeout(() => this.#timedOut(call), this.#options.callTimeoutMs);
    call.timer.unref();
  }

  #timedOut(call: ForwardedCall): void {
    this.cancel(call, 'timed out');
    call.answer(
      call.shaping.failure(callTimeoutError(this.#options.server, call.what, this.#options.callTimeoutMs)),
    );
  }

  #settle(call: ForwardedCall): void {
    this.#pending.delete(call.childId);
    if (call.timer) clearTimeout(call.timer);
    call.done();
  }

  #answerResult(call: ForwardedCall, result: Params, bytes: number): void {
    const shaped = call.shaping.result(result, bytes);
    if (!(shaped instanceof Promise)) return call.answer({ result: shaped });
    shaped.then(
      (r) => call.answer({ result: r }),
      (error: unknown) => call.answer(call.shaping.failure(new MuxError('CHILD_ERROR', String(error)))),
    );
  }
}

/** The timeout's verdict, the same on both paths. */
export function callTimeoutError(server: string, what: string, timeoutMs: number): MuxError {
  return new MuxError(
    'CALL_TIMEOUT',
    `server '${server}' did not answer ${what} within ${timeoutMs / 1000} s (no progress either); the request was cancelled`,
  );
}

export interface FastPathOptions {
  registry: Registry;
  router: CatalogRouter;
  /** Kept and cut: tool results larger than its bound. */
  results: ResultStore;
  /** Search mode: a called tool stays listed. */
  pool?: ActivationPool | undefined;
  /** While the servers given at start are starting, requests take the slow path (which waits). */
  startup?: StartupGate | undefined;
  /** The client's era: a 2026-07-28 client's calls carry an envelope and may come back input_required. */
  era: 'legacy' | 'modern';
  /** Seals a 2026-07-28 child's input_required round for a 2026-07-28 client. */
  relay: InputRelay;
  /** mcpmux's serverInfo, which a 2026-07-28 result names. */
  serverInfo: { name: string; version: string };
}

/** The client's side: one session's requests in flight, by the client's id. */
export class FastPath {
  readonly #options: FastPathOptions;
  readonly #inFlight = new Map<Id, ForwardedCall>();
  readonly #toolShaping: Shaping;

  constructor(options: FastPathOptions) {
    this.#options = options;
    const { results } = options;
    this.#toolShaping = {
      // A line no longer than the bound cannot hold more text than the bound: no need to count.
      result: (result, bytes) => (bytes <= results.maxBytes ? result : results.fit(result as never)),
      failure: (error) => ({ result: errorResult(`${error.message} [${error.code}]`) as Params }),
    };
  }

  /**
   * Takes a message of the client if it is the fast path's: a request it can forward, or the
   * cancellation of one it forwarded. Anything else is left to the SDK (false).
   */
  claim(message: JSONRPCMessage, reply: Reply): boolean {
    if (!('method' in message)) return false;
    if (!('id' in message)) {
      if (message.method !== 'notifications/cancelled') return false;
      const { requestId, reason } = (message.params ?? {}) as { requestId?: Id; reason?: unknown };
      const call = requestId === undefined ? undefined : this.#inFlight.get(requestId);
      if (!call) return false;
      call.lane!.cancel(call, typeof reason === 'string' ? reason : 'cancelled by the client');
      return true;
    }
    if (this.#options.startup?.wait() || this.#inFlight.has(message.id)) return false;
    const params = message.params as Params | undefined;
    if (!isObject(params)) return false;
    // A 2026-07-28 client's later round brings mcpmux's requestState: verified on the SDK's
    // path, as is a request whose envelope is not the one its era requires.
    if ('requestState' in params || 'inputResponses' in params) return false;
    if (this.#options.era === 'modern' && !hasModernEnvelope(params)) return false;
    let target: Target | undefined;
    try {
      target = this.#target(message.method, params);
    } catch {
      return false; // not found, or not plain: the slow path says why
    }
    const lane = target?.connection.lane;
    if (!target || !lane) return false;
    const modern = this.#options.era === 'modern';
    const childModern = lane.peer.modern();
    // The SDK's path, where a child's questions are carried across eras: a 2026-07-28 child's
    // input_required is fulfilled for a 2025 client, and a 2025 child that may ask gets its
    // call held for a 2026-07-28 client.
    if (modern ? !childModern && lane.peer.mayAsk() : childModern) return false;
    if (modern) target = this.#forModernClient(target, message.method, childModern, lane.peer.logLevel());
    const token = (params['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
    const id = message.id;
    const call = new ForwardedCall(
      id,
      typeof token === 'string' || typeof token === 'number' ? token : undefined,
      target.what,
      reply,
      target.shaping,
      () => this.#inFlight.delete(id),
    );
    this.#inFlight.set(id, call);
    if (target.touch) this.#options.pool?.touch(target.touch);
    lane.start(call, message.method, target.params);
    return true;
  }

  /** The client went away: the children stop working on its calls. */
  close(): void {
    for (const call of [...this.#inFlight.values()]) call.lane!.cancel(call, 'the client went away');
  }

  /**
   * A 2026-07-28 client's request: a 2026-07-28 child is told in the envelope who asks
   * (mcpmux) and what the caller can do, as the SDK's path tells it; its input_required round
   * goes back with its requestState sealed; a 2025 child's result gets what a 2026-07-28
   * result carries (resultType, serverInfo).
   */
  #forModernClient(
    target: Target,
    method: string,
    childModern: boolean,
    logLevel: LoggingLevel | undefined,
  ): Target {
    const { relay, serverInfo } = this.#options;
    const meta = (target.params['_meta'] ?? {}) as Params;
    const params = childModern
      ? {
          ...target.params,
          _meta: {
            ...meta,
            [CLIENT_INFO_META_KEY]: serverInfo,
            [CLIENT_CAPABILITIES_META_KEY]: childCapabilities(
              (meta[CLIENT_CAPABILITIES_META_KEY] ?? {}) as never,
            ),
            ...(logLevel && { [LOG_LEVEL_META_KEY]: logLevel }),
          },
        }
      : target.params;
    const complete = (result: Params): Params =>
      childModern
        ? result
        : {
            ...result,
            resultType: 'complete',
            _meta: { [SERVER_INFO_META_KEY]: serverInfo, ...(result['_meta'] as Params | undefined) },
          };
    const base = target.shaping;
    const request = {
      server: target.connection.name,
      method: method as InputCapableMethod,
      requested: target.requested,
    };
    const inputCapable = method === 'tools/call' || method === 'prompts/get' || method === 'resources/read';
    return {
      ...target,
      params,
      shaping: {
        result: (result, bytes) => {
          if (inputCapable && isInputRequiredResult(result)) return relay.sealChildRound(result, request);
          const shaped = base.result(result, bytes);
          return shaped instanceof Promise ? shaped.then(complete) : complete(shaped);
        },
        failure: (error) => {
          const answer = base.failure(error);
          return 'result' in answer ? { result: complete(answer.result) } : answer;
        },
      },
    };
  }

  /** Where a request goes, or undefined when it is not one for the fast path. */
  #target(method: string, params: Params): Target | undefined {
    const { registry, router } = this.#options;
    const snapshot = registry.snapshot;
    switch (method) {
      case 'tools/call': {
        let call = params;
        if (params['name'] === 'call_tool') {
          const inner = params['arguments'];
          if (!isObject(inner) || Object.keys(inner).some((k) => k !== 'name' && k !== 'arguments')) return;
          call = { ...inner, ...(params['_meta'] !== undefined && { _meta: params['_meta'] }) };
        }
        const name = call['name'];
        if (typeof name !== 'string' || !optionalObject(call['arguments'])) return;
        const route = router.table(snapshot, 'tools').byKey.get(name);
        if (!route) return;
        return {
          connection: route.connection,
          requested: name,
          params: forwardedParams(call as { name: string }, route.item.name),
          what: `tool '${route.item.name}'`,
          shaping: this.#toolShaping,
          touch: name,
        };
      }
      case 'prompts/get': {
        const name = params['name'];
        if (typeof name !== 'string' || !optionalObject(params['arguments'])) return;
        const route = router.table(snapshot, 'prompts').byKey.get(name);
        if (!route) return;
        return {
          connection: route.connection,
          requested: name,
          params: forwardedParams(params as { name: string }, route.item.name),
          what: method,
          shaping: PLAIN,
        };
      }
      case 'resources/read': {
        const uri = params['uri'];
        if (typeof uri !== 'string') return;
        const target = router.resolveResource(snapshot, uri);
        return {
          connection: target.connection,
          requested: uri,
          params: withoutProgressToken({ ...params, uri: target.uri }),
          what: method,
          shaping: {
            result: (result) => withExposedUris(result, target.uri, uri),
            failure: PLAIN.failure,
          },
        };
      }
      case 'completion/complete': {
        const ref = params['ref'];
        const argument = params['argument'];
        if (!isObject(ref) || !isObject(argument)) return;
        if (typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string') return;
        if (ref['type'] === 'ref/prompt' && typeof ref['name'] === 'string') {
          const route = router.route(snapshot, 'prompts', ref['name']);
          return {
            connection: route.connection,
            requested: ref['name'],
            params: withoutProgressToken({ ...params, ref: { ...ref, name: route.item.name } }),
            what: method,
            shaping: PLAIN,
          };
        }
        if (ref['type'] === 'ref/resource' && typeof ref['uri'] === 'string') {
          const target = router.resolveTemplate(snapshot, ref['uri']);
          return {
            connection: target.connection,
            requested: ref['uri'],
            params: withoutProgressToken({ ...params, ref: { ...ref, uri: target.uri } }),
            what: method,
            shaping: PLAIN,
          };
        }
        return;
      }
      default:
        return;
    }
  }
}

interface Target {
  connection: ChildConnection;
  /** What the client named (exposed tool or prompt name, or URI), which a sealed requestState is bound to. */
  requested: string;
  params: Params;
  what: string;
  shaping: Shaping;
  /** The exposed tool name a call keeps listed (search mode). */
  touch?: string;
}

/** Requests other than tools/call: the result as it is, mcpmux's verdicts as JSON-RPC errors. */
const PLAIN: Shaping = {
  result: (result) => result,
  failure: (error) => ({ error: plainError(toJsonRpcError(error)) }),
};

function plainError(error: { code: number; message: string; data?: unknown }) {
  return { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) };
}

function withoutProgressToken(params: Params): Params {
  const meta = params['_meta'];
  if (!isObject(meta) || !('progressToken' in meta)) return params;
  const { progressToken: _dropped, ...rest } = meta;
  const { _meta: _old, ...others } = params;
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}

/** The 2026-07-28 envelope every request of such a client carries (the SDK checks the rest). */
function hasModernEnvelope(params: Params): boolean {
  const meta = params['_meta'];
  return isObject(meta) && meta[PROTOCOL_VERSION_META_KEY] === MODERN_VERSION;
}
const MODERN_VERSION = '2026-07-28';

const isObject = (value: unknown): value is Params =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalObject = (value: unknown) => value === undefined || isObject(value);
