// Maps exposed tool names to (server, child tool) and back, builds the aggregated tool
// list from a registry snapshot, and routes a call to the right child with the caller's
// cancellation and progress. It has no I/O of its own.
import type { CallToolRequest, CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallOptions, ChildConnection } from '../child/child-connection.js';
import { MuxError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RegistrySnapshot } from '../registry/registry.js';
import { DEFAULT_MAX_TOOL_NAME, exposedToolName, splitExposedName } from './tool-names.js';

export interface RoutedTool {
  readonly exposedName: string;
  readonly server: string;
  /** The tool as the child declared it (its own name). */
  readonly childTool: Tool;
  readonly connection: ChildConnection;
}

export interface ToolTable {
  /** Tools as listed to the client, in server order, then the child's order. */
  readonly tools: readonly Tool[];
  readonly byName: ReadonlyMap<string, RoutedTool>;
}

export interface ToolRouterOptions {
  /** Longest exposed name. Default 64. */
  maxToolName?: number;
  logger: Logger;
}

/** A child's tools under their exposed names; a tool whose name is taken is left out. */
interface ServerExposure {
  readonly tools: Tool[];
  readonly routes: Omit<RoutedTool, 'connection'>[];
}

export class ToolRouter {
  readonly #maxToolName: number;
  readonly #log: Logger;
  /** Exposures per child tool list; child tool lists are immutable, so identity is the key. */
  readonly #exposures = new WeakMap<readonly Tool[], ServerExposure>();
  #table: { version: number; table: ToolTable } | undefined;

  constructor(options: ToolRouterOptions) {
    this.#maxToolName = options.maxToolName ?? DEFAULT_MAX_TOOL_NAME;
    this.#log = options.logger;
  }

  /** The exposed name of a child tool (deterministic; the same at any time). */
  exposedName(server: string, tool: string): string {
    return exposedToolName(server, tool, this.#maxToolName);
  }

  /** The table for a snapshot; rebuilt only when the snapshot changed. */
  table(snapshot: RegistrySnapshot): ToolTable {
    if (this.#table?.version === snapshot.version) return this.#table.table;
    const tools: Tool[] = [];
    const byName = new Map<string, RoutedTool>();
    for (const view of snapshot.servers.values()) {
      if (view.tools.length === 0) continue;
      const exposure = this.#exposure(view.name, view.tools);
      tools.push(...exposure.tools);
      for (const route of exposure.routes) byName.set(route.exposedName, { ...route, connection: view.connection });
    }
    const table = { tools, byName };
    this.#table = { version: snapshot.version, table };
    return table;
  }

  /** Forwards a call of an exposed tool to its child. */
  call(snapshot: RegistrySnapshot, params: CallToolRequest['params'], options: CallOptions = {}): Promise<CallToolResult> {
    const route = this.table(snapshot).byName.get(params.name);
    if (!route) throw this.#unknownTool(snapshot, params.name);
    const forwarded: CallToolRequest['params'] = { name: route.childTool.name };
    if (params.arguments !== undefined) forwarded.arguments = params.arguments;
    // Our progress token replaces the caller's (the SDK sets it); other _meta travels on.
    const { progressToken: _ignored, ...meta } = params._meta ?? {};
    if (Object.keys(meta).length > 0) forwarded._meta = meta;
    return route.connection.callTool(forwarded, options);
  }

  /** The tools of `server` exactly as the client is shown them (exposed names, collisions left out). */
  exposedTools(server: string, childTools: readonly Tool[]): readonly Tool[] {
    return this.#exposure(server, childTools).tools;
  }

  /** Child tool lists are immutable, so each is exposed (and a collision logged) once. */
  #exposure(server: string, childTools: readonly Tool[]): ServerExposure {
    let exposure = this.#exposures.get(childTools);
    if (!exposure) {
      exposure = this.#expose(server, childTools);
      this.#exposures.set(childTools, exposure);
    }
    return exposure;
  }

  #expose(server: string, childTools: readonly Tool[]): ServerExposure {
    const tools: Tool[] = [];
    const routes: Omit<RoutedTool, 'connection'>[] = [];
    const taken = new Map<string, string>();
    for (const childTool of childTools) {
      const exposedName = this.exposedName(server, childTool.name);
      const holder = taken.get(exposedName);
      if (holder !== undefined) {
        // Never overwrite: the first tool keeps the name, the other is left out and reported.
        this.#log.warn(
          holder === childTool.name
            ? `server '${server}' lists tool '${childTool.name}' twice; the second is ignored`
            : `server '${server}': tools '${holder}' and '${childTool.name}' both map to '${exposedName}'; '${childTool.name}' is not exposed`,
        );
        continue;
      }
      taken.set(exposedName, childTool.name);
      tools.push({ ...childTool, name: exposedName });
      routes.push({ exposedName, server, childTool });
    }
    return { tools, routes };
  }

  #unknownTool(snapshot: RegistrySnapshot, name: string): MuxError {
    const parts = splitExposedName(name);
    if (!parts) {
      return new MuxError('TOOL_NOT_FOUND', `unknown tool '${name}'; child tools are named <server>__<tool>: call list_servers to see them`);
    }
    const view = snapshot.servers.get(parts.server);
    if (!view) {
      const known = [...snapshot.servers.keys()];
      return new MuxError(
        'TOOL_NOT_FOUND',
        `unknown tool '${name}': no server named '${parts.server}'${known.length ? ` (servers: ${known.join(', ')})` : ''}`,
      );
    }
    if (view.connection.state.kind !== 'running') {
      const status = view.connection.status();
      const why = status.status === 'crashed' ? `crashed (${status.last_error}); call reload_server {"name":"${view.name}"}` : `${status.status}; try again when it is running`;
      const code = status.status === 'crashed' ? 'SERVER_CRASHED' : 'SERVER_BUSY';
      return new MuxError(code, `tool '${name}' is not available: server '${view.name}' is ${why}`);
    }
    const available = this.table(snapshot).tools.filter((t) => t.name.startsWith(view.name + '__')).map((t) => t.name);
    return new MuxError('TOOL_NOT_FOUND', `server '${view.name}' has no tool '${name}'; its tools: ${available.join(', ') || '(none)'}`);
  }
}
