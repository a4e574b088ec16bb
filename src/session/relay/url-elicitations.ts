// URL-mode elicitation (MCP 2025-11-25): a child asks a client to send its user to a URL, and
// may later say that the interaction there ended (notifications/elicitation/complete, naming
// the elicitationId of its request). That notice must go only to the client that was asked,
// so mcpmux remembers, by server and id, whom it relayed each such request to, and whose
// call a -32042 error answered (it names elicitations without asking). A notice it cannot
// match goes to the only client mcpmux has served, when there has been only one.
import type { JSONRPCRequestLike, NotifyClient } from '../../child/child-types.js';

/** Elicitations remembered at most, the oldest forgotten first: a server need never say one ended. */
const REMEMBERED = 1000;

export class UrlElicitations {
  readonly #asked = new Map<string, NotifyClient>();

  /** A child's elicitation/create, relayed to the client that `notify` reaches. */
  asked(server: string, request: JSONRPCRequestLike, notify: NotifyClient | undefined): void {
    const id = request.params?.['elicitationId'];
    if (request.params?.['mode'] !== 'url' || typeof id !== 'string' || !notify) return;
    const key = keyOf(server, id);
    this.#asked.delete(key);
    this.#asked.set(key, notify);
    if (this.#asked.size > REMEMBERED) this.#asked.delete(this.#asked.keys().next().value!);
  }

  /** Who to tell that the child's elicitation ended (once; undefined: no client is known to have been asked). */
  completed(server: string, notification: JSONRPCRequestLike): NotifyClient | undefined {
    const id = notification.params?.['elicitationId'];
    if (typeof id !== 'string') return undefined;
    const key = keyOf(server, id);
    const notify = this.#asked.get(key);
    this.#asked.delete(key);
    return notify;
  }

  /** A server that is gone completes nothing more. */
  forget(server: string): void {
    const prefix = keyOf(server, '');
    for (const key of this.#asked.keys()) if (key.startsWith(prefix)) this.#asked.delete(key);
  }
}

const keyOf = (server: string, id: string) => `${server}\u0000${id}`;

/** MCP's error for a call that needs the user to visit URLs first (URLElicitationRequiredError). */
export const URL_ELICITATION_REQUIRED = -32042;

/** The URL elicitations a call's error names (its data's `elicitations`), as elicitation/create params. */
export function elicitationsRequired(error: unknown): Record<string, unknown>[] {
  if (typeof error !== 'object' || error === null) return [];
  const { code, data } = error as { code?: unknown; data?: { elicitations?: unknown } };
  if (code !== URL_ELICITATION_REQUIRED || !Array.isArray(data?.elicitations)) return [];
  return data.elicitations.filter(
    (e): e is Record<string, unknown> => typeof e === 'object' && e !== null && !Array.isArray(e),
  );
}
