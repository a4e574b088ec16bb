// Whether the client has listed tools again since it was told they changed. A client that
// reacts to list_changed (Claude Code does) re-lists in the background and builds its next
// model request as soon as a tool's answer arrives: told of add_server's tools only as its
// answer came, it saw them one turn late. So a tool that changed the list answers once the
// client has re-listed, or after a short bound; a client that does not re-list within it is
// not waited for again until it is seen re-listing.

/** How long a tool's answer waits for the client to list tools again. */
export const RELIST_WAIT_MS = 250;

export interface ClientRelistOptions {
  /** Default RELIST_WAIT_MS. */
  boundMs?: number;
  /** The client did not re-list within the bound: it is not waited for again until it does. */
  onNotRelisting?: () => void;
}

export class ClientRelist {
  #waiters: (() => void)[] = [];
  #relists = true;
  readonly #options: ClientRelistOptions;

  constructor(options: ClientRelistOptions = {}) {
    this.#options = options;
  }

  /** The client's tools/list was answered. */
  answered(): void {
    this.#relists = true;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Settles once the client has listed tools again after being told they changed, or after the bound. */
  async relisted(): Promise<void> {
    if (!this.#relists) return;
    let timer: NodeJS.Timeout | undefined;
    const relisted = await new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#options.boundMs ?? RELIST_WAIT_MS);
      this.#waiters.push(() => resolve(true));
    });
    clearTimeout(timer);
    if (relisted || !this.#relists) return;
    this.#relists = false;
    this.#options.onNotRelisting?.();
  }

  /** Nobody waits any more (the session ended). */
  close(): void {
    this.answered();
  }
}
