// One full garbage collection once mcpmux has gone quiet after catalog work: start-up,
// servers taken on (their lists parsed, the aggregated list built and serialized at each
// change), large lists sent, HTTP sessions ended (each held an SDK server and transport). That work grows V8's heap to its burst size, and Node gives it
// back only when V8's memory reducer runs, which it starts after a full collection that a
// small heap may never reach: measured, an empty mcpmux stayed at 69 MB of RSS for good,
// and one collection a second after its first answer brought it to 59.5 MB; with 50
// servers of 100 tools, ~35 MB of RSS that the live data does not need. A browser collects
// at idle time; Node has no idle hook, so mcpmux does it itself, once per quiet spell
// (nothing new for QUIET_MS): a full collection costs ~5 ms on an empty mcpmux and
// ~10–30 ms at 5,000 tools, paid then rather than never.
import v8 from 'node:v8';
import vm from 'node:vm';

/** How long the catalog must stay untouched before the heap is collected. */
const QUIET_MS = 1000;

export class IdleCollection {
  /** Made at the first collection: a context costs ~3 ms, not to be paid at every start. */
  #collect: (() => void) | undefined;
  readonly #quietMs: number;
  readonly #onCollected: ((heap: { usedBytes: number; totalBytes: number }) => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** How many collections ran, for tests and logs. */
  collections = 0;

  /**
   * `onCollected` hears the heap each collection leaves: what is live then is what mcpmux
   * holds (a leak shows there), while the heap's size and RSS come down only when V8's
   * memory reducer gives the freed pages back, seconds to a minute later.
   */
  constructor(
    options: {
      quietMs?: number;
      collect?: () => void;
      onCollected?: (heap: { usedBytes: number; totalBytes: number }) => void;
    } = {},
  ) {
    this.#quietMs = options.quietMs ?? QUIET_MS;
    this.#collect = options.collect;
    this.#onCollected = options.onCollected;
  }

  /** Something allocated in bulk (start-up, a server came, went or changed, a list was sent): collect once it has been quiet. */
  activity(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.collections++;
      (this.#collect ??= fullCollection())();
      if (this.#onCollected) {
        const { heapUsed, heapTotal } = process.memoryUsage();
        this.#onCollected({ usedBytes: heapUsed, totalBytes: heapTotal });
      }
    }, this.#quietMs);
    // Never what keeps mcpmux alive.
    this.#timer.unref();
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * V8's full collection, without running Node with --expose-gc: the flag is set for as long
 * as it takes one new context to receive `gc`, then cleared (as Jest's leak detector does).
 */
function fullCollection(): () => void {
  const exposed = typeof globalThis.gc === 'function';
  if (exposed) return () => globalThis.gc!();
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}
