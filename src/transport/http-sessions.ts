// The open HTTP sessions: how many there may be, and when an idle one ends. A client that
// just goes away sends no DELETE (the SDK client's close() does not, nor does Gemini CLI at
// its exit), so a session that has had no request in flight and no open stream for the idle
// timeout is closed, and with it everything it held. A request in flight or a live SSE
// stream counts as activity. When the table is full, the session idle the longest (a minute
// at least) is closed to make room: a harness that runs many short clients would otherwise
// be refused once --max-sessions of them had come and gone within the idle timeout.

export interface SessionTableOptions<T> {
  /** A session with nothing in flight for this long is closed. 0: never. */
  idleTimeoutMs: number;
  /** Sessions open at once, counting those being initialized. */
  maxSessions: number;
  /** How often idle sessions are looked for. Default: a quarter of the idle timeout, 250 ms to 60 s. */
  sweepIntervalMs?: number;
  /** Closes a session that timed out (its transport's close, which ends in `remove`). */
  expire: (id: string, idleMs: number) => void;
  /** How long a session must have been idle to be closed for a new one. Default 60 s. */
  evictableAfterMs?: number;
  /** Closes a session to make room for a new one; it has left the table already. */
  evict: (id: string, value: T, idleMs: number) => void;
  now?: () => number;
}

const DEFAULT_EVICTABLE_AFTER_MS = 60_000;

interface Activity {
  /** Requests and streams of this session that are still open. */
  open: number;
  lastActive: number;
}

export class SessionTable<T> {
  readonly #options: SessionTableOptions<T>;
  readonly #entries = new Map<string, { value: T; activity: Activity }>();
  /** Sessions reserved while their initialize runs. */
  #reserved = 0;
  #sweeper: NodeJS.Timeout | undefined;
  readonly #now: () => number;

  constructor(options: SessionTableOptions<T>) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Takes a place for a new session, closing the session idle the longest when the table is
   * full; false when none has been idle long enough. Give it back with `unreserve`.
   */
  reserve(): boolean {
    if (this.#entries.size + this.#reserved >= this.#options.maxSessions && !this.#evictOne()) return false;
    this.#reserved++;
    return true;
  }

  #evictOne(): boolean {
    const now = this.#now();
    const evictableAfter = this.#options.evictableAfterMs ?? DEFAULT_EVICTABLE_AFTER_MS;
    let victim: { id: string; value: T; idle: number } | undefined;
    for (const [id, { value, activity }] of this.#entries) {
      const idle = now - activity.lastActive;
      if (activity.open === 0 && idle >= evictableAfter && idle > (victim?.idle ?? -1))
        victim = { id, value, idle };
    }
    if (!victim) return false;
    this.#entries.delete(victim.id);
    this.#options.evict(victim.id, victim.value, victim.idle);
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
