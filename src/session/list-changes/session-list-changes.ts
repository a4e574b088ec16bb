// What one session's client hears of list changes: a list_changed per list, bursts
// coalesced and held while the servers given at start start (list-changed-notifier.ts), and
// the changes one of mcpmux's own tools made told before its answer, once the client has
// listed its tools again (client-relist.ts).
import type { Logger } from '../../common/log.js';
import { messageOf } from '../../common/errors.js';
import {
  CAPABILITY_ROWS,
  CAPABILITY_TABLE,
  type CatalogKind,
  type ListChangedMethod,
} from '../../protocol/capabilities.js';
import { ClientRelist, RELIST_WAIT_MS } from './client-relist.js';
import { ListChangedNotifier } from './list-changed-notifier.js';

const TOOLS_CHANGED: ListChangedMethod = 'notifications/tools/list_changed';

export interface SessionListChangesOptions {
  /** Sends one list's notification to the client. */
  send: (method: ListChangedMethod) => Promise<void>;
  /** Quiet time after the last change before sending. Default 10 ms. */
  debounceMs?: number | undefined;
  logger: Logger;
}

export class SessionListChanges {
  readonly #notifiers: ReadonlyMap<ListChangedMethod, ListChangedNotifier>;
  readonly #relist: ClientRelist;

  constructor({ send, debounceMs = 10, logger }: SessionListChangesOptions) {
    this.#notifiers = new Map(
      CAPABILITY_ROWS.map(({ listChanged: method }) => [
        method,
        new ListChangedNotifier({
          send: () => send(method),
          debounceMs,
          onError: (error) => logger.debug(() => `${method} not sent: ${messageOf(error)}`),
        }),
      ]),
    );
    this.#relist = new ClientRelist({
      onNotRelisting: () =>
        logger.debug(
          `the client did not list tools again within ${RELIST_WAIT_MS} ms of list_changed; answers no longer wait for it until it does`,
        ),
    });
  }

  /** Changes made until `until` settles are not told (see ListChangedNotifier.holdUntil). */
  holdUntil(until: Promise<unknown>): void {
    for (const notifier of this.#notifiers.values()) notifier.holdUntil(until);
  }

  /** The client finished initialization: changes may be told from now on. */
  ready(): void {
    for (const notifier of this.#notifiers.values()) notifier.ready();
  }

  /** The list of `kind` changed as the client sees it. */
  changed(kind: CatalogKind): void {
    this.#notifiers.get(CAPABILITY_TABLE[kind].listChanged)?.changed(kind);
  }

  /** The client was just given `kind`'s list as it is now (see ListChangedNotifier.given). */
  given(kind: CatalogKind): void {
    this.#notifiers.get(CAPABILITY_TABLE[kind].listChanged)?.given(kind);
  }

  /** The client's tools/list is being answered (call before the answer goes: waiters go after it). */
  toolsListed(): void {
    setImmediate(() => this.#relist.answered());
  }

  /**
   * Sends the changes pending now without waiting for the quiet time; when the tools changed,
   * settles once the client has listed them again (or after a short bound).
   */
  async tell(): Promise<void> {
    const sent = await Promise.all(
      [...this.#notifiers].map(
        async ([method, notifier]) => (await notifier.flush()) && method === TOOLS_CHANGED,
      ),
    );
    if (sent.includes(true)) await this.#relist.relisted();
  }

  close(): void {
    for (const notifier of this.#notifiers.values()) notifier.close();
    this.#relist.close();
  }
}
