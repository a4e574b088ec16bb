// Coalesces bursts of changes (a reload is a stop and a start; a config starts many
// servers) into one list_changed notification (one notifier per list), and holds it back
// until the client has finished initialization, when notifications are allowed.

export interface ListChangedNotifierOptions {
  /** Sends the notification. */
  send: () => Promise<void>;
  /** Quiet time after the last change before sending. Default 10 ms. */
  debounceMs?: number;
  onError?: (error: unknown) => void;
}

export class ListChangedNotifier {
  readonly #options: ListChangedNotifierOptions;
  #timer: NodeJS.Timeout | undefined;
  #ready = false;
  #pending = false;

  constructor(options: ListChangedNotifierOptions) {
    this.#options = options;
  }

  /** The client finished initialization; a change seen before is sent now. */
  ready(): void {
    this.#ready = true;
    if (this.#pending) this.changed();
  }

  changed(): void {
    this.#pending = true;
    if (!this.#ready) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#flush(), this.#options.debounceMs ?? 10);
  }

  /** Stops any pending send. */
  close(): void {
    clearTimeout(this.#timer);
    this.#ready = false;
  }

  #flush(): void {
    this.#pending = false;
    this.#options.send().catch((error) => this.#options.onError?.(error));
  }
}
