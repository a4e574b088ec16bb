// Code mode: instead of calling tools one by one and pulling every intermediate result
// through its context, the model writes one program against typed wrappers of the servers
// (module-declarations.ts), mcpmux runs it in a sandbox (sandbox-pool.ts), and only what the
// program returns or logs comes back. A program's tool call is routed like call_tool, with
// its arguments checked against the tool's input schema first.
import { telemetry } from '../common/telemetry.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { CallToolResult, JsonSchemaType, JsonSchemaValidator, Tool } from '@modelcontextprotocol/server';
import { MuxError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import { type Children } from '../children/children.js';
import { runningServers } from '../children/children-snapshot.js';
import type { CallOptions } from '../child/child-types.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import { ModuleDeclarations } from './module-declarations.js';
import { SandboxPool, type RunOutcome, type SandboxLimits } from './sandbox-pool.js';
import type { SandboxCatalog } from './sandbox-protocol.js';
import { toSandboxScript } from './strip-types.js';

export interface CodeModeOptions {
  logger: Logger;
  /** Memory of one program's interpreter. Default 128 MB. */
  memoryBytes?: number;
  /** Tool calls one program may make. Default 200. */
  maxToolCalls?: number;
  /** Programs run at once. Default: the number of cores. */
  concurrency?: number;
  /** Programs that may wait for a free sandbox; the next is refused as busy. Default 50. */
  maxQueued?: number;
}

import { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from './code-mode-limits.js';
export { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS };
const MAX_LOG_BYTES = 1024 * 1024;

export interface ExecuteRequest {
  code: string;
  timeoutSeconds?: number | undefined;
  /** Only these servers are reachable from the program. Default: every running server. */
  servers?: readonly string[] | undefined;
}

export interface ExecuteResult {
  ok: boolean;
  return_value?: unknown;
  error?: { name: string; message: string; stack?: string };
  logs: string[];
  tool_calls: { name: string; ms: number; ok: boolean }[];
  duration_ms: number;
}

/** Shared by every session: one sandbox pool, one cache of declarations. */
export class CodeMode {
  readonly declarations = new ModuleDeclarations();
  readonly #pool: SandboxPool;
  readonly #validator = new AjvJsonSchemaValidator();
  readonly #validators = new WeakMap<Tool, JsonSchemaValidator<unknown>>();
  readonly #memoryBytes: number;
  readonly #maxToolCalls: number;

  constructor(options: CodeModeOptions) {
    this.#memoryBytes = options.memoryBytes ?? 128 * 1024 * 1024;
    this.#pool = new SandboxPool({
      logger: options.logger,
      memoryBytes: this.#memoryBytes,
      ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
      ...(options.maxQueued !== undefined && { maxQueued: options.maxQueued }),
    });
    this.#maxToolCalls = options.maxToolCalls ?? 200;
  }

  /** Strips, runs and reports one program. A program's own failure is a result (ok: false), not an exception. */
  async execute(
    request: ExecuteRequest,
    deps: { children: Children; router: CatalogRouter; options: CallOptions },
  ): Promise<ExecuteResult> {
    const timeoutSeconds = request.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const catalog = this.#catalog(deps.children, request.servers);
    const script = await toSandboxScript(request.code);
    const limits: SandboxLimits = {
      timeoutMs: timeoutSeconds * 1000,
      memoryBytes: this.#memoryBytes,
      maxToolCalls: this.#maxToolCalls,
      maxLogBytes: MAX_LOG_BYTES,
    };
    const outcome = await this.#pool.run({
      script,
      catalog,
      limits,
      signal: deps.options.signal,
      // Called from the sandbox's messages: its tool calls are traced under the execute_code call.
      callTool: telemetry.bind((server: string, tool: string, args: unknown, signal: AbortSignal) => {
        const parent = deps.options.signal;
        const options = { ...deps.options, signal: parent ? AbortSignal.any([parent, signal]) : signal };
        return this.#callTool(server, tool, args, catalog, { ...deps, options });
      }),
    });
    return toExecuteResult(outcome, limits);
  }

  /**
   * Declares every running server's tools as soon as the children change (in the background;
   * the cache makes it free for unchanged tools), so read_module answers at once after an
   * add or a reload. Returns the unsubscribe.
   */
  follow(children: Children, logger: Logger): () => void {
    return children.onChange((change) => {
      if (!change.kinds.includes('tools')) return;
      for (const view of runningServers(children.snapshot)) {
        this.declarations
          .module(view.name, view.tools)
          .catch((error: unknown) =>
            logger.debug(() => `[${view.name}] declarations not made: ${messageOf(error)}`),
          );
      }
    });
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  /** The servers a program may call and their tools: the allowlist, checked against what runs. */
  #catalog(children: Children, allow: readonly string[] | undefined): SandboxCatalog {
    const running = runningServers(children.snapshot);
    if (allow) {
      const unknown = allow.filter((name) => !running.some((view) => view.name === name));
      if (unknown.length > 0) {
        throw new MuxError(
          'SERVER_NOT_FOUND',
          `execute_code: no running server named ${unknown.map((n) => `'${n}'`).join(', ')}; running: ${running.map((v) => v.name).join(', ') || '(none)'}`,
        );
      }
    }
    return Object.fromEntries(
      running
        .filter((view) => !allow || allow.includes(view.name))
        .map((view) => [view.name, view.tools.map((t) => t.name)]),
    );
  }

  async #callTool(
    server: string,
    tool: string,
    args: unknown,
    catalog: SandboxCatalog,
    deps: { children: Children; router: CatalogRouter; options: CallOptions },
  ) {
    if (!catalog[server]?.includes(tool))
      return { ok: false as const, error: `${server}.${tool} is not allowed in this run` };
    const view = deps.children.snapshot.servers.get(server);
    const definition = view?.tools.find((t) => t.name === tool);
    if (!view || !definition) {
      return {
        ok: false as const,
        error: `server '${server}' ${view ? `no longer has a tool '${tool}'` : 'was removed while the program ran'}`,
      };
    }
    const checked = this.#validatorFor(definition)(args);
    if (!checked.valid)
      return {
        ok: false as const,
        error: `invalid arguments for ${server}.${tool}: ${checked.errorMessage ?? 'they do not match its input schema'}`,
      };
    try {
      const params = {
        name: deps.router.exposedName(server, tool, deps.children.snapshot.servers.get(server)?.prefix),
        arguments: args as Record<string, unknown>,
      };
      return toProgramValue(await deps.router.callTool(deps.children.snapshot, params, deps.options));
    } catch (error) {
      return { ok: false as const, error: messageOf(error) };
    }
  }

  #validatorFor(tool: Tool): JsonSchemaValidator<unknown> {
    let validate = this.#validators.get(tool);
    if (!validate) {
      try {
        validate = this.#validator.getValidator(tool.inputSchema as JsonSchemaType);
      } catch {
        // A schema Ajv cannot compile is the server's to check.
        validate = (input: unknown) => ({ valid: true, data: input, errorMessage: undefined });
      }
      this.#validators.set(tool, validate);
    }
    return validate;
  }
}

/**
 * What a program gets from a tool: its structured result when it has one, else its text
 * (parsed when it is JSON), else the content blocks; a tool error becomes a ToolError.
 */
export function toProgramValue(
  result: CallToolResult,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const texts = result.content.filter((block) => block.type === 'text').map((block) => block.text);
  if (result.isError) return { ok: false, error: texts.join('\n') || 'the tool reported an error' };
  if (result.structuredContent !== undefined) return { ok: true, value: result.structuredContent };
  if (texts.length === result.content.length && texts.length === 1) {
    const text = texts[0]!;
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      return { ok: true, value: text };
    }
  }
  if (texts.length === result.content.length) return { ok: true, value: texts.join('\n') };
  return {
    ok: true,
    value: result.content.map((block) =>
      block.type === 'text'
        ? block
        : { type: block.type, ...('mimeType' in block && { mimeType: block.mimeType }) },
    ),
  };
}

function toExecuteResult(outcome: RunOutcome, limits: SandboxLimits): ExecuteResult {
  const base = { logs: outcome.logs, tool_calls: outcome.toolCalls, duration_ms: outcome.durationMs };
  if (outcome.ok) return { ok: true, return_value: outcome.value ?? null, ...base };
  const error = outcome.error ?? { name: 'Error', message: 'the program failed' };
  if (error.name === 'InternalError' && error.message === 'out of memory') {
    return {
      ok: false,
      error: {
        ...error,
        message: `the program ran out of memory (limit ${limits.memoryBytes / 1024 / 1024} MB)`,
      },
      ...base,
    };
  }
  return { ok: false, error, ...base };
}
