// The servers given at start (a config file, the command line): until each one has started or
// failed (each bounded by its start-up timeout), a client's lists and calls wait for them, so
// that a client that lists once, and never listens for list_changed, sees them all. A client
// that will not wait (Claude Code's headless mode sends its first model request about a second
// after it starts, with the tools it has by then) is better served by a bound (--wait-for-servers):
// past it the lists are answered with what runs, and list_changed tells of the rest.
/** Longest a client's initialize answer waits for the servers given at start. */
export const OPENING_WAIT_MS = 5000;

export class StartupGate {
  #open = false;
  readonly #opened: Promise<void>;

  constructor(starts: readonly Promise<unknown>[], boundMs?: number) {
    let timer: NodeJS.Timeout | undefined;
    const bound =
      boundMs === undefined
        ? []
        : [new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs).unref()))];
    this.#opened = Promise.race([Promise.allSettled(starts), ...bound]).then(() => {
      clearTimeout(timer);
      this.#open = true;
    });
    if (starts.length === 0 || boundMs === 0) this.#open = true;
  }

  /** Undefined once every start has settled (the common case costs nothing), else when they have. */
  wait(): Promise<void> | undefined {
    return this.#open ? undefined : this.#opened;
  }

  /**
   * What a client's opening (its initialize answer, which carries the servers' instructions)
   * waits for: the same, but at most OPENING_WAIT_MS, since a client may time out its opening.
   */
  openingWait(): Promise<void> | undefined {
    if (this.#open) return undefined;
    return Promise.race([
      this.#opened,
      new Promise<void>((resolve) => setTimeout(resolve, OPENING_WAIT_MS).unref()),
    ]);
  }
}
