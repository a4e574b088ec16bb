// How much the kept results of all sessions of this process may take together. Each is a
// file under TMPDIR for an hour, and TMPDIR is often a tmpfs (memory): an agent that reads
// a 10 MB log every minute would hold 600 MB there by the hour's end, and each HTTP session
// has a store of its own. Past the budget the oldest kept results are dropped first, and a
// result larger than the whole budget is not kept at all.

/** 256 MiB: twenty-five 10 MB results, or thousands of the usual few hundred KB. */
export const DEFAULT_KEPT_BYTES = 256 * 1024 * 1024;

interface Kept {
  bytes: number;
  drop: () => void;
}

export class KeptBudget {
  readonly maxBytes: number;
  #bytes = 0;
  /** By key, oldest first (a Map keeps insertion order). */
  readonly #kept = new Map<string, Kept>();

  constructor(maxBytes = DEFAULT_KEPT_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Counts a kept result; drops the oldest others (calling their `drop`) until all fit. */
  add(key: string, bytes: number, drop: () => void): void {
    this.#kept.set(key, { bytes, drop });
    this.#bytes += bytes;
    for (const [oldest, kept] of this.#kept) {
      if (this.#bytes <= this.maxBytes || oldest === key) break;
      this.remove(oldest);
      kept.drop();
    }
  }

  /** A result is no longer kept (read to its end of life, or its session ended). */
  remove(key: string): void {
    const kept = this.#kept.get(key);
    if (!kept) return;
    this.#kept.delete(key);
    this.#bytes -= kept.bytes;
  }
}

/** The budget every store of this process shares unless given one (tests give their own). */
export const processKeptBudget = new KeptBudget();
