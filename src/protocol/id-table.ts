// The fast path's calls in flight, by the client's JSON-RPC id (fast-path.ts) or a lane's
// sequence number (child-lane.ts), in a ring and plain dictionaries rather than Maps.
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
  // Most clients number their requests 1, 2, 3…, and a lane numbers its calls so: such an id
  // takes a slot of a small ring by its low bits, which a lookup reads without hashing and a
  // delete clears without reshaping anything. A dictionary hashes its integer keys (SipHash)
  // and, taking a set and a delete on every call, rebuilds itself now and then (~2% of
  // mcpmux's CPU at concurrency 64); with one call in flight it shrinks to nothing and grows
  // again each time (a sequential client's case, ~5 µs of mcpmux's CPU a call in a profile).
  // An id whose slot is taken, a string or any other number goes to the dictionaries.
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

/** Ids held in the ring: calls in flight at once beyond which some go to the dictionaries. */
const RING_SIZE = 256;
const RING_MASK = RING_SIZE - 1;
