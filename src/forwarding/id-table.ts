// The fast path's calls in flight, by a JSON-RPC id, in plain dictionaries rather than Maps.
// A Map that takes a set and a delete on every call rebuilds its hash table every few dozen
// calls, and V8 links each discarded table to its successor (for iterators that were on it).
// A discarded table that had reached the old generation is still scanned by young
// collections, so it keeps the next table, and every call in it, alive; those reach the old
// generation in turn, and so on. Measured at ~20,000 calls/s with both of the fast path's
// tables as Maps: ~1.5 MB survived each young collection and was promoted (the old generation
// grew by 21 MB of garbage per 40,000 calls), against ~0.1 MB with these dictionaries.
// Object.create(null) makes an object V8 keeps in dictionary mode from the start, with no
// prototype, so any string is a plain key (`__proto__` included).

export type Id = string | number;

export class IdTable<V> {
  // Most clients number their requests 1, 2, 3…: such an id takes a slot of a small ring by
  // its low bits, which a lookup reads without hashing and a delete clears without reshaping
  // anything. A dictionary that takes a set and a delete on every call does both: with one
  // call in flight it shrinks to nothing and grows again each time (a sequential client's
  // case, ~5 µs of mcpmux's CPU a call in a profile). An id whose slot is taken, a string or
  // any other number goes to the dictionaries.
  #ringIds: (number | undefined)[] = [];
  #ringValues: (V | undefined)[] = [];
  // Numbers and strings are different ids (7 is not "7"): one dictionary for each.
  #byNumber = Object.create(null) as Record<number, V>;
  #byString = Object.create(null) as Record<string, V>;
  #inDictionaries = 0;

  get(id: Id): V | undefined {
    if (typeof id === 'number') {
      const slot = id & RING_MASK;
      if (this.#ringIds[slot] === id) return this.#ringValues[slot];
    }
    return this.#inDictionaries === 0 ? undefined : this.#fromDictionaries(id);
  }

  has(id: Id): boolean {
    return this.get(id) !== undefined;
  }

  set(id: Id, value: V): void {
    const inDictionaries = this.#inDictionaries > 0 && this.#fromDictionaries(id) !== undefined;
    if (!inDictionaries && typeof id === 'number' && Number.isSafeInteger(id) && id >= 0) {
      if (this.#ringIds.length === 0) this.#makeRing();
      const slot = id & RING_MASK;
      const held = this.#ringIds[slot];
      if (held === undefined || held === id) {
        this.#ringIds[slot] = id;
        this.#ringValues[slot] = value;
        return;
      }
    }
    if (!inDictionaries) this.#inDictionaries++;
    if (typeof id === 'number') this.#byNumber[id] = value;
    else this.#byString[id] = value;
  }

  delete(id: Id): void {
    if (typeof id === 'number') {
      const slot = id & RING_MASK;
      if (this.#ringIds[slot] === id) {
        this.#ringIds[slot] = undefined;
        this.#ringValues[slot] = undefined;
        return;
      }
    }
    if (this.#inDictionaries === 0 || this.#fromDictionaries(id) === undefined) return;
    this.#inDictionaries--;
    if (typeof id === 'number') delete this.#byNumber[id];
    else delete this.#byString[id];
  }

  /** Every value (a copy: the table may change while it is walked). */
  values(): V[] {
    const inRing = this.#ringValues.filter((value) => value !== undefined);
    if (this.#inDictionaries === 0) return inRing;
    return [...inRing, ...Object.values(this.#byNumber), ...Object.values(this.#byString)];
  }

  #fromDictionaries(id: Id): V | undefined {
    return typeof id === 'number' ? this.#byNumber[id] : this.#byString[id];
  }

  #makeRing(): void {
    this.#ringIds = new Array<number | undefined>(RING_SIZE).fill(undefined);
    this.#ringValues = new Array<V | undefined>(RING_SIZE).fill(undefined);
  }
}

/**
 * Values keyed by a number that only grows (a lane's calls): a ring indexed by the number's
 * low bits, so a lookup hashes nothing (V8 hashes a dictionary's integer keys with SipHash,
 * and rebuilds a churned dictionary now and then: ~2% of mcpmux's CPU at concurrency 64). A
 * value still in its slot when the slot comes round again (a call slower than the ring's
 * size of later calls) moves to a dictionary.
 */
export class SeqTable<V extends { readonly seq: number }> {
  #ring: (V | undefined)[] = [];
  readonly #older = new IdTable<V>();
  #olderCount = 0;

  get(seq: number): V | undefined {
    const value = this.#ring[seq & RING_MASK];
    if (value !== undefined && value.seq === seq) return value;
    return this.#olderCount === 0 ? undefined : this.#older.get(seq);
  }

  add(value: V): void {
    // Made at the first call: a child never called costs nothing.
    if (this.#ring.length === 0) this.#ring = new Array<V | undefined>(RING_SIZE).fill(undefined);
    const slot = value.seq & RING_MASK;
    const held = this.#ring[slot];
    if (held !== undefined) {
      this.#older.set(held.seq, held);
      this.#olderCount++;
    }
    this.#ring[slot] = value;
  }

  delete(value: V): void {
    const slot = value.seq & RING_MASK;
    if (this.#ring[slot] === value) this.#ring[slot] = undefined;
    else if (this.#olderCount > 0 && this.#older.get(value.seq) === value) {
      this.#older.delete(value.seq);
      this.#olderCount--;
    }
  }
}

/** Calls in flight to one child, beyond which the oldest move to the dictionary. */
const RING_SIZE = 256;
const RING_MASK = RING_SIZE - 1;
