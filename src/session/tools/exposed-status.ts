// What the management tools report of a server, under the names its client calls things by
// (exposed names, withheld duplicates left out) rather than the server's own.
import type { Tool } from '@modelcontextprotocol/server';
import type { ChildStatus } from '../../child/child-status.js';
import type { ToolDiff } from '../../children/catalog-diff.js';
import type { ChildrenSnapshot, ServerView } from '../../children/children-snapshot.js';
import type { CatalogRouter } from '../../router/catalog-router.js';

/** A server's status with its tools and prompts under the names the client calls them by. */
export function exposeStatus(
  status: ChildStatus,
  router: CatalogRouter,
  snapshot: ChildrenSnapshot,
): ChildStatus {
  // Two child tools that map to one exposed name are one tool to the client (the first); a
  // name withheld for another server's (a server with its own prefix) is not this one's; an
  // item held for the person is not named to the model.
  const view = snapshot.servers.get(status.name);
  const exposed = (kind: 'tools' | 'prompts', names: string[]) => [
    ...new Set(
      names
        .filter((n) => !heldFromModel(view, kind === 'tools' ? 'tool' : 'prompt', n))
        .map((n) => router.exposedName(status.name, n, status.prefix))
        .filter((n) => !router.heldByOther(snapshot, kind, n, status.name)),
    ),
  ];
  return {
    ...status,
    tools: exposed('tools', status.tools),
    ...(status.prompts && { prompts: exposed('prompts', status.prompts) }),
  };
}

/** The tools as the client can call them now: exposed name, description and schemas. */
export function summarize(
  status: ChildStatus,
  tools: readonly Tool[],
  router: CatalogRouter,
  snapshot: ChildrenSnapshot,
) {
  const view = snapshot.servers.get(status.name);
  const listed = router
    .exposedItems(
      'tools',
      status.name,
      tools.filter((t) => !heldFromModel(view, 'tool', t.name)),
      status.prefix,
    )
    .filter((t) => !router.heldByOther(snapshot, 'tools', t.name, status.name));
  return listed.map((t) => ({
    name: t.name,
    ...(t.description !== undefined && { description: t.description }),
    inputSchema: t.inputSchema,
    ...(t.outputSchema !== undefined && { outputSchema: t.outputSchema }),
  }));
}

/** Whether the trust gate keeps this item of the server from the model (held whole, or the item). */
export function heldFromModel(view: ServerView | undefined, kind: 'tool' | 'prompt', name: string): boolean {
  const trust = view?.trust;
  return trust !== undefined && (trust.serverHeld !== undefined || trust.held.has(`${kind}:${name}`));
}

/**
 * A reload's tool diff under the exposed names. A new tool held for the person is not named
 * (its name is a stranger's text); a changed one is, by the name that was approved.
 */
export function exposeDiff(
  status: ChildStatus,
  diff: ToolDiff,
  router: CatalogRouter,
  snapshot: ChildrenSnapshot,
): ToolDiff {
  const view = snapshot.servers.get(status.name);
  const map = (names: string[]) => names.map((n) => router.exposedName(status.name, n, status.prefix));
  const added = diff.added.filter((n) => !heldFromModel(view, 'tool', n));
  // A server held whole approved no name of its own yet.
  const changed = view?.trust?.serverHeld ? [] : diff.changed;
  return { added: map(added), removed: map(diff.removed), changed: map(changed) };
}
