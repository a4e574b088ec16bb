// Where a request of the client goes on the forwarding fast path: the child, the params it
// is sent (its own names and URIs), how its answer is shaped for the client, and for a
// 2026-07-28 client the envelope a 2026-07-28 child reads. A name that is not found, or
// params that are not plain, give no target: the SDK's path answers those.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  SERVER_INFO_META_KEY,
  isInputRequiredResult,
} from '@modelcontextprotocol/server';
import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { ChildConnection } from '../../child/child-connection.js';
import { childCapabilities } from '../../child/child-client.js';
import { withResultType } from '../../child/catalog/result-type-bridge.js';
import { withExposedUris } from '../catalog-handlers.js';
import type { InputCapableMethod, InputRelay } from '../relay/input-relay.js';
import { toJsonRpcError } from '../results.js';
import type { Children } from '../../children/children.js';
import { runsOnlyAsTask } from '../../router/task-support.js';
import type { CatalogRouter } from '../../router/catalog-router.js';
import type { Route } from '../../router/routes.js';
import { forwardedParams, withoutProgressToken } from '../../router/forwarded-params.js';
import { isObject } from '../../protocol/request-shape.js';
import { plainError, type Params, type Shaping } from '../../protocol/forwarded-call.js';

export interface TargetContext {
  children: Children;
  router: CatalogRouter;
  /** How a tools/call answer is shaped (a large result kept and cut). */
  toolShaping: Shaping;
}

/** Where a request goes, or undefined when it is not one for the fast path. */
export function resolveTarget(method: string, params: Params, ctx: TargetContext): Target | undefined {
  const { children, router } = ctx;
  const snapshot = children.snapshot;
  switch (method) {
    case 'tools/call':
      return toolCallTarget(params, ctx);
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
    case 'completion/complete':
      return completionTarget(params, ctx);
    default:
      return;
  }
}

/** A tool call, or call_tool's inner call (--expose search), to a tool the fast path may forward. */
function toolCallTarget(
  params: Params,
  { children, router, toolShaping }: TargetContext,
): Target | undefined {
  let call = params;
  if (params['name'] === 'call_tool') {
    const inner = params['arguments'];
    if (!isObject(inner) || Object.keys(inner).some((k) => k !== 'name' && k !== 'arguments')) return;
    call = { ...inner, ...(params['_meta'] !== undefined && { _meta: params['_meta'] }) };
  }
  const name = call['name'];
  if (typeof name !== 'string' || !optionalObject(call['arguments'])) return;
  const route = forwardableTool(router.toolRoute(children.snapshot, name));
  if (!route) return;
  return toolTarget(route, name, forwardedParams(call as { name: string }, route.item.name), toolShaping);
}

/** A completion of a prompt's or a resource template's argument, at the child that has it. */
function completionTarget(params: Params, { children, router }: TargetContext): Target | undefined {
  const ref = params['ref'];
  const argument = params['argument'];
  if (!isObject(ref) || !isObject(argument)) return;
  if (typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string') return;
  const snapshot = children.snapshot;
  const what = 'completion/complete';
  if (ref['type'] === 'ref/prompt' && typeof ref['name'] === 'string') {
    const route = router.route(snapshot, 'prompts', ref['name']);
    const forwarded = withoutProgressToken({ ...params, ref: { ...ref, name: route.item.name } });
    return { connection: route.connection, requested: ref['name'], params: forwarded, what, shaping: PLAIN };
  }
  if (ref['type'] === 'ref/resource' && typeof ref['uri'] === 'string') {
    const target = router.resolveTemplate(snapshot, ref['uri']);
    const forwarded = withoutProgressToken({ ...params, ref: { ...ref, uri: target.uri } });
    return { connection: target.connection, requested: ref['uri'], params: forwarded, what, shaping: PLAIN };
  }
  return;
}

/**
 * Where a 2025 client's tools/call read from its line goes (call-line.ts): its arguments are
 * not parsed, so only its route is looked up and its params are the child's tool name alone.
 */
export function resolveToolLine(
  name: string,
  { children, router, toolShaping }: TargetContext,
): Target | undefined {
  const route = forwardableTool(router.toolRoute(children.snapshot, name));
  return route && toolTarget(route, name, { name: route.item.name }, toolShaping);
}

/** A tool's route, unless its server runs it only as a task: mcpmux makes that task (the SDK's path). */
function forwardableTool(route: Route<'tools'> | undefined): Route<'tools'> | undefined {
  return route && !runsOnlyAsTask(route.item) ? route : undefined;
}

function toolTarget(route: Route<'tools'>, requested: string, params: Params, shaping: Shaping): Target {
  return {
    connection: route.connection,
    requested,
    params,
    what: `tool '${route.item.name}'`,
    shaping,
    touch: route.exposedKey,
  };
}

/**
 * A 2026-07-28 client's request: a 2026-07-28 child is told in the envelope who asks
 * (mcpmux) and what the caller can do, as the SDK's path tells it; its input_required round
 * goes back with its requestState sealed, and a result of its without resultType (which the
 * revision requires) goes as a complete one; a 2025 child's result, and any result mcpmux makes
 * itself (a call its server's end or a reload cut short), gets what a 2026-07-28 result
 * carries (resultType, serverInfo).
 */
export function forModernClient(
  target: Target,
  method: string,
  childModern: boolean,
  logLevel: LoggingLevel | undefined,
  { relay, serverInfo }: { relay: InputRelay; serverInfo: { name: string; version: string } },
): Target {
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
  const ours = (result: Params): Params => ({
    ...result,
    resultType: 'complete',
    // A 2026-07-28 read result must say how long it may be cached; a 2025 server says
    // nothing, so: not at all, and for this client only (the SDK's own defaults).
    ...(method === 'resources/read' && { ttlMs: 0, cacheScope: 'private' }),
    _meta: { [SERVER_INFO_META_KEY]: serverInfo, ...(result['_meta'] as Params | undefined) },
  });
  const complete = (result: Params): Params => (childModern ? withResultType(result) : ours(result));
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
        return 'result' in answer ? { result: ours(answer.result) } : answer;
      },
    },
  };
}

export interface Target {
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
  passThrough: () => true,
  failure: (error) => ({ error: plainError(toJsonRpcError(error)) }),
};

const optionalObject = (value: unknown) => value === undefined || isObject(value);
