// A task's separate requests, and the fusion of their rankings. A task in a user's words asks
// for several things ("find the date of the largest drop, then scrape the news of that day,
// and save a report"), each done by another tool, often of another server. Searched as one
// text, the request with the most telling words takes the whole top of the list; searched one
// by one, each gets a place in it. Requests are told apart by what people write between them:
// sentence ends, bullets and numbered lines, the words that order steps ("then", "finally",
// "after that", "also"), and a comma or "and" before a verb that opens a request. A piece too
// short to say what it wants is joined to the one before it ("…, and save it", "Thanks!").

/** Fewer content words than this, and a piece is not a request of its own. */
const MIN_CLAUSE_WORDS = 3;
/** Past this many requests, the rest is read as one (a long text's later lines add little). */
const MAX_CLAUSES = 8;

/** Where one request ends and the next begins, inside a sentence. */
const STEP_WORDS =
  /,?\s+\b(?:and\s+then|then|and\s+finally|finally|after\s+that|afterwards|next(?=,)|also|as\s+well\s+as|followed\s+by|and\s+also)\b[,:]?\s+/gi;
/**
 * Verbs that open a request ("…, find the token details", "…and check the status"): a comma
 * or "and" before one starts a new request; before any other word it joins a list ("titles,
 * abstracts and data").
 */
const REQUEST_VERBS =
  'find get list search check verify create fetch retrieve show give tell compare calculate compute send save ' +
  'generate look analyze analyse summarize summarise pull extract update delete remove add provide identify ' +
  'translate convert download upload book schedule post write read open run execute start stop monitor track ' +
  'export import draft email notify review evaluate estimate plan recommend suggest locate determine discover ' +
  'collect gather map visualize plot chart count measure rank sort filter query lookup';
const BEFORE_A_VERB = new RegExp(
  `(?:,\\s*(?:and\\s+)?|\\s+and\\s+)(?=(?:${REQUEST_VERBS.replaceAll(' ', '|')})\\b)`,
  'gi',
);
/** Sentence ends (not inside "8.8.8.8" or "v2.1"), semicolons, line breaks, bullets. */
const SENTENCE_ENDS = /(?<=[.!?])\s+|;\s+|\s*\n+\s*(?:[-*•]|\d+[.)])?\s*|\s+•\s+/g;

/** The content words of a piece (letters and digits, two or more). */
function contentWords(text: string): number {
  return text.split(/[^A-Za-z0-9]+/).filter((word) => word.length > 1).length;
}

/** The requests of a task's text, in order; a text with one request gives one. */
export function taskClauses(text: string): string[] {
  const pieces = text
    .split(SENTENCE_ENDS)
    .flatMap((sentence) => sentence.split(STEP_WORDS))
    .flatMap((piece) => piece.split(BEFORE_A_VERB))
    .map((piece) => piece.trim())
    .filter(Boolean);
  const clauses: string[] = [];
  for (const piece of pieces) {
    if (clauses.length > 0 && contentWords(piece) < MIN_CLAUSE_WORDS)
      clauses[clauses.length - 1] += ` ${piece}`;
    else clauses.push(piece);
  }
  if (clauses.length > 1 && contentWords(clauses[0]!) < MIN_CLAUSE_WORDS) {
    const first = clauses.shift()!;
    clauses[0] = `${first} ${clauses[0]}`;
  }
  if (clauses.length > MAX_CLAUSES)
    clauses.splice(MAX_CLAUSES - 1, Infinity, clauses.slice(MAX_CLAUSES - 1).join(' '));
  return clauses;
}

/** How deep each ranking is read when they are fused. */
export const FUSION_DEPTH = 50;
/**
 * Reciprocal rank fusion: a tool scores Σ weight ÷ (RANK_OFFSET + its rank) over the lists.
 * A small offset keeps the fusion top-heavy (each request's first tools reach the top five);
 * the whole text weighs as much as WHOLE_WEIGHT requests, so that it still leads where the
 * requests agree with it. Chosen on the development halves of MCP-Bench and MSC-Bench
 * (offsets 1–30, weights 1–4): on MSC-Bench's multi-server tasks Recall@5 0.51 → 0.56 with
 * the default ranker, and no loss on MCP-Bench's.
 */
const RANK_OFFSET = 3;
const WHOLE_WEIGHT = 3;

interface Ranked {
  name: string;
  score: number;
}

/** The whole text's ranking fused with its requests', best first. */
export function fuseRankings(whole: readonly Ranked[], requests: readonly (readonly Ranked[])[]): Ranked[] {
  const fused = new Map<string, number>();
  const add = (ranked: readonly Ranked[], weight: number) =>
    ranked
      .slice(0, FUSION_DEPTH)
      .forEach(({ name }, i) => fused.set(name, (fused.get(name) ?? 0) + weight / (RANK_OFFSET + i + 1)));
  add(whole, WHOLE_WEIGHT);
  for (const ranked of requests) add(ranked, 1);
  return [...fused].map(([name, score]) => ({ name, score })).sort((a, b) => b.score - a.score);
}
