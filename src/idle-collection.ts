// One full garbage collection once mcpmux has gone quiet after a burst of catalog work.
// Taking on many servers (their lists parsed, the aggregated list built and serialized at
// each change) grows V8's heap to its burst size, and Node never gives that back while the
// process idles: with 50 servers of 100 tools, ~35 MB of RSS that the live data (under
// 30 MB of heap) does not need. A browser collects at idle time; Node has no idle hook, so
// mcpmux does it itself, once, when nothing has changed for QUIET_MS: a full collection of
// its heap costs ~10–30 ms, paid then rather than never.
import v8 from 'node:v8';
import vm from 'node:vm';

/** How long the catalog must stay unchanged before the heap is collected. */
const QUIET_MS = 1000;

/** While V8's heap is smaller than this, there is too little to give back to be worth a pause. */
const MIN_HEAP_BYTES = 24 * 1024 * 1024;

export class IdleCollection {
  /** Made at the first collection: a context costs ~3 ms, not to be paid at every start. */
  #collect: (() => void) | undefined;
  readonly #quietMs: number;
  readonly #minHeapBytes: number;
  #timer: NodeJS.Timeout | undefined;
  /** How many collections ran, for tests and logs. */
  collections = 0;

  constructor(options: { quietMs?: number; minHeapBytes?: number; collect?: () => void } = {}) {
    this.#quietMs = options.quietMs ?? QUIET_MS;
    this.#minHeapBytes = options.minHeapBytes ?? MIN_HEAP_BYTES;
    this.#collect = options.collect;
  }

  /** Something allocated in bulk (a server came, went or changed): collect once it has been quiet. */
  activity(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (v8.getHeapStatistics().total_heap_size < this.#minHeapBytes) return;
      this.collections++;
      (this.#collect ??= fullCollection())();
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
