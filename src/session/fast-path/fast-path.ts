// The forwarding fast path. A request of the client that goes to one child (a child tool's
// tools/call, directly or through call_tool; prompts/get; resources/read;
// completion/complete) travels as a JSON-RPC line with its id and progress token remapped,
// not through the SDK's Protocol on either side: no schema checks (the client checks what it
// gets, the child what it is sent), no per-request abort controllers or handler contexts. A
// 2025 client's plain tools/call is not even parsed: its arguments go on as written
// (call-line.ts), as a child's answer comes back with only its id replaced (child-lane.ts).
// What the slow path does for such a request is done here too: names and URIs mapped to the
// child's, progress passed back under the client's token, cancellation passed on under the
// child's id, --call-timeout reset by progress, every call of a child settled at once when it
// crashes or is removed, a large tool result kept and cut, and errors shaped as before.
//
// Only the forwarding modules know the id and progress-token tables (this one the client's,
// child-lane.ts the child's). It takes a request only when all of it is known to be plain: a
// client on stdio or a 2025 client's HTTP session, after initialize (over HTTP a call
// carries its session's client as the one its child's questions go to, since sessions share
// the children); the configured servers started; a running child on stdio of the same era,
// or a 2025 child for a 2026-07-28 client (whose call has an origin of its own there, which
// holds the call if the child asks: fast-call-origin.ts); and not a later round of a
// 2026-07-28 flow. Everything else (an unknown name, bad params, a child still starting, a
// 2026-07-28 child called by a 2025 client, whose input_required is fulfilled there, a later
// round) goes to the SDK's path, which answers as it always has.
import type { Era } from '../../protocol/era.js';
import type { ClientCapabilities, JSONRPCMessage, LoggingLevel } from '@modelcontextprotocol/server';
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { ActivationPool } from '../../search/activation-pool.js';
import type { ChildUpstream, InputOrigin } from '../../child/child-types.js';
import { moreVerbose, requestLogs, type RequestLogs } from '../../child/requests/request-logs.js';
import type { InputCapableMethod, InputRelay } from '../relay/input-relay.js';
import { errorResult } from '../results.js';
import type { Children } from '../../children/children.js';
import type { StartupGate } from '../../children/startup-gate.js';
import type { ResultStore } from '../../results/result-store.js';
import type { CatalogRouter } from '../../router/catalog-router.js';
import { isObject } from '../../protocol/request-shape.js';
import { readCallLine } from '../../protocol/call-line.js';
import { FastCallOrigin } from './fast-call-origin.js';
import { IdTable } from '../../protocol/id-table.js';
import type { ChildLane } from '../../child/requests/child-lane.js';
import { ForwardedCall, type Params, type Reply, type Shaping } from '../../protocol/forwarded-call.js';
import type { Id } from '../../protocol/id-table.js';
import {
  forModernClient,
  resolveTarget,
  resolveToolLine,
  type Target,
  type TargetContext,
} from './forward-targets.js';

export type { Reply } from '../../protocol/forwarded-call.js';

export interface FastPathOptions {
  children: Children;
  router: CatalogRouter;
  /** Kept and cut: tool results larger than its bound. */
  results: ResultStore;
  /** Search mode: a called tool stays listed. */
  pool?: ActivationPool | undefined;
  /** While the servers given at start are starting, requests take the slow path (which waits). */
  startup?: StartupGate | undefined;
  /** The client's era: a 2026-07-28 client's calls carry an envelope and may come back input_required. */
  era: Era;
  /** Seals a 2026-07-28 child's input_required round for a 2026-07-28 client. */
  relay: InputRelay;
  /** mcpmux's serverInfo, which a 2026-07-28 result names. */
  serverInfo: { name: string; version: string };
  /** A call's error named URL elicitations (-32042): their ends are for its client (UpstreamLink). */
  elicitationsRequired?: ChildUpstream['elicitationsRequired'];
  /**
   * With telemetry or a call log on: observes each request taken (observed-requests.ts). Its
   * answer is then parsed (never passed through as bytes), so that its outcome is known.
   */
  observe?: (request: ObservedTarget) => {
    childMeta: Record<string, string>;
    settle: (answer: Params) => void;
  };
}

/** A request taken, as its observer sees it. */
export interface ObservedTarget {
  method: string;
  params: Params;
  id: Id;
  /** The child that answers, and its own name of the tool or prompt (or the resource's URI). */
  server: string;
  childTarget: string | undefined;
}

/** The client's side: one session's requests in flight, by the client's id. */
export class FastPath {
  readonly #options: FastPathOptions;
  readonly #inFlight = new IdTable<ForwardedCall>();
  /** What finding a request's target needs, made once (it is looked up on every call). */
  readonly #targets: TargetContext;

  constructor(options: FastPathOptions) {
    this.#options = options;
    const { results, children, router } = options;
    const toolShaping: Shaping = {
      // A line no longer than the bound cannot hold more text than the bound: no need to count.
      result: (result, bytes) => (bytes <= results.maxBytes ? result : results.fit(result as never)),
      passThrough: (bytes) => bytes <= results.maxBytes,
      failure: (error) => ({ result: errorResult(`${error.message} [${error.code}]`) as Params }),
    };
    this.#targets = { children, router, toolShaping };
  }

  /**
   * Takes a message of the client if it is the fast path's: a request it can forward, or the
   * cancellation of one it forwarded. Anything else is left to the SDK (false). `caller`: the
   * client a 2025 call's child asks during it, where several clients share the children (HTTP).
   */
  claim(message: JSONRPCMessage, reply: Reply, caller?: (id: Id) => InputOrigin): boolean {
    if (!('method' in message)) return false;
    if (!('id' in message)) {
      if (message.method !== 'notifications/cancelled') return false;
      const { requestId, reason } = (message.params ?? {}) as { requestId?: Id; reason?: unknown };
      const call = requestId === undefined ? undefined : this.#inFlight.get(requestId);
      if (!call) return false;
      call.lane!.cancel(call, typeof reason === 'string' ? reason : 'cancelled by the client');
      return true;
    }
    const params = message.params as Params | undefined;
    if (!isObject(params)) return false;
    // Observed calls of a 2026-07-28 client (whose rounds may be held) take the SDK's path.
    if (this.#options.observe && this.#options.era !== 'legacy') return false;
    // A 2026-07-28 client's later round brings mcpmux's requestState: verified on the SDK's
    // path, as is a request whose envelope is not the one its era requires.
    if ('requestState' in params || 'inputResponses' in params) return false;
    // A task-augmented call gets a task id of mcpmux's own (child-tasks.ts): the SDK's path.
    if ('task' in params) return false;
    if (this.#options.era === 'modern' && !hasModernEnvelope(params)) return false;
    if (!this.#open(message.id)) return false;
    // A 2026-07-28 request hears the child's log messages only when it asked (request-logs.ts).
    const logs =
      this.#options.era === 'modern'
        ? requestLogs(params['_meta'], async (n) => reply({ jsonrpc: '2.0', ...n } as JSONRPCMessage))
        : undefined;
    const accepted = this.#accept(this.#resolve(message.method, params), message.method, params, logs?.level);
    if (!accepted) return false;
    const { target, lane, declared } = accepted;
    const token = (params['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
    let release: (() => void) | undefined;
    // The child's questions during the call go to its caller (a 2025 client sharing the children
    // with others over HTTP: `caller`; a 2026-07-28 one: its origin here).
    const sharing = declared ? undefined : caller?.(message.id);
    const observation = this.#options.observe?.({
      method: message.method,
      params,
      id: message.id,
      server: target.connection.name,
      childTarget: childTargetOf(target.params),
    });
    const heard = sharing ? this.#hearingElicitations(reply, target, sharing) : reply;
    const call = this.#track(
      message.id,
      typeof token === 'string' || typeof token === 'number' ? token : undefined,
      target,
      observation ? observedReply(heard, observation.settle) : heard,
      () => release?.(),
    );
    const origin = declared
      ? this.#originOf(call, target, message.method, declared, logs)
      : (sharing ?? (logs && new FastCallOrigin({}, undefined, logs)));
    if (origin) release = lane.peer.callFor(origin);
    lane.start(
      call,
      message.method,
      observation ? withMeta(target.params, observation.childMeta) : target.params,
    );
    return true;
  }

  /**
   * Takes a 2025 client's tools/call of a child tool as the line it came on (call-line.ts):
   * its arguments go to the child as written, checked for their syntax but never parsed.
   * Anything else on the line, or a call the fast path would not take, is left (false), and
   * the line is parsed as any other.
   */
  claimLine(line: string, reply: Reply): boolean {
    // An observed call is parsed: its trace context goes into the child's request.
    if (this.#options.era !== 'legacy' || this.#options.observe) return false;
    const read = readCallLine(line);
    // call_tool names its tool inside the arguments: only parsing finds it.
    if (!read || read.name === 'call_tool' || !this.#open(read.id)) return false;
    const accepted = this.#accept(resolveToolLine(read.name, this.#targets), 'tools/call');
    if (!accepted) return false;
    const { target, lane } = accepted;
    const call = this.#track(read.id, undefined, target, reply);
    lane.startCallLine(call, target.params['name'] as string, read.argumentsText);
    return true;
  }

  /**
   * The reply of a call from a client that shares the children: a -32042 error's elicitations
   * are noted as this client's, so that their ends reach it and no other (url-elicitations.ts).
   */
  #hearingElicitations(reply: Reply, target: Target, caller: InputOrigin): Reply {
    const noted = this.#options.elicitationsRequired;
    if (!noted || !caller.notify) return reply;
    const notify = caller.notify.bind(caller);
    const heard: Reply = (message) => {
      if ('error' in message) noted(target.connection.name, message.error, notify);
      reply(message);
    };
    if (reply.pieces) heard.pieces = reply.pieces;
    return heard;
  }

  /** Whether a request under this id may take the fast path now: the servers given at start are up, and the id is free. */
  #open(id: Id): boolean {
    return !this.#options.startup?.wait() && !this.#inFlight.has(id);
  }

  /** Where a request goes; undefined when it is not found or not plain (the slow path says why). */
  #resolve(method: string, params: Params): Target | undefined {
    try {
      return resolveTarget(method, params, this.#targets);
    } catch {
      return undefined;
    }
  }

  /**
   * The target and its child's lane, when the fast path can carry the request there in this
   * era; for a 2025 child told it may ask a 2026-07-28 client, with what the request declared
   * (its call needs an origin: fast-call-origin.ts).
   */
  #accept(
    target: Target | undefined,
    method: string,
    params?: Params,
    requestedLevel?: LoggingLevel,
  ): { target: Target; lane: ChildLane; declared?: ClientCapabilities } | undefined {
    const lane = target?.connection.lane;
    if (!target || !lane) return undefined;
    if (this.#options.era === 'legacy')
      // The SDK's path fulfils a 2026-07-28 child's input_required for a 2025 client.
      return lane.peer.modern() ? undefined : { target, lane };
    const childModern = lane.peer.modern();
    let declared: ClientCapabilities | undefined;
    if (!childModern && lane.peer.mayAsk()) {
      declared = declaredCapabilities(params);
      // A question during completion/complete cannot reach a 2026-07-28 client: the SDK's path says so.
      if (!INPUT_CAPABLE.has(method) && (declared.sampling || declared.elicitation || declared.roots))
        return undefined;
    }
    const logLevel = moreVerbose(requestedLevel, lane.peer.sessionLogLevel());
    target = forModernClient(target, method, childModern, logLevel, this.#options);
    return declared ? { target, lane, declared } : { target, lane };
  }

  /** Stands for the call on its child's side: refuses what the request did not declare, holds the call on a question it did. */
  #originOf(
    call: ForwardedCall,
    target: Target,
    method: string,
    declared: ClientCapabilities,
    logs: RequestLogs | undefined,
  ): FastCallOrigin {
    if (!INPUT_CAPABLE.has(method)) return new FastCallOrigin(declared, undefined, logs);
    return new FastCallOrigin(
      declared,
      {
        call,
        request: {
          server: target.connection.name,
          method: method as InputCapableMethod,
          requested: target.requested,
        },
        relay: this.#options.relay,
        answered: () => this.#forget(call),
      },
      logs,
    );
  }

  /** The client's id is free again: its request was answered, though the call goes on (held). */
  #forget(call: ForwardedCall): void {
    if (this.#inFlight.get(call.id) === call) this.#inFlight.delete(call.id);
  }

  /** A call in flight under the client's id until it ends; a tool called keeps its place in the search pool. */
  #track(
    id: Id,
    progressToken: Id | undefined,
    target: Target,
    reply: Reply,
    ended?: () => void,
  ): ForwardedCall {
    const call: ForwardedCall = new ForwardedCall(
      id,
      progressToken,
      target.what,
      reply,
      target.shaping,
      () => {
        this.#forget(call);
        ended?.();
      },
    );
    this.#inFlight.set(id, call);
    if (target.touch) this.#options.pool?.touch(target.touch);
    return call;
  }

  /** Requests taken and not answered yet (counted when asked: only at the end of a session). */
  get open(): number {
    return this.#inFlight.values().length;
  }

  /** The client went away: the children stop working on its calls. */
  close(): void {
    for (const call of this.#inFlight.values()) call.lane!.cancel(call, 'the client went away');
  }
}

/** The child's own name of the tool or prompt, or the resource's URI, as its request names it. */
function childTargetOf(params: Params): string | undefined {
  const value = params['name'] ?? params['uri'];
  return typeof value === 'string' ? value : undefined;
}

/** The child's params with the trace context in their _meta. */
function withMeta(params: Params, meta: Record<string, string>): Params {
  if (Object.keys(meta).length === 0) return params;
  return { ...params, _meta: { ...(params['_meta'] as Params | undefined), ...meta } };
}

/** A reply that tells the observer of the answer; with no `pieces`, so the answer is parsed. */
function observedReply(reply: Reply, settle: (answer: Params) => void): Reply {
  return (message) => {
    if ('result' in message || 'error' in message) settle(message as unknown as Params);
    reply(message);
  };
}

/** What a 2026-07-28 request's envelope says its client can do (nothing, when it says nothing). */
function declaredCapabilities(params: Params | undefined): ClientCapabilities {
  const declared = (params?.['_meta'] as Params | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return isObject(declared) ? (declared as ClientCapabilities) : {};
}

/** The requests a 2026-07-28 client can be asked something during (input_required). */
const INPUT_CAPABLE = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The 2026-07-28 envelope every request of such a client carries (the SDK checks the rest). */
function hasModernEnvelope(params: Params): boolean {
  const meta = params['_meta'];
  return isObject(meta) && meta[PROTOCOL_VERSION_META_KEY] === MODERN_VERSION;
}
const MODERN_VERSION = '2026-07-28';
