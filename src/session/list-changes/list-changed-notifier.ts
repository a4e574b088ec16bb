// Coalesces bursts of changes (a reload is a stop and a start; a config starts many
// servers) into one list_changed notification (one notifier per list), and holds it back
// until the client has finished initialization, when notifications are allowed.
//
// While the servers given at start are starting, the client's lists wait for them, so a
// list it asked for then is answered with every one of them in it, and a list it has not
// asked for yet has nothing to refresh: the changes made while they start are never told. A
// client that lists once at connect is not told, right after its first answer, that the
// lists it has just been given (or any other) changed.

export interface ListChangedNotifierOptions {
  /** Sends the notification. */
  send: () => Promise<void>;
  /** Quiet time after the last change before sending. Default 10 ms. */
  debounceMs?: number;
  onError?: (error: unknown) => void;
}

/** Stands for every list of the notification (a change not tied to one catalog kind). */
const ALL = '*';

export class ListChangedNotifier {
  readonly #options: ListChangedNotifierOptions;
  #timer: NodeJS.Timeout | undefined;
  #ready = false;
  #held = false;
  /** The lists changed and not yet told (a notification may cover two: resources and templates). */
  readonly #pending = new Set<string>();

  constructor(options: ListChangedNotifierOptions) {
    this.#options = options;
  }

  /** The client finished initialization; a change seen before is sent now. */
  ready(): void {
    this.#ready = true;
    this.#schedule();
  }

  /**
   * Changes made until `until` settles (the servers given at start have started) are not
   * told: every list the client is given from then on has them.
   */
  holdUntil(until: Promise<unknown>): void {
    this.#held = true;
    const release = () => {
      this.#held = false;
      this.#pending.clear();
      this.#schedule();
    };
    until.then(release, release);
  }

  /** `list` (a catalog kind; all of this notification's lists when not given) changed. */
  changed(list: string = ALL): void {
    this.#pending.add(list);
    this.#schedule();
  }

  /**
   * The client was just given `list` as it is now, in an answer held while the servers
   * given at start were starting: the changes it holds back for that list are told by it.
   */
  given(list: string): void {
    this.#pending.delete(list);
    if (this.#pending.size === 0) clearTimeout(this.#timer);
  }

  /**
   * Sends a change pending now at once, not after the quiet time; true when it was sent. A
   * tool that changed a list answers after this settles, so the client hears of the change
   * before it reads the answer (Claude Code builds its next model request as a tool's answer
   * arrives; a list_changed 10 ms behind it reached only the turn after).
   */
  async flush(): Promise<boolean> {
    if (!this.#ready || this.#held || this.#pending.size === 0) return false;
    clearTimeout(this.#timer);
    this.#pending.clear();
    try {
      await this.#options.send();
      return true;
    } catch (error) {
      this.#options.onError?.(error);
      return false;
    }
  }

  /** Stops any pending send. */
  close(): void {
    clearTimeout(this.#timer);
    this.#ready = false;
  }

  #schedule(): void {
    if (!this.#ready || this.#held || this.#pending.size === 0) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#flush(), this.#options.debounceMs ?? 10);
  }

  #flush(): void {
    this.#pending.clear();
    this.#options.send().catch((error) => this.#options.onError?.(error));
  }
}
