// In `--expose search` mode the client lists only a few tools; search_tools with
// `activate: true` adds what it found to that list. The pool is bounded: past the limit,
// the least recently used tool leaves. Tools keep their place in the list while they stay,
// new ones are appended, so a client's prompt cache of the list survives an activation.
export class ActivationPool {
  readonly #limit: number;
  /** Listed order (first activation); the value is the last use, for eviction. */
  readonly #tools = new Map<string, number>();
  #clock = 0;
  #version = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Changes whenever the listed set changes (for caching the list). */
  get version(): number {
    return this.#version;
  }

  /** Activates `names` (most relevant first); says which were added and which left to make room. */
  activate(names: readonly string[]): { added: string[]; evicted: string[] } {
    const wanted = [...new Set(names)].slice(0, this.#limit);
    const added: string[] = [];
    // The most relevant gets the most recent use; a tool already listed keeps its place.
    const base = this.#clock;
    this.#clock += wanted.length;
    wanted.forEach((name, i) => {
      if (!this.#tools.has(name)) added.push(name);
      this.#tools.set(name, base + wanted.length - i);
    });
    const evicted: string[] = [];
    while (this.#tools.size > this.#limit) {
      let oldest: string | undefined;
      for (const [name, used] of this.#tools)
        if (oldest === undefined || used < this.#tools.get(oldest)!) oldest = name;
      this.#tools.delete(oldest!);
      evicted.push(oldest!);
    }
    if (added.length > 0 || evicted.length > 0) this.#version++;
    return { added, evicted };
  }

  /** A call of an active tool counts as a use. */
  touch(name: string): void {
    if (this.#tools.has(name)) this.#tools.set(name, ++this.#clock);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Active names in listed order. */
  listed(): string[] {
    return [...this.#tools.keys()];
  }
}
