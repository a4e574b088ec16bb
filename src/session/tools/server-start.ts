// Starting a server for add_server, whichever way it was given (a command, a URL, a registry
// entry), and writing it into the config with persist: a start the client cancels is undone
// as a failed one is, and a persist that fails is reported beside the started server.
import { MuxError, messageOf } from '../../common/errors.js';
import type { ServerSpec } from '../../child/server-spec.js';
import { exposeStatus, summarize } from './exposed-status.js';
import type { ManagementContext, PersistentConfig } from './tool-context.js';

/** Starts `spec` as `name` and answers with its status and tools; `timeoutSeconds` bounds the start. */
export async function startServer(
  ctx: Pick<ManagementContext, 'children' | 'router'>,
  name: string,
  spec: ServerSpec,
  timeoutSeconds: number | undefined,
  signal: AbortSignal | undefined,
) {
  const { children, router } = ctx;
  // A server waiting for a person to sign in answers at once: needs_auth, with the URL.
  const started = await untilCancelled(
    signal,
    children.add(
      name,
      timeoutSeconds === undefined ? spec : { ...spec, startupTimeoutMs: timeoutSeconds * 1000 },
      { returnWhenSigningIn: true },
    ),
    // A start the client cancelled is undone as a failed one is: nothing left running.
    () => children.remove(name),
  );
  return {
    server: exposeStatus(started.status, router, children.snapshot),
    tools: summarize(started.status, started.tools, router, children.snapshot),
  };
}

export function requireConfig(config: PersistentConfig | undefined, tool: string): asserts config {
  if (!config)
    throw new MuxError(
      'INVALID_ARGUMENTS',
      `${tool}: persist needs a config file, and mcpmux was started without --config; nothing was changed`,
    );
}

/** Writes the change into the config file; a failure is reported beside the result, since the server change itself happened. */
export async function persisted(
  config: PersistentConfig,
  name: string,
  entry: Record<string, unknown> | undefined,
  spec?: ServerSpec,
) {
  try {
    await config.persist(name, entry, spec);
    return { persisted_to: config.path };
  } catch (error) {
    return { persist_error: messageOf(error) };
  }
}

/** `work`, with `undo` run if `signal` aborts before it settles (the caller is not answered then). */
async function untilCancelled<T>(
  signal: AbortSignal | undefined,
  work: Promise<T>,
  undo: () => Promise<unknown>,
): Promise<T> {
  const cancelled = () => void undo().catch(() => {});
  if (signal?.aborted) cancelled();
  signal?.addEventListener('abort', cancelled, { once: true });
  try {
    return await work;
  } finally {
    signal?.removeEventListener('abort', cancelled);
  }
}
