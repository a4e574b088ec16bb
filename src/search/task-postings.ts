// The postings a task is scored from: for each term, the tools that have it and its BM25
// score in each (MiniSearch's formula, fields and boosts, with the task's parameters). A
// task is ranked as a whole and request by request (task-clauses.ts), up to nine texts of
// up to fifty words: through MiniSearch each would be a search that builds a result object
// for every tool matched and sorts them all (40 ms at 5,000 tools). Here a term's scores are
// worked out once per catalog and each text only adds them up (task-query.ts says how they
// become a ranking). Short queries keep MiniSearch: typo tolerance and prefixes are its own.
import type { TextTotals } from './task-query.js';

/** The fields a tool is scored on, with their boosts (the same as MiniSearch's search options). */
export const FIELD_BOOSTS = {
  name: 4,
  server: 1.5,
  args: 1.5,
  description: 1,
  argDescriptions: 0.5,
} as const;
export type Field = keyof typeof FIELD_BOOSTS;
const FIELDS = Object.keys(FIELD_BOOSTS) as Field[];

/** BM25 parameters as MiniSearch names them. */
export interface Bm25Parameters {
  k: number;
  b: number;
  d: number;
}

/** A tool's fields as the index reads them: the raw words of each, and their terms. */
export interface FieldWords {
  /** Per field: the words as the tokenizer gives them (a field's length is how many distinct ones). */
  words: Readonly<Record<Field, readonly string[]>>;
  /** Per field: the terms (stemmed, stopwords gone) of those words, repeats kept. */
  terms: Readonly<Record<Field, readonly string[]>>;
}

/** The tools that have a term: their slots and, per tool, its counts in each field packed in one number. */
interface Postings {
  slots: number[];
  counts: number[];
}

/** Occurrences per field are packed six bits each (a count past 63 counts as 63): one small integer a posting. */
const COUNT_BITS = 6;
const COUNT_MAX = (1 << COUNT_BITS) - 1;
const countIn = (packed: number, f: number) => (packed >> (f * COUNT_BITS)) & COUNT_MAX;
const NAME = FIELDS.indexOf('name');
const SERVER = FIELDS.indexOf('server');
const DESCRIPTION = FIELDS.indexOf('description');

/** How much more a word of a name counts than one of a description, in a server's words. */
const NAME_WORD_WEIGHT = 2;
/**
 * Dirichlet smoothing of a server's words with the catalog's (the μ of query likelihood): about
 * the length of a large server's words. 500–2,000 did about as well on the development halves.
 */
const SERVER_SMOOTHING = 1000;

interface TermScores {
  slots: Int32Array;
  scores: Float64Array;
}

export class TaskPostings {
  readonly #bm25: Bm25Parameters;
  /** Per slot: the tool's id (undefined once removed; the slot is reused). */
  readonly #ids: (string | undefined)[] = [];
  readonly #servers: string[] = [];
  /** Per slot: its server as a small number (servers are numbered as first met, and keep their number). */
  readonly #serverIndex: number[] = [];
  readonly #serverNumbers = new Map<string, number>();
  /** Per slot, per field: the field's length (distinct words). */
  readonly #lengths: number[][] = [];
  readonly #slotOf = new Map<string, number>();
  /** Per slot: its distinct terms (to take it out of their postings, and to say what it matched). */
  readonly #termsOf: (readonly string[])[] = [];
  readonly #free: number[] = [];
  /**
   * Per term: the tools that have it, as two arrays of small integers rather than an object a
   * posting (at 5,000 tools, objects took 12 MB more heap).
   */
  readonly #postings = new Map<string, Postings>();
  /** Per term: its scores in the catalog as it is (cleared when a tool comes or goes). */
  #scores = new Map<string, TermScores>();
  readonly #totalLength = FIELDS.map(() => 0);
  #count = 0;
  /** Per server number: the length of its words as one text (serverLikelihood), and its tools. */
  readonly #serverLength: number[] = [];
  readonly #serverTools: number[] = [];
  /** Per server number: what its own name adds to that length; per slot, what the tool adds. */
  readonly #serverNameLength: number[] = [];
  readonly #slotLength: number[] = [];
  #allServersLength = 0;

  constructor(bm25: Bm25Parameters) {
    this.#bm25 = bm25;
  }

  get size(): number {
    return this.#count;
  }

  /** How many tools have the term (in any field). */
  toolsWith(term: string): number {
    return this.#postings.get(term)?.slots.length ?? 0;
  }

  add(id: string, server: string, fields: FieldWords): void {
    if (this.#slotOf.has(id)) this.remove(id);
    const slot = this.#free.pop() ?? this.#ids.length;
    this.#slotOf.set(id, slot);
    this.#ids[slot] = id;
    this.#servers[slot] = server;
    let number = this.#serverNumbers.get(server);
    if (number === undefined) this.#serverNumbers.set(server, (number = this.#serverNumbers.size));
    this.#serverIndex[slot] = number;
    this.#lengths[slot] = FIELDS.map((field, f) => {
      const length = new Set(fields.words[field]).size;
      this.#totalLength[f]! += length;
      return length;
    });
    const packed = new Map<string, number>();
    FIELDS.forEach((field, f) => {
      for (const term of fields.terms[field]) {
        const counts = packed.get(term) ?? 0;
        if (countIn(counts, f) < COUNT_MAX) packed.set(term, counts + (1 << (f * COUNT_BITS)));
      }
    });
    this.#termsOf[slot] = [...packed.keys()];
    this.#addServerWords(slot, number, fields);
    for (const [term, counts] of packed) {
      let postings = this.#postings.get(term);
      if (!postings) this.#postings.set(term, (postings = { slots: [], counts: [] }));
      postings.slots.push(slot);
      postings.counts.push(counts);
    }
    this.#count++;
    this.#scores = new Map();
  }

  remove(id: string): void {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return;
    this.#slotOf.delete(id);
    this.#ids[slot] = undefined;
    this.#lengths[slot]!.forEach((length, f) => (this.#totalLength[f]! -= length));
    for (const term of this.#termsOf[slot]!) {
      const postings = this.#postings.get(term)!;
      const at = postings.slots.indexOf(slot);
      // The last posting takes its place: order within a term does not matter.
      postings.slots[at] = postings.slots.at(-1)!;
      postings.counts[at] = postings.counts.at(-1)!;
      postings.slots.pop();
      postings.counts.pop();
      if (postings.slots.length === 0) this.#postings.delete(term);
    }
    this.#termsOf[slot] = [];
    this.#removeServerWords(slot);
    this.#free.push(slot);
    this.#count--;
    this.#scores = new Map();
  }

  idOf(slot: number): string {
    return this.#ids[slot]!;
  }

  /** Whether the tool `id` has the term. */
  toolHas(id: string, term: string): boolean {
    const slot = this.#slotOf.get(id);
    return slot !== undefined && this.#termsOf[slot]!.includes(term);
  }

  serverOf(slot: number): string {
    return this.#servers[slot]!;
  }

  /**
   * The servers, most likely first, to have written a task's `terms`: each server's words as
   * one text (its name and its tools' names, each twice, and the distinct words of each
   * tool's description), and the task's likelihood under them, smoothed with the whole
   * catalog's (Dirichlet, μ = SERVER_SMOOTHING): Σ log(1 + c(w) ÷ (μ·p(w))) + n·log(μ ÷ (length + μ)).
   * Unlike a tool's best score, it credits a server for each of the task's words it has and
   * charges it for each it lacks, so one incidental word does not bring a server in.
   */
  serversByLikelihood(terms: readonly string[]): string[] {
    const servers = this.#serverNumbers.size;
    const likelihood = new Float64Array(servers);
    const count = new Float64Array(servers);
    /** The term each server's name was last counted for (its name counts once, not once a tool). */
    const namedFor = new Int32Array(servers).fill(-1);
    let searched = 0;
    [...new Set(terms)].forEach((term, t) => {
      const postings = this.#postings.get(term);
      if (!postings) return;
      const touched: number[] = [];
      let total = 0;
      postings.slots.forEach((slot, i) => {
        const packed = postings.counts[i]!;
        const server = this.#serverIndex[slot]!;
        let c = NAME_WORD_WEIGHT * countIn(packed, NAME) + (countIn(packed, DESCRIPTION) > 0 ? 1 : 0);
        if (countIn(packed, SERVER) > 0 && namedFor[server] !== t) {
          namedFor[server] = t;
          c += NAME_WORD_WEIGHT * countIn(packed, SERVER);
        }
        if (c === 0) return;
        if (count[server] === 0) touched.push(server);
        count[server]! += c;
        total += c;
      });
      if (total === 0) return; // only in arguments: not a word of these texts
      searched++;
      const expected = (SERVER_SMOOTHING * total) / this.#allServersLength;
      for (const server of touched) {
        likelihood[server]! += Math.log(1 + count[server]! / expected);
        count[server] = 0;
      }
    });
    const ranked: { name: string; score: number }[] = [];
    for (const [name, number] of this.#serverNumbers) {
      if (!this.#serverTools[number]) continue;
      const length = this.#serverLength[number]!;
      const score = likelihood[number]! + searched * Math.log(SERVER_SMOOTHING / (length + SERVER_SMOOTHING));
      ranked.push({ name, score });
    }
    return ranked.sort((a, b) => b.score - a.score).map(({ name }) => name);
  }

  #addServerWords(slot: number, server: number, fields: FieldWords): void {
    const own = NAME_WORD_WEIGHT * fields.terms.name.length + new Set(fields.terms.description).size;
    this.#slotLength[slot] = own;
    let added = own;
    if (!this.#serverTools[server]) {
      this.#serverNameLength[server] = NAME_WORD_WEIGHT * fields.terms.server.length;
      added += this.#serverNameLength[server]!;
    }
    this.#serverTools[server] = (this.#serverTools[server] ?? 0) + 1;
    this.#serverLength[server] = (this.#serverLength[server] ?? 0) + added;
    this.#allServersLength += added;
  }

  #removeServerWords(slot: number): void {
    const server = this.#serverIndex[slot]!;
    let removed = this.#slotLength[slot]!;
    this.#serverTools[server]!--;
    if (this.#serverTools[server] === 0) removed += this.#serverNameLength[server]!;
    this.#serverLength[server]! -= removed;
    this.#allServersLength -= removed;
  }

  /** Sums each tool's scores for `terms` (each counted once); `keep` narrows the tools. */
  score(terms: readonly string[], keep?: (slot: number) => boolean): TextTotals {
    const size = this.#ids.length;
    const sum = new Float64Array(size);
    const matched = new Uint16Array(size);
    const slots: number[] = [];
    for (const term of new Set(terms)) {
      const { slots: at, scores } = this.#termScores(term);
      for (let i = 0; i < at.length; i++) {
        const slot = at[i]!;
        if (keep && !keep(slot)) continue;
        if (matched[slot] === 0) slots.push(slot);
        sum[slot]! += scores[i]!;
        matched[slot]!++;
      }
    }
    return { slots, sum, matched, serverOf: this.#serverIndex, servers: this.#serverNumbers.size };
  }

  /** A term's BM25 score in each tool that has it: per field, times the field's boost, summed. */
  #termScores(term: string): TermScores {
    const cached = this.#scores.get(term);
    if (cached) return cached;
    const { slots = [], counts = [] } = this.#postings.get(term) ?? {};
    // How many tools have the term in each field (MiniSearch's document frequency is per field).
    const frequency = FIELDS.map((_, f) => counts.filter((packed) => countIn(packed, f) > 0).length);
    const average = this.#totalLength.map((total) => (this.#count > 0 ? total / this.#count : 0));
    const scores = new Float64Array(slots.length);
    slots.forEach((slot, i) => {
      let score = 0;
      FIELDS.forEach((field, f) => {
        const count = countIn(counts[i]!, f);
        if (count === 0) return;
        const length = this.#lengths[slot]![f]!;
        score +=
          FIELD_BOOSTS[field] * bm25(count, frequency[f]!, this.#count, length, average[f]!, this.#bm25);
      });
      scores[i] = score;
    });
    const result = { slots: Int32Array.from(slots), scores };
    this.#scores.set(term, result);
    return result;
  }
}

/** MiniSearch's BM25+ of one field (its calcBM25Score). */
function bm25(
  count: number,
  toolsWithTerm: number,
  tools: number,
  length: number,
  averageLength: number,
  { k, b, d }: Bm25Parameters,
): number {
  const idf = Math.log(1 + (tools - toolsWithTerm + 0.5) / (toolsWithTerm + 0.5));
  return idf * (d + (count * (k + 1)) / (count + k * (1 - b + (b * length) / averageLength)));
}
