// Maps exposed keys (tool and prompt names, resource URIs, URI templates) to (server,
// item) and back, builds the aggregated lists from a snapshot of the children, and routes a
// request to the right child. Every list goes through the same table code, driven by the
// capability table; it has no I/O of its own.
import { UriTemplate } from '@modelcontextprotocol/server';
import type { CallToolRequest, CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { ChildConnection } from '../child/child-connection.js';
import type { CallOptions } from '../child/child-types.js';
import { MuxError } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { ChildrenSnapshot } from '../children/children-snapshot.js';
import { CAPABILITY_TABLE, itemKey, type CatalogItems, type CatalogKind } from '../protocol/capabilities.js';
import { DEFAULT_MAX_TOOL_NAME, exposedToolName } from './tool-names.js';
import { parseRewrittenUri, rewriteUri } from './uri-names.js';
import { withExposedAppUris } from './app-uris.js';
import { forwardedParams } from './forwarded-params.js';
import { callAsTask, listedTaskSupport, runsOnlyAsTask } from './task-support.js';
import { unknownNameError } from './unknown-names.js';
import type { CatalogTable, ResourceTarget, Route } from './routes.js';

export interface CatalogRouterOptions {
  /** Longest exposed tool or prompt name. Default 64. */
  maxToolName?: number;
  /** Tool names mcpmux itself lists (management tools): a child's tool never takes one. Default none. */
  reservedToolNames?: readonly string[];
  logger: Logger;
}

/** One child's items under their exposed keys; an item whose key is taken is left out. */
interface Exposure<K extends CatalogKind> {
  readonly items: CatalogItems[K][];
  readonly routes: Omit<Route<K>, 'connection'>[];
}

type ExposureCache = { [K in CatalogKind]: WeakMap<readonly CatalogItems[K][], Exposure<K>> };

export class CatalogRouter {
  readonly #maxToolName: number;
  readonly #log: Logger;
  /** Prefixed exposures per child list; child lists are immutable, so identity is the key. */
  readonly #exposures: ExposureCache = {
    tools: new WeakMap(),
    prompts: new WeakMap(),
    resources: new WeakMap(),
    resourceTemplates: new WeakMap(),
  };
  readonly #tables = new Map<CatalogKind, { version: number; table: CatalogTable }>();
  /** Tools by the child's own name, for callers that use it (an MCP App's UI does). */
  #ownToolNames: { version: number; byName: ReadonlyMap<string, readonly Route<'tools'>[]> } | undefined;
  readonly #templates = new WeakMap<object, UriTemplate>();
  readonly #reserved: ReadonlySet<string>;
  /** Names withheld because another server (or mcpmux) has them, reported once each. */
  readonly #reportedClashes = new Set<string>();

  constructor(options: CatalogRouterOptions) {
    this.#maxToolName = options.maxToolName ?? DEFAULT_MAX_TOOL_NAME;
    this.#reserved = new Set(options.reservedToolNames ?? []);
    this.#log = options.logger;
  }

  /**
   * The exposed name of a child's tool or prompt (deterministic; the same at any time).
   * `prefix` is the server's own (its spec's), when it names one.
   */
  exposedName(server: string, name: string, prefix?: string): string {
    return exposedToolName(server, name, this.#maxToolName, prefix);
  }

  /** A child's tools or prompts as its own names allow them (exposed names, its own duplicates left out). */
  exposedItems<K extends 'tools' | 'prompts'>(
    kind: K,
    server: string,
    items: readonly CatalogItems[K][],
    prefix?: string,
  ): readonly CatalogItems[K][] {
    return this.#prefixedExposure(kind, server, items, prefix).items;
  }

  /** Whether `exposedKey` is listed as another server's (or mcpmux's), so that `server`'s is withheld. */
  heldByOther(
    snapshot: ChildrenSnapshot,
    kind: 'tools' | 'prompts',
    exposedKey: string,
    server: string,
  ): boolean {
    if (kind === 'tools' && this.#reserved.has(exposedKey)) return true;
    const holder = this.table(snapshot, kind).byKey.get(exposedKey)?.server;
    return holder !== undefined && holder !== server;
  }

  /** The table of one list for a snapshot; rebuilt only when the snapshot changed. */
  table<K extends CatalogKind>(snapshot: ChildrenSnapshot, kind: K): CatalogTable<K> {
    const cached = this.#tables.get(kind);
    if (cached?.version === snapshot.version) return cached.table as CatalogTable<K>;
    const table =
      CAPABILITY_TABLE[kind].naming === 'prefixed'
        ? this.#prefixedTable(snapshot, kind)
        : this.#uriTable(snapshot, kind);
    this.#tables.set(kind, { version: snapshot.version, table: table as CatalogTable });
    return table;
  }

  /** Forwards a call of an exposed tool to its child. */
  callTool(
    snapshot: ChildrenSnapshot,
    params: CallToolRequest['params'],
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const route = this.#route(snapshot, 'tools', params.name);
    const forwarded = forwardedParams(params, route.item.name);
    if (runsOnlyAsTask(route.item))
      return callAsTask(route.connection, forwarded, options) as Promise<CallToolResult>;
    return route.connection.request('tools/call', forwarded, options) as Promise<CallToolResult>;
  }

  /** Where a call of an exposed tool or prompt goes: the child, its params (the child's name), what the client named. */
  forwardTo<P extends { name: string; _meta?: Record<string, unknown> | undefined }>(
    snapshot: ChildrenSnapshot,
    kind: 'tools' | 'prompts',
    params: P,
  ): { connection: ChildConnection; params: P; requested: string } {
    const route = this.#route(snapshot, kind, params.name);
    return {
      connection: route.connection,
      params: forwardedParams(params, route.item.name),
      requested: params.name,
    };
  }

  /** The route of an exposed tool or prompt name, or a MuxError that says what exists. */
  route<K extends 'tools' | 'prompts'>(snapshot: ChildrenSnapshot, kind: K, name: string): Route<K> {
    return this.#route(snapshot, kind, name);
  }

  /**
   * Where a tool name goes: an exposed name, or else a child's own name when exactly one
   * running server has a tool by it. An MCP App's UI calls its server's tools by their own
   * names (`get-time`, not `app__get-time`): it cannot know how mcpmux exposes them.
   */
  toolRoute(snapshot: ChildrenSnapshot, name: string): Route<'tools'> | undefined {
    const exposed = this.table(snapshot, 'tools').byKey.get(name);
    if (exposed) return exposed;
    const owners = this.#toolsByOwnName(snapshot).get(name);
    return owners?.length === 1 ? owners[0] : undefined;
  }

  /**
   * Where to read a resource URI: a rewritten URI names its server; a listed URI has one
   * owner; any other URI goes to the first child (in add order) with a template matching it.
   */
  resolveResource(snapshot: ChildrenSnapshot, uri: string): ResourceTarget {
    const rewritten = parseRewrittenUri(uri);
    if (rewritten) {
      const view = snapshot.servers.get(rewritten.server);
      if (view) return { server: view.name, uri: rewritten.uri, connection: view.connection };
    }
    const listed = this.table(snapshot, 'resources').byKey.get(uri);
    if (listed) return { server: listed.server, uri: listed.item.uri, connection: listed.connection };
    for (const route of this.table(snapshot, 'resourceTemplates').byKey.values()) {
      if (this.#template(route.item).match(uri))
        return { server: route.server, uri, connection: route.connection };
    }
    const withResources = [...snapshot.servers.values()].filter((v) => v.connection.capabilities?.resources);
    if (withResources.length === 1)
      return { server: withResources[0]!.name, uri, connection: withResources[0]!.connection };
    throw new MuxError(
      'RESOURCE_NOT_FOUND',
      `no server lists resource '${uri}' or a template matching it` +
        (withResources.length
          ? `; servers with resources: ${withResources.map((v) => v.name).join(', ')}`
          : '; no running server has resources'),
    );
  }

  /** The child that answers a tools/call, prompts/get or resource request for `target`; undefined when none does. */
  serverOf(snapshot: ChildrenSnapshot, method: string, target: string): string | undefined {
    if (method === 'tools/call') return this.toolRoute(snapshot, target)?.server;
    if (method === 'prompts/get') return this.table(snapshot, 'prompts').byKey.get(target)?.server;
    try {
      return this.resolveResource(snapshot, target).server;
    } catch {
      return undefined;
    }
  }

  /** Where a resource template (as exposed) lives, for completions. */
  resolveTemplate(snapshot: ChildrenSnapshot, uriTemplate: string): ResourceTarget {
    const route = this.table(snapshot, 'resourceTemplates').byKey.get(uriTemplate);
    if (!route)
      throw new MuxError(
        'RESOURCE_NOT_FOUND',
        `no server lists the resource template '${uriTemplate}'; call resources/templates/list`,
      );
    return { server: route.server, uri: route.item.uriTemplate, connection: route.connection };
  }

  /** How the client knows a URI of `server` (rewritten when another server lists it too). */
  exposedUri(snapshot: ChildrenSnapshot, server: string, uri: string): string {
    for (const kind of ['resources', 'resourceTemplates'] as const) {
      const rewritten = rewriteUri(server, uri);
      if (this.table(snapshot, kind).byKey.get(rewritten)?.server === server) return rewritten;
    }
    return uri;
  }

  #route<K extends 'tools' | 'prompts'>(snapshot: ChildrenSnapshot, kind: K, name: string): Route<K> {
    const route =
      kind === 'tools'
        ? (this.toolRoute(snapshot, name) as Route<K> | undefined)
        : this.table(snapshot, kind).byKey.get(name);
    if (!route) {
      const owners = kind === 'tools' ? this.#toolsByOwnName(snapshot).get(name) : undefined;
      throw unknownNameError(snapshot, kind, name, this.table(snapshot, kind), owners);
    }
    return route;
  }

  #toolsByOwnName(snapshot: ChildrenSnapshot): ReadonlyMap<string, readonly Route<'tools'>[]> {
    if (this.#ownToolNames?.version === snapshot.version) return this.#ownToolNames.byName;
    const byName = new Map<string, Route<'tools'>[]>();
    for (const route of this.table(snapshot, 'tools').byKey.values())
      (byName.get(route.item.name) ?? byName.set(route.item.name, []).get(route.item.name)!).push(route);
    this.#ownToolNames = { version: snapshot.version, byName };
    return byName;
  }

  #prefixedTable<K extends CatalogKind>(snapshot: ChildrenSnapshot, kind: K): CatalogTable<K> {
    const items: CatalogItems[K][] = [];
    const byKey = new Map<string, Route<K>>();
    for (const view of snapshot.servers.values()) {
      const list = view.catalog[kind];
      if (list.length === 0) continue;
      const exposure = this.#prefixedExposure(kind, view.name, list, view.prefix);
      exposure.items.forEach((item, i) => {
        const route = exposure.routes[i]!;
        // With a prefix of its own ("" for none), a server's name may be another's or mcpmux's:
        // the one added first (mcpmux before all) keeps it, the other is withheld and reported.
        const holder =
          (kind === 'tools' && this.#reserved.has(route.exposedKey) ? 'mcpmux' : undefined) ??
          byKey.get(route.exposedKey)?.server;
        if (holder !== undefined) return this.#reportClash(kind, route.exposedKey, view.name, holder);
        items.push(item);
        byKey.set(route.exposedKey, { ...route, connection: view.connection });
      });
    }
    if (kind === 'tools') {
      const serverOf = (tool: Tool) => byKey.get(tool.name)!.server;
      return { items: withExposedAppUris(snapshot, items as Tool[], serverOf) as CatalogItems[K][], byKey };
    }
    return { items, byKey };
  }

  #reportClash(kind: CatalogKind, exposedKey: string, server: string, holder: string): void {
    const id = `${kind}\0${server}\0${exposedKey}\0${holder}`;
    if (this.#reportedClashes.has(id)) return;
    this.#reportedClashes.add(id);
    const noun = kind === 'tools' ? 'tool' : 'prompt';
    const whose =
      holder === 'mcpmux' ? "one of mcpmux's own tools" : `server '${holder}' has one by that name`;
    this.#log.warn(
      `server '${server}': ${noun} '${exposedKey}' is not exposed: ${whose}; give '${server}' a prefix`,
    );
  }

  /** Child lists are immutable, so each is exposed (and a collision logged) once. */
  #prefixedExposure<K extends CatalogKind>(
    kind: K,
    server: string,
    list: readonly CatalogItems[K][],
    prefix: string | undefined,
  ): Exposure<K> {
    const cache = this.#exposures[kind] as WeakMap<readonly CatalogItems[K][], Exposure<K>>;
    let exposure = cache.get(list);
    if (!exposure) {
      exposure = this.#exposePrefixed(kind, server, list, prefix);
      cache.set(list, exposure);
    }
    return exposure;
  }

  #exposePrefixed<K extends CatalogKind>(
    kind: K,
    server: string,
    list: readonly CatalogItems[K][],
    prefix: string | undefined,
  ): Exposure<K> {
    const noun = kind === 'tools' ? 'tool' : 'prompt';
    const items: CatalogItems[K][] = [];
    const routes: Omit<Route<K>, 'connection'>[] = [];
    const taken = new Map<string, string>();
    for (const item of list) {
      const name = itemKey(kind, item);
      const exposedKey = this.exposedName(server, name, prefix);
      const holder = taken.get(exposedKey);
      if (holder !== undefined) {
        // Never overwrite: the first item keeps the name, the other is left out and reported.
        this.#log.warn(
          holder === name
            ? `server '${server}' lists ${noun} '${name}' twice; the second is ignored`
            : `server '${server}': ${noun}s '${holder}' and '${name}' both map to '${exposedKey}'; '${name}' is not exposed`,
        );
        continue;
      }
      taken.set(exposedKey, name);
      const exposed = { ...item, name: exposedKey };
      items.push(kind === 'tools' ? (listedTaskSupport(exposed as Tool) as CatalogItems[K]) : exposed);
      routes.push({ exposedKey, server, item });
    }
    return { items, routes };
  }

  /** URIs stay as they are unless two servers list the same one; then both are rewritten. */
  #uriTable<K extends CatalogKind>(snapshot: ChildrenSnapshot, kind: K): CatalogTable<K> {
    const field = CAPABILITY_TABLE[kind].key;
    const owners = new Map<string, Set<string>>();
    for (const view of snapshot.servers.values()) {
      for (const item of view.catalog[kind]) {
        const key = itemKey(kind, item);
        owners.set(key, (owners.get(key) ?? new Set()).add(view.name));
      }
    }
    const items: CatalogItems[K][] = [];
    const byKey = new Map<string, Route<K>>();
    for (const view of snapshot.servers.values()) {
      for (const item of view.catalog[kind]) {
        const key = itemKey(kind, item);
        const shared = owners.get(key)!.size > 1;
        const exposedKey = shared ? rewriteUri(view.name, key) : key;
        if (byKey.has(exposedKey)) continue; // listed twice by one server: the first counts
        byKey.set(exposedKey, { exposedKey, server: view.name, item, connection: view.connection });
        items.push(shared ? { ...item, [field]: exposedKey } : item);
      }
    }
    return { items, byKey };
  }

  #template(item: CatalogItems['resourceTemplates']): UriTemplate {
    let template = this.#templates.get(item);
    if (!template) {
      template = new UriTemplate(item.uriTemplate);
      this.#templates.set(item, template);
    }
    return template;
  }
}
