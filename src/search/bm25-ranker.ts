// BM25 over a tool's fields, with MiniSearch: the name split into words, the server, the
// description, argument names and argument descriptions, with stemming (Porter, `stemmer`),
// stopwords and field boosts; an exact name match always ranks first. A whole task is scored
// as task-query.ts says, from postings of its own (task-postings.ts) with the same formula and
// boosts, as a whole and request by request (task-clauses.ts). Loaded at the first search (tool-index.ts).
import MiniSearch, { type SearchResult } from 'minisearch';
import { stemmer } from 'stemmer';
import { ALTERNATIVE_WEIGHT, alternativesOf } from './query-expansion.js';
import { withTaskServersRaised } from './server-prior.js';
import { FUSION_DEPTH, fuseRankings, taskClauses } from './task-clauses.js';
import { FIELD_BOOSTS, TaskPostings, type Field, type FieldWords } from './task-postings.js';
import { TASK_BM25, isTask, queryWords, rankTask, rarestWords, taskWords } from './task-query.js';
import { nameWords, type IndexedTool, type RankedTool, type ToolRanker } from './tool-ranker.js';

const STOPWORDS = new Set(
  'a an and are as at be by for from get has have in into is it its of on or set that the this to use used uses using with'.split(
    ' ',
  ),
);

/** Words of a text, names split into their words (the same for documents and queries). */
function tokenize(text: string): string[] {
  return text.split(/[^A-Za-z0-9]+/).flatMap((word) => nameWords(word));
}

/**
 * Each word's term, once: a catalog repeats its words (5,000 tools: ~1.2 million words, ~20,000
 * distinct), and stemming was most of what indexing them cost. Cleared when it grows past
 * TERM_CACHE_SIZE (a long session's queries keep adding words).
 */
const termCache = new Map<string, string | null>();
const TERM_CACHE_SIZE = 100_000;

/** Lower-cased, stopwords dropped, stemmed: the same for documents and queries. */
function processTerm(term: string): string | null {
  const cached = termCache.get(term);
  if (cached !== undefined) return cached;
  const lower = term.toLowerCase();
  const processed = lower.length === 0 || STOPWORDS.has(lower) ? null : stemmer(lower);
  if (termCache.size >= TERM_CACHE_SIZE) termCache.clear();
  termCache.set(term, processed);
  return processed;
}

interface RankOptions {
  limit: number;
  server?: string | undefined;
  /** The servers closest to a task in meaning, closest first (semantic-ranker.ts; server-prior.ts). */
  closestServers?: readonly string[] | undefined;
  /** How deep into a task's ranking its servers' tools are raised from (FUSION_DEPTH unless given). */
  depth?: number | undefined;
}

interface Document {
  id: string;
  /** The child's own tool name, in words (the server name is a field of its own). */
  name: string;
  server: string;
  description: string;
  args: string;
  argDescriptions: string;
}

/** BM25 over the tool fields, with MiniSearch; an exact (or near-exact) name match is put first. */
export class Bm25Ranker implements ToolRanker {
  #search = Bm25Ranker.#create();
  #docs = new Map<string, Document>();
  /** The same tools, for scoring a task's texts: made at the first task (~4 MB at 5,000 tools), then kept in step. */
  #taskPostings: TaskPostings | undefined;

  static #create(): MiniSearch<Document> {
    return new MiniSearch<Document>({
      fields: ['name', 'server', 'description', 'args', 'argDescriptions'],
      storeFields: ['server'],
      tokenize,
      processTerm,
      searchOptions: {
        boost: FIELD_BOOSTS,
        prefix: (term, index, terms) => index === terms.length - 1 && term.length >= 3,
        fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
        combineWith: 'OR',
      },
    });
  }

  update(tools: ReadonlyMap<string, IndexedTool>): void {
    // Remove what left or changed, add what is new: a change of one server leaves the others alone.
    for (const [id, doc] of this.#docs) {
      const now = tools.get(id);
      const next = now && toDocument(now);
      if (!next || (Object.keys(doc) as (keyof Document)[]).some((field) => next[field] !== doc[field])) {
        this.#search.discard(id);
        this.#taskPostings?.remove(id);
        this.#docs.delete(id);
      }
    }
    for (const [id, entry] of tools) {
      if (this.#docs.has(id)) continue;
      const doc = toDocument(entry);
      this.#search.add(doc);
      this.#taskPostings?.add(id, doc.server, fieldWords(doc));
      this.#docs.set(id, doc);
    }
  }

  /** The task postings, made from every tool the first time a task is searched. */
  get #postings(): TaskPostings {
    if (!this.#taskPostings) {
      this.#taskPostings = new TaskPostings(TASK_BM25);
      for (const [id, doc] of this.#docs) this.#taskPostings.add(id, doc.server, fieldWords(doc));
    }
    return this.#taskPostings;
  }

  rank(query: string, options: RankOptions): RankedTool[] {
    const words = queryWords(query);
    return isTask(words) ? this.#rankTask(query, options) : this.#rankWords(query, words, options);
  }

  /** A few words typed by hand: alternatives, typo tolerance, an exact name first. */
  #rankWords(
    query: string,
    words: string[],
    options: { limit: number; server?: string | undefined },
  ): RankedTool[] {
    const alternatives = alternativesOf(words);
    // Each word's term once: the query's own, the alternatives' that add something, and for
    // every term the word as the agent wrote it (MiniSearch reports matches as terms).
    const own = new Set<string>();
    const expanded = new Set<string>();
    const written = new Map<string, string>();
    for (const word of words) {
      const term = processTerm(word);
      if (term === null) continue;
      own.add(term);
      if (!written.has(term)) written.set(term, word);
    }
    for (const word of alternatives) {
      const term = processTerm(word);
      if (term === null || own.has(term)) continue;
      expanded.add(term);
      if (!written.has(term)) written.set(term, word);
    }
    // Alternatives go first: the last word of the query keeps its prefix match.
    const results = this.#search.search([...alternatives, query].join(' '), {
      ...serverFilter(options.server),
      ...(expanded.size > 0 && {
        boostTerm: (term: string) => (expanded.has(term) ? ALTERNATIVE_WEIGHT : 1),
      }),
    });
    const exact = exactName(query);
    const ranked = results.map((r) => ({ name: String(r.id), score: r.score, terms: r.queryTerms }));
    if (exact) {
      // A query that is a tool's name (exposed, or the child's own) means that tool.
      const at = ranked.findIndex(
        (r) => r.name === exact || r.name.slice(r.name.indexOf('__') + 2) === exact,
      );
      if (at > 0) ranked.unshift(...ranked.splice(at, 1).map((r) => ({ ...r, score: ranked[0]!.score + 1 })));
    }
    return ranked.slice(0, options.limit).map(({ name, score, terms }) => ({
      name,
      score,
      matched: [...new Set(terms.map((term) => written.get(term) ?? term))],
    }));
  }

  /**
   * A task's whole text (see task-query.ts): each word once, no conversation, no typo
   * tolerance (a fuzzy lookup per word costs ~90 ms at 5,000 tools and only adds noise), and
   * scores that do not grow with the number of words a long description happens to share.
   * Each of its requests is ranked too, and the rankings fused (task-clauses.ts).
   */
  #rankTask(query: string, options: RankOptions): RankedTool[] {
    const keep =
      options.server === undefined
        ? undefined
        : (slot: number) => this.#postings.serverOf(slot) === options.server;
    /** Each term searched for, with the word it was written as (first met). */
    const searched = new Map<string, string>();
    // Each word stemmed once: the whole text and its requests share their words.
    const stems = new Map<string, string | null>();
    const termOf = (word: string) => {
      if (!stems.has(word)) stems.set(word, processTerm(word));
      return stems.get(word)!;
    };
    /** A text's words, each once, conversation left out (task-query.ts). */
    const wordsOf = (text: string) => taskWords(tokenize(text), termOf);
    // The whole task's words serve its ranking and the likelihood of each server alike.
    const taskText = wordsOf(query);
    const rankText = (textWords: string[], depth = FUSION_DEPTH) => {
      const words = rarestWords(textWords, (word) => this.#postings.toolsWith(termOf(word)!));
      const terms = words.map((word) => termOf(word)!);
      terms.forEach((term, i) => searched.has(term) || searched.set(term, words[i]!.toLowerCase()));
      const totals = this.#postings.score(terms, keep);
      return rankTask(totals, words.length, depth).map(({ slot, score }) => ({
        name: this.#postings.idOf(slot),
        score,
      }));
    };
    const depth = Math.max(options.limit, options.depth ?? FUSION_DEPTH);
    const clauses = taskClauses(query);
    const fused =
      clauses.length < 2
        ? rankText(taskText, depth)
        : fuseRankings(
            rankText(taskText),
            clauses.map((clause) => rankText(wordsOf(clause))),
          );
    // Narrowed to one server, every tool is of it; else the task's servers' tools are raised (server-prior.ts).
    const ranked = keep
      ? fused
      : withTaskServersRaised(
          fused.slice(0, depth),
          (name) => this.#docs.get(name)!.server,
          this.#postings.serversByLikelihood(taskText.map((word) => termOf(word)!)),
          options.closestServers && {
            closest: options.closestServers,
            toolsOf: (server) =>
              [...this.#docs.values()].filter((doc) => doc.server === server).map(({ id }) => id),
          },
        );
    // The words each hit matched, only for what is returned: a task matches most of the catalog.
    return ranked.slice(0, options.limit).map(({ name, score }) => ({
      name,
      score,
      matched: [...searched].filter(([term]) => this.#postings.toolHas(name, term)).map(([, word]) => word),
    }));
  }
}

function toDocument({ name, server, tool }: IndexedTool): Document {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: unknown }>;
  return {
    id: name,
    // The child's own name: an exposed name may carry another prefix ("prefix": "" or "gh_"), or be shortened.
    name: nameWords(tool.name).join(' '),
    server,
    description: [tool.title, tool.description].filter(Boolean).join('. '),
    args: Object.keys(properties).flatMap(nameWords).join(' '),
    argDescriptions: Object.values(properties)
      .map((p) => (typeof p.description === 'string' ? p.description : ''))
      .join(' '),
  };
}

/** A document's fields as the task postings read them: MiniSearch's words and terms of each. */
function fieldWords(doc: Document): FieldWords {
  const words = {} as Record<Field, string[]>;
  const terms = {} as Record<Field, string[]>;
  for (const field of Object.keys(FIELD_BOOSTS) as Field[]) {
    words[field] = tokenize(doc[field]);
    terms[field] = words[field].map(processTerm).filter((term): term is string => term !== null);
  }
  return { words, terms };
}

/** MiniSearch's option keeping one server's tools, when the search is narrowed to one. */
function serverFilter(server: string | undefined): { filter?: (result: SearchResult) => boolean } {
  return server === undefined ? {} : { filter: (result) => result['server'] === server };
}

/** The query as a tool name, when it looks like one (a single word with no spaces). */
function exactName(query: string): string | undefined {
  const trimmed = query.trim();
  return /^[A-Za-z0-9_.-]+$/.test(trimmed) ? trimmed : undefined;
}
