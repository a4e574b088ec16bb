// The client's requests about prompts, resources, resource templates and completions: lists
// are aggregated from the registry snapshot (built and serialized once per change), and a
// request about one item goes to the child that owns it under the child's own key.
import { isInputRequiredResult } from '@modelcontextprotocol/server';
import type { CompleteRequest, Server, ServerContext, Tool } from '@modelcontextprotocol/server';
import type { ActivationPool } from '../search/activation-pool.js';
import type { Children } from '../children/children.js';
import type { CatalogItems, CatalogKind } from '../protocol/capabilities.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import { reuseSerialization } from '../protocol/json-serialization.js';
import { forwardingOptions, type Caller } from './relay/forwarding-options.js';
import { clientRound, type InputRelay, type RelayTarget } from './relay/input-relay.js';
import type { StartupGate } from '../children/startup-gate.js';
import { toJsonRpcError } from './results.js';

export interface CatalogHandlersOptions {
  children: Children;
  router: CatalogRouter;
  /** Listed before the children's tools (the management tools); the same array while they stay the same. */
  ownTools: () => readonly Tool[];
  /** In `--expose search` mode: the children's tools listed are only the activated ones. */
  pool?: ActivationPool | undefined;
  /** The client the requests come from (its era decides how a child's questions reach it). */
  caller: Caller;
  /** Carries a child's questions to a 2026-07-28 client as input_required rounds. */
  relay: InputRelay;
  /** The servers given at start: lists and requests wait until each has started or failed. */
  startup?: StartupGate;
  /** A list that waited for the servers given at start was answered, holding all of them. */
  onGivenAfterStartup?: (kind: CatalogKind) => void;
}

type ListResult<K extends CatalogKind> = { [P in K]: CatalogItems[K][] };

export class CatalogHandlers {
  readonly #options: CatalogHandlersOptions;
  readonly #listed = new Map<CatalogKind, { version: string; own?: readonly Tool[]; result: object }>();

  constructor(options: CatalogHandlersOptions) {
    this.#options = options;
  }

  /** The list result for `kind`, built and serialized once per registry version. */
  list<K extends CatalogKind>(kind: K): ListResult<K> {
    const snapshot = this.#options.children.snapshot;
    const pool = kind === 'tools' ? this.#options.pool : undefined;
    const version = `${snapshot.version}.${pool?.version ?? 0}`;
    const own = kind === 'tools' ? this.#options.ownTools() : undefined;
    const cached = this.#listed.get(kind);
    if (cached?.version === version && cached.own === own) return cached.result as ListResult<K>;
    const table = this.#options.router.table(snapshot, kind);
    const children = pool
      ? pool.listed().flatMap((name) => itemOf(table.byKey.get(name), name))
      : table.items;
    const items = own ? [...own, ...children] : [...children];
    const result = reuseSerialization({ [kind]: items } as ListResult<K>);
    this.#listed.set(kind, { version, ...(own && { own }), result });
    return result;
  }

  /**
   * Whether `kind` as this client sees it differs from the last list made for it (always, when
   * none was): in `--expose search` or `code` mode a server added changes no listed tool. It
   * makes the list, so it is asked only where the list is not the children's.
   */
  changedSinceLastList(kind: CatalogKind): boolean {
    const before = this.#listed.get(kind)?.result as ListResult<CatalogKind> | undefined;
    const now = this.list(kind);
    return before === undefined || (before !== now && !sameItems(before[kind], now[kind]));
  }

  /** The list, once the servers given at start have each started or failed. */
  async listWhenStarted<K extends CatalogKind>(kind: K): Promise<ListResult<K>> {
    const starting = this.#options.startup?.wait();
    if (!starting) return this.list(kind);
    await starting;
    const result = this.list(kind);
    this.#options.onGivenAfterStartup?.(kind);
    return result;
  }

  install(server: Server): void {
    const { children, router } = this.#options;
    server.setRequestHandler('prompts/list', () => this.listWhenStarted('prompts'));
    server.setRequestHandler('resources/list', () => this.listWhenStarted('resources'));
    server.setRequestHandler('resources/templates/list', () => this.listWhenStarted('resourceTemplates'));

    const { caller, relay } = this.#options;
    // A 2026-07-28 client gets a child's questions as input_required rounds (input-relay.ts).
    const forward = (target: RelayTarget, ctx: ServerContext, params: RequestParams) => {
      const options = forwardingOptions(params, ctx, caller);
      return caller.era === 'modern'
        ? relay.forward(target, clientRound(ctx), options)
        : target.connection.request(target.method, target.params, options);
    };

    server.setRequestHandler('prompts/get', (request, ctx) =>
      answer(this.#options.startup, async () =>
        forward(
          { ...router.forwardTo(children.snapshot, 'prompts', request.params), method: 'prompts/get' },
          ctx,
          request.params,
        ),
      ),
    );

    server.setRequestHandler('resources/read', (request, ctx) =>
      answer(this.#options.startup, async () => {
        const target = router.resolveResource(children.snapshot, request.params.uri);
        const result = await forward(
          {
            connection: target.connection,
            method: 'resources/read',
            params: { ...request.params, uri: target.uri },
            requested: request.params.uri,
          },
          ctx,
          request.params,
        );
        return isInputRequiredResult(result)
          ? result
          : withExposedUris(result, target.uri, request.params.uri);
      }),
    );

    server.setRequestHandler('completion/complete', (request, ctx) =>
      answer(this.#options.startup, async () => this.#complete(request.params, ctx)),
    );
  }

  /** completion/complete, at the child whose prompt or resource template the reference names. */
  #complete(params: CompleteRequest['params'], ctx: ServerContext): Promise<Record<string, unknown>> {
    const { children, router, caller } = this.#options;
    const { ref } = params;
    const snapshot = children.snapshot;
    if (ref.type === 'ref/prompt') {
      const route = router.route(snapshot, 'prompts', ref.name);
      return route.connection.request(
        'completion/complete',
        { ...params, ref: { ...ref, name: route.item.name } },
        forwardingOptions(params, ctx, caller),
      );
    }
    const target = router.resolveTemplate(snapshot, ref.uri);
    return target.connection.request(
      'completion/complete',
      { ...params, ref: { ...ref, uri: target.uri } },
      forwardingOptions(params, ctx, caller),
    );
  }
}

/** What forwarding reads of a request's params: its progress token. */
type RequestParams = { _meta?: { progressToken?: string | number | undefined } | undefined };

/** An activated tool as listed (under its exposed name), if it still exists. */
function itemOf(route: { item: object } | undefined, exposedName: string) {
  return route ? [{ ...route.item, name: exposedName } as never] : [];
}

/**
 * Runs a forwarded request (once the servers given at start have started); domain errors
 * become JSON-RPC errors that say what to fix.
 */
async function answer(
  startup: StartupGate | undefined,
  run: () => Promise<Record<string, unknown>>,
): Promise<never> {
  try {
    const starting = startup?.wait();
    if (starting) await starting;
    return (await run()) as never;
  } catch (error) {
    throw toJsonRpcError(error);
  }
}

/** A read of a rewritten URI returns contents under the URI the client asked for. */
export function withExposedUris(
  result: Record<string, unknown>,
  childUri: string,
  exposedUri: string,
): Record<string, unknown> {
  const contents = result['contents'];
  if (childUri === exposedUri || !Array.isArray(contents)) return result;
  return {
    ...result,
    contents: contents.map((c: { uri?: unknown }) => (c.uri === childUri ? { ...c, uri: exposedUri } : c)),
  };
}

/** The same items in the same order: the same objects, or (a server restarted) the same JSON. */
function sameItems(a: readonly object[], b: readonly object[]): boolean {
  return (
    a.length === b.length &&
    a.every((item, i) => item === b[i] || JSON.stringify(item) === JSON.stringify(b[i]))
  );
}
