// A call that reaches an item the trust gate holds since its server was approved (a changed
// tool, or a new one of a server a person approved): when the caller's client takes forms, the
// person is shown the change (what the model was shown, what it would be, the flags) and asked;
// their release approves that item, and the call goes on within the same request. The model
// sees only the call's answer; a decline leaves the error as it was (TOOL_CHANGED, TOOL_PENDING).
import type { Children } from '../children/children.js';
import { HeldItemError } from '../router/held-items.js';
import { APPROVAL_TIMEOUT_MS, changeForm, releases } from '../trust/approval-form.js';
import { itemKey } from '../trust/pin-store.js';
import { listedItems } from '../trust/trust-gate.js';
import type { AskPerson } from './tools/person-form.js';

/** Asks the person to release the held item `error` names; true when they did (and it is approved). */
export async function reviewHeldItem(
  error: unknown,
  children: Children,
  askPerson: AskPerson | undefined,
): Promise<boolean> {
  if (!(error instanceof HeldItemError) || !askPerson) return false;
  const view = children.snapshot.servers.get(error.server);
  const trust = view?.trust;
  const reason = trust?.held.get(error.key);
  if (!view || !trust || (reason !== 'changed' && reason !== 'new')) return false;
  const item = listedItems(view.listed).find((listed) => itemKey(listed) === error.key);
  if (!item) return false;
  const form = changeForm({
    name: view.name,
    identity: trust.identity,
    key: error.key,
    reason,
    item: item.item,
    before: trust.before.get(error.key),
    flags: trust.flags.get(error.key) ?? [],
  });
  // A client that fails the form (or a person who never answers) leaves the item held, as a decline does.
  const answer = await askPerson(form, APPROVAL_TIMEOUT_MS).catch(() => ({ action: 'cancel' }));
  if (!releases(answer)) return false;
  await children.approve(view.name, 'person', [error.key]);
  return true;
}
