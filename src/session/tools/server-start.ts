// Starting a server for add_server, whichever way it was given (a command, a URL, a registry
// entry), and writing it into the config with persist: a start the client cancels is undone
// as a failed one is, and a persist that fails is reported beside the started server. A
// server the trust gate holds (--quarantine) is shown to the person by a form when their
// client takes one; their accept releases it within the same call.
import { MuxError, messageOf } from '../../common/errors.js';
import type { ServerSpec } from '../../child/server-spec.js';
import { sandboxWire } from '../../child/sandbox-setting.js';
import type { Children } from '../../children/children.js';
import { APPROVAL_TIMEOUT_MS, approvalForm, releases } from '../../trust/approval-form.js';
import { exposeStatus, summarize } from './exposed-status.js';
import type { AskPerson } from './person-form.js';
import type { ManagementContext, PersistentConfig } from './tool-context.js';

/**
 * Starts `spec` as `name` (an add of the agent's) and answers with its status and tools;
 * `timeoutSeconds` bounds the start; `askPerson` shows a held server to the person.
 */
export async function startServer(
  ctx: Pick<ManagementContext, 'children' | 'router'>,
  name: string,
  spec: ServerSpec,
  timeoutSeconds: number | undefined,
  signal: AbortSignal | undefined,
  askPerson?: AskPerson,
) {
  const { children, router } = ctx;
  // A server waiting for a person to sign in answers at once: needs_auth, with the URL.
  const started = await untilCancelled(
    signal,
    children.add(
      name,
      timeoutSeconds === undefined ? spec : { ...spec, startupTimeoutMs: timeoutSeconds * 1000 },
      { returnWhenSigningIn: true, addedBy: 'agent' },
    ),
    // A start the client cancelled is undone as a failed one is: nothing left running.
    () => children.remove(name),
  );
  const decision = askPerson ? await askToRelease(children, name, askPerson) : undefined;
  // Cancelled while the person was asked: undone as a cancelled start is.
  if (signal?.aborted) {
    await children.remove(name).catch(() => {});
    throw new MuxError('CALL_CANCELLED', `add_server '${name}' was cancelled; nothing is left running`);
  }
  const status = decision === 'released' ? children.list().find((s) => s.name === name)! : started.status;
  const trust = heldAnswer(children, name, decision);
  return {
    server: exposeStatus(status, router, children.snapshot),
    tools: summarize(status, started.tools, router, children.snapshot),
    ...(trust && { trust }),
  };
}

type Decision = 'released' | 'declined' | 'not-listed';

/** Shows a held server to the person; their accept, box ticked, releases it. Undefined when it is not held. */
async function askToRelease(
  children: Children,
  name: string,
  askPerson: AskPerson,
): Promise<Decision | undefined> {
  const view = children.snapshot.servers.get(name);
  const held = view?.trust?.serverHeld;
  if (!view || !held) return undefined;
  // Not listing yet (waiting for a sign-in): the person is shown nothing, and approves it once it lists.
  if (view.connection.state.kind !== 'running') return 'not-listed';
  const form = approvalForm({
    name,
    identity: view.trust!.identity,
    why: held,
    catalog: view.listed,
    flags: view.trust!.flags,
  });
  // A client that fails the form (or a person who never answers) leaves the server held, as a decline does.
  const answer = await askPerson(form, APPROVAL_TIMEOUT_MS).catch(() => ({ action: 'cancel' }));
  if (!releases(answer)) return 'declined';
  await children.approve(name, 'person');
  return 'released';
}

/** What add_server says of a server still held: why, and how the person releases it; nothing of its text. */
function heldAnswer(children: Children, name: string, decision: Decision | undefined) {
  const trust = children.snapshot.servers.get(name)?.trust;
  if (!trust?.serverHeld) return undefined;
  const why =
    trust.serverHeld === 'hard-flag'
      ? "mcpmux's poisoning scanner raised a flag on its text"
      : "it runs strangers' code (a registry entry, a package runner or a remote URL)";
  return {
    state: 'held' as const,
    items: trust.held.size,
    message:
      `server '${name}' runs, but its ${trust.held.size} tools, prompts and templates are held from you because ${why}` +
      (decision === 'declined'
        ? '; the person declined to release it.'
        : decision === 'not-listed'
          ? '; it lists nothing yet, so there is nothing to show the person.'
          : '; your client cannot show the person a form to release it.') +
      ` Only a person can release it: \`mcpmux approve ${name}\` in a terminal, or "trust": "approved" in its config entry. remove_server stops it.`,
  };
}

export function requireConfig(config: PersistentConfig | undefined, tool: string): asserts config {
  if (!config)
    throw new MuxError(
      'INVALID_ARGUMENTS',
      `${tool}: persist needs a config file, and mcpmux was started without --config; nothing was changed`,
    );
}

/**
 * The entry add_server writes into the config, and the spec it stands for: one that entered
 * held is written `"trust": "held"`, or the config would trust on its next start, as the
 * operator's, what no person approved. What a person approves is kept by identity, and
 * releases it then too.
 */
export function toPersist<S extends ServerSpec | undefined>(
  children: Children,
  name: string,
  entry: Record<string, unknown>,
  spec: S,
  started?: ServerSpec,
): [Record<string, unknown>, S] {
  const [sandboxedEntry, sandboxedSpec] = withSandbox(entry, spec, started);
  if (children.snapshot.servers.get(name)?.trust?.entered !== 'held') return [sandboxedEntry, sandboxedSpec];
  return [{ ...sandboxedEntry, trust: 'held' }, (sandboxedSpec && { ...sandboxedSpec, trust: 'held' }) as S];
}

/**
 * The sandbox --sandbox gave an added server is written with it: a config's server runs in
 * none by default, so the next start would run unconfined what ran confined.
 */
function withSandbox<S extends ServerSpec | undefined>(
  entry: Record<string, unknown>,
  spec: S,
  started: ServerSpec | undefined,
): [Record<string, unknown>, S] {
  const sandbox = started?.transport === 'stdio' ? started.sandbox : undefined;
  if (sandbox === undefined || entry['sandbox'] !== undefined) return [entry, spec];
  return [{ ...entry, sandbox: sandboxWire(sandbox) }, (spec && { ...spec, sandbox }) as S];
}

/** What add_server and remove_server say of a change in a cluster. */
export interface ClusterChange {
  replica: string;
  waiting_for?: string[];
}

/**
 * A server started here becomes every replica's (each starts it through its own spawn policy).
 * Redis gone since the start: the server is stopped again, and the add refused, as if Redis had
 * been gone before.
 */
export async function sharedWithCluster(
  ctx: Pick<ManagementContext, 'children' | 'cluster'>,
  name: string,
  entry: Record<string, unknown>,
): Promise<{ cluster: ClusterChange }> {
  let waiting: string[];
  try {
    ({ waiting } = await ctx.cluster!.published(name, entry));
  } catch (error) {
    await ctx.children.remove(name).catch(() => {});
    throw error;
  }
  return { cluster: clusterChange(ctx.cluster!.replica, waiting) };
}

/** A placement is a cluster's word: refused where this mcpmux is not a replica. */
export function checkPlacement(placement: string | undefined, inCluster: boolean): void {
  if (placement !== undefined && !inCluster)
    throw new MuxError(
      'INVALID_ARGUMENTS',
      'add_server: placement says where a server runs in a cluster of replicas, and this mcpmux is not one (--redis)',
    );
}

/** The change made through `replica`; `waiting` the replicas that had not applied it when the wait ended. */
export function clusterChange(replica: string, waiting: readonly string[]): ClusterChange {
  return { replica, ...(waiting.length > 0 && { waiting_for: [...waiting] }) };
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
