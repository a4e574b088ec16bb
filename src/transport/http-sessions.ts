// The open HTTP sessions: how many there may be, and when an idle one ends. A client that
// just goes away sends no DELETE (the SDK client's close() does not), so a session that has
// had no request in flight and no open stream for the idle timeout is closed, and with it
// everything it held. A request in flight or a live SSE stream counts as activity.

export interface SessionTableOptions {
  /** A session with nothing in flight for this long is closed. 0: never. */
  idleTimeoutMs: number;
  /** Sessions open at once, counting those being initialized. */
  maxSessions: number;
  /** How often idle sessions are looked for. Default: a quarter of the idle timeout, 250 ms to 60 s. */
  sweepIntervalMs?: number;
  /** Closes a session that timed out (its transport's close, which ends in `remove`). */
  expire: (id: string, idleMs: number) => void;
  now?: () => number;
}

interface Activity {
  /** Requests and streams of this session that are still open. */
  open: number;
  lastActive: number;
}

export class SessionTable<T> {
  readonly #options: SessionTableOptions;
  readonly #entries = new Map<string, { value: T; activity: Activity }>();
  /** Sessions reserved while their initialize runs. */
  #reserved = 0;
  #sweeper: NodeJS.Timeout | undefined;
  readonly #now: () => number;

  constructor(options: SessionTableOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Takes a place for a new session; false when the table is full. Give it back with `unreserve`. */
  reserve(): boolean {
    if (this.#entries.size + this.#reserved >= this.#options.maxSessions) return false;
    this.#reserved++;
    return true;
  }

  unreserve(): void {
    this.#reserved = Math.max(0, this.#reserved - 1);
  }

  /** Turns a reservation into an open session. */
  add(id: string, value: T): void {
    this.unreserve();
    this.#entries.set(id, { value, activity: { open: 0, lastActive: this.#now() } });
    this.#startSweeping();
  }

  get(id: string): T | undefined {
    return this.#entries.get(id)?.value;
  }

  /** Counts the session busy until `done` is called (a request answered, a stream closed). */
  busy(id: string): () => void {
    const entry = this.#entries.get(id);
    if (!entry) return () => {};
    entry.activity.open++;
    entry.activity.lastActive = this.#now();
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      entry.activity.open--;
      entry.activity.lastActive = this.#now();
    };
  }

  /** Forgets a session; true when it was there. */
  remove(id: string): boolean {
    const removed = this.#entries.delete(id);
    if (this.#entries.size === 0) this.#stopSweeping();
    return removed;
  }

  /** Empties the table, handing back what it held. */
  drain(): T[] {
    const values = [...this.#entries.values()].map((e) => e.value);
    this.#entries.clear();
    this.#stopSweeping();
    return values;
  }

  /** Expires every session idle past the timeout; runs on the sweeper's timer. */
  sweep(): void {
    const now = this.#now();
    for (const [id, { activity }] of this.#entries) {
      const idle = now - activity.lastActive;
      if (activity.open === 0 && idle >= this.#options.idleTimeoutMs) this.#options.expire(id, idle);
    }
  }

  #startSweeping(): void {
    const timeout = this.#options.idleTimeoutMs;
    if (this.#sweeper || timeout === 0) return;
    const every = this.#options.sweepIntervalMs ?? Math.min(60_000, Math.max(250, timeout / 4));
    this.#sweeper = setInterval(() => this.sweep(), every);
    this.#sweeper.unref();
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}
