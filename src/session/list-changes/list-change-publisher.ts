// List changes for clients that have no session of their own: modern (2026-07-28) HTTP
// clients are served request by request and hear of changes on their subscriptions/listen
// streams. One publisher hears the children for all of them and publishes each change once,
// debounced like a session's own list_changed.
import type { Children } from '../../children/children.js';
import { CAPABILITY_ROWS, CAPABILITY_TABLE, type ListChangedMethod } from '../../protocol/capabilities.js';
import { ListChangedNotifier } from './list-changed-notifier.js';

export interface ListChangePublisherOptions {
  children: Children;
  /** Sends one list's change to every listening client. */
  publish: (method: ListChangedMethod) => void;
  /** Quiet time before a change goes out. Default 10 ms. */
  debounceMs?: number;
  /**
   * With `--expose search` or `code` the tools a client lists are mcpmux's own and the found
   * ones, not the children's: whether that list differs from the last time this was asked. A
   * server added or removed is then published only when the list really changed.
   */
  toolsChangedSinceAsked?: () => boolean;
}

export class ListChangePublisher {
  readonly #notifiers: ReadonlyMap<ListChangedMethod, ListChangedNotifier>;
  readonly #unsubscribe: () => void;
  readonly #toolsChanged: (() => boolean) | undefined;

  constructor(options: ListChangePublisherOptions) {
    this.#notifiers = new Map(
      CAPABILITY_ROWS.map(({ listChanged: method }) => {
        const notifier = new ListChangedNotifier({
          send: async () => options.publish(method),
          debounceMs: options.debounceMs ?? 10,
          onError: () => {},
        });
        notifier.ready();
        return [method, notifier] as const;
      }),
    );
    const toolsChanged = (this.#toolsChanged = options.toolsChangedSinceAsked);
    // The first answer is the baseline later changes are told against.
    toolsChanged?.();
    this.#unsubscribe = options.children.onChange((change) => {
      for (const kind of change.kinds)
        if (kind !== 'tools' || !toolsChanged || toolsChanged())
          this.#notify(CAPABILITY_TABLE[kind].listChanged);
    });
  }

  /** A list changed for another reason than the children (the shared search pool). */
  changed(method: ListChangedMethod): void {
    // Moves the baseline too, so that the next change of the children is not told again for this one.
    if (method === 'notifications/tools/list_changed') this.#toolsChanged?.();
    this.#notify(method);
  }

  /** Sends the changes pending now at once (see ListChangedNotifier.flush). */
  async flush(): Promise<void> {
    await Promise.all([...this.#notifiers.values()].map((notifier) => notifier.flush()));
  }

  #notify(method: ListChangedMethod): void {
    this.#notifiers.get(method)?.changed();
  }

  close(): void {
    this.#unsubscribe();
    for (const notifier of this.#notifiers.values()) notifier.close();
  }
}
