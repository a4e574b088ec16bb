// What a caller is told of a name the trust gate keeps from the model: that it is held, why,
// and what the person does to release it. The model is told no text of the item, and cannot
// release it: only the person (the client's form) or the operator (`mcpmux approve`) can.
import { MuxError } from '../common/errors.js';
import type { ServerView } from '../children/children-snapshot.js';
import { splitExposedName } from './tool-names.js';

/** A call to an item held since its server was approved: which server, which item (`tool:add`), so the person may be asked. */
export class HeldItemError extends MuxError {
  readonly server: string;
  readonly key: string;

  constructor(code: 'TOOL_CHANGED' | 'TOOL_PENDING', message: string, server: string, key: string) {
    super(code, message);
    this.server = server;
    this.key = key;
  }
}

/** The error for `name` (exposed) when the gate holds it, or the whole of its server; undefined when it does not. */
export function heldItemError(view: ServerView, kind: 'tool' | 'prompt', name: string): MuxError | undefined {
  const trust = view.trust;
  if (!trust) return undefined;
  const approve = `a person releases it with \`mcpmux approve ${view.name}\``;
  if (trust.serverHeld)
    return new MuxError(
      'SERVER_HELD',
      `server '${view.name}' is held until a person approves its text (${trust.serverHeld === 'hard-flag' ? "mcpmux's scanner raised a flag on it" : "it runs strangers' code the agent added"}): none of its tools can be called; ${approve}`,
    );
  const own = view.prefix !== undefined ? name.slice(view.prefix.length) : splitExposedName(name)?.tool;
  const key = `${kind}:${own}`;
  const reason = own === undefined ? undefined : trust.held.get(key);
  if (reason === 'changed')
    return new HeldItemError(
      'TOOL_CHANGED',
      `${kind} '${name}' changed since a person approved it, and is held until they approve the change: \`mcpmux pins diff ${view.name}\` shows it, \`mcpmux approve ${view.name} ${own}\` releases it`,
      view.name,
      key,
    );
  if (reason === 'new')
    return new HeldItemError(
      'TOOL_PENDING',
      `${kind} '${name}' is new since server '${view.name}' was approved, and waits for a person: \`mcpmux approve ${view.name} ${own}\` releases it`,
      view.name,
      key,
    );
  return undefined;
}
