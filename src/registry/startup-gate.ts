// The servers given at start (a config file, the command line): until each one has started or
// failed (each bounded by its start-up timeout), a client's lists and calls wait for them, so
// that a client that lists once, and never listens for list_changed, sees them all.
export class StartupGate {
  #open = false;
  readonly #opened: Promise<void>;

  constructor(starts: readonly Promise<unknown>[]) {
    this.#opened = Promise.allSettled(starts).then(() => {
      this.#open = true;
    });
    if (starts.length === 0) this.#open = true;
  }

  /** Undefined once every start has settled (the common case costs nothing), else when they have. */
  wait(): Promise<void> | undefined {
    return this.#open ? undefined : this.#opened;
  }
}
