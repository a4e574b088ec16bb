// What the client sees: one MCP server (the SDK's low-level Server) whose tools are the
// management tools plus every child tool under its exposed name. Registry changes become
// one debounced notifications/tools/list_changed.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CallOptions } from '../child/child-connection.js';
import { messageOf } from '../errors.js';
import type { Logger } from '../log.js';
import type { Registry } from '../registry/registry.js';
import type { ToolRouter } from '../router/tool-router.js';
import { reuseSerialization } from '../transport/json-lines.js';
import { ListChangedNotifier } from './list-changed-notifier.js';
import { createManagementTools, type ManagementContext } from './management-tools.js';
import { toToolResult } from './tool-result.js';

export interface MuxServerOptions {
  registry: Registry;
  router: ToolRouter;
  logger: Logger;
  /** Reported to the client in serverInfo. */
  version: string;
  /** Quiet time before list_changed is sent. Default 10 ms. */
  listChangedDebounceMs?: number;
}

const INSTRUCTIONS =
  'mcpmux runs MCP servers behind this one connection. add_server starts a server and returns its tools, named ' +
  '<server>__<tool>; reload_server restarts one (after a rebuild, or when list_servers shows it crashed); ' +
  'remove_server stops one. If your tool list has not refreshed after add_server, call the new tools through call_tool.';

/** What tools/call needs of its params; the rest (task, other _meta) travels on unchecked. */
const CallToolParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  _meta: z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional(),
});

export class MuxServer {
  readonly server: Server;
  readonly #options: MuxServerOptions;
  readonly #management = createManagementTools();
  readonly #managementDefinitions: Tool[];
  readonly #notifier: ListChangedNotifier;
  readonly #unsubscribe: () => void;
  #listed: { version: number; result: { tools: Tool[] } } | undefined;

  constructor(options: MuxServerOptions) {
    this.#options = options;
    this.#managementDefinitions = [...this.#management.values()].map((t) => t.definition);
    this.server = new Server(
      { name: 'mcpmux', version: options.version },
      { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
    );
    this.#notifier = new ListChangedNotifier({
      send: () => this.server.sendToolListChanged(),
      debounceMs: options.listChangedDebounceMs ?? 10,
      onError: (error) => options.logger.debug(() => `list_changed not sent: ${messageOf(error)}`),
    });
    this.server.oninitialized = () => this.#notifier.ready();
    this.#unsubscribe = options.registry.onChange(() => this.#notifier.changed());
    this.server.setRequestHandler(ListToolsRequestSchema, () => this.#listTools());
    // tools/call is the hot path. The Server class wraps a tools/call handler so that it
    // parses the request twice and the result once with zod; the client validates the
    // result anyway, so the call is taken as an unhandled method and its params checked once.
    this.server.fallbackRequestHandler = async (request, extra) => {
      if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      const parsed = CallToolParams.safeParse(request.params);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call request: ${z.prettifyError(parsed.error)}`);
      const params = parsed.data as CallToolRequest['params'];
      return this.#callTool(params, { signal: extra.signal, ...progressForwarder(params, extra.sendNotification) });
    };
  }

  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  async close(): Promise<void> {
    this.#unsubscribe();
    this.#notifier.close();
    await this.server.close();
  }

  /** The tools/list result, built and serialized once per registry version. */
  #listTools(): { tools: Tool[] } {
    const snapshot = this.#options.registry.snapshot;
    if (this.#listed?.version !== snapshot.version) {
      const children = this.#options.router.table(snapshot).tools;
      const result = reuseSerialization({ tools: [...this.#managementDefinitions, ...children] });
      this.#listed = { version: snapshot.version, result };
    }
    return this.#listed.result;
  }

  async #callTool(params: CallToolRequest['params'], options: CallOptions): Promise<CallToolResult> {
    try {
      const management = this.#management.get(params.name);
      if (management) return await management.handle(params.arguments, this.#context(options));
      return await this.#options.router.call(this.#options.registry.snapshot, params, options);
    } catch (error) {
      return toToolResult(error);
    }
  }

  #context(options: CallOptions): ManagementContext {
    return {
      registry: this.#options.registry,
      router: this.#options.router,
      callTool: (name, args) => this.#callTool({ name, ...(args !== undefined && { arguments: args }) }, options),
    };
  }
}

type SendNotification = (notification: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void>;

/** When the caller asked for progress, relays the child's progress under the caller's token. */
function progressForwarder(params: CallToolRequest['params'], send: unknown): Pick<CallOptions, 'onprogress'> {
  const progressToken = params._meta?.progressToken;
  if (progressToken === undefined) return {};
  const sendNotification = send as SendNotification;
  return {
    onprogress: (progress) => {
      void sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(() => {});
    },
  };
}
