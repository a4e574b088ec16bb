// A task as a query. An agent that hands search_tools its whole task (a paragraph in a
// user's words, ~200 words in MCP-Bench) needs another scoring than a few words typed by
// hand, because what suits short queries hurts long ones:
// - MiniSearch multiplies a document's score by how many distinct query words it matched.
//   For three words that rewards a tool matching all three; for two hundred it squares the
//   advantage of every long description, so the tools with the longest texts won every task.
// - BM25+'s floor (d) gives each matched word a score however long the text: summed over a
//   paragraph, it favours long descriptions again. Full length normalization (b = 1) instead.
// - A word repeated in a paragraph is style, not emphasis: each counts once.
// - Conversation ("I'd love to know… could you help me…") says nothing about which tool.
// - Of what is left, the rarest words across the catalog say the most (what the task is
//   about); the most common ("data", "details", "results") match a bit of everything. Only
//   the TASK_WORDS rarest are searched for, which is also what makes a task's search fast
//   (at 5,000 tools, p50 21 → 4 ms).
// - The tools a task needs sit together on one or two servers: a tool gains from the best
//   score of its server, so a task's server fills the top of the list rather than one tool
//   of it between strangers.
// Chosen on the development half of MCP-Bench (bench/retrieval.js): MRR 0.150 → 0.750.

/** Past this many words a query is a text (a task, a paragraph), not a few words typed by hand. */
const LONG_QUERY_WORDS = 12;

/** The query's words, lower-cased. */
export function queryWords(query: string): string[] {
  return query
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether these words are a task's text rather than a few words typed by hand. */
export function isTask(words: readonly string[]): boolean {
  return words.length > LONG_QUERY_WORDS;
}

/** BM25 parameters for a task's text: no per-word floor, full length normalization. */
export const TASK_BM25 = { k: 1.2, b: 1, d: 0 } as const;

/** How many of a task's words are searched for: its rarest in the catalog (50 and 60 did best on the dev half). */
const TASK_WORDS = 50;

/** How much the best score of a tool's server adds to its own (both relative to the top tool). */
const SERVER_WEIGHT = 1;

/** Words that people use in a request to anyone, about anything. */
const CONVERSATIONAL = new Set(
  (
    'i im me my mine myself you your yours we our us can could would will should shall might must ' +
    'please need needs want wanted wants like love also any some all what which who how about just ' +
    'really very thanks thank know let lets help tell give make sure ensure hi hello hey'
  ).split(' '),
);

/**
 * The words of a task to search for: each once (as first written), conversation left out.
 * `termOf` is the index's own term function (stopwords, stemming), so two spellings of one
 * term count once too.
 */
export function taskWords(words: readonly string[], termOf: (word: string) => string | null): string[] {
  const seen = new Set<string>();
  return words.filter((word) => {
    if (CONVERSATIONAL.has(word.toLowerCase())) return false;
    const term = termOf(word);
    if (term === null || seen.has(term)) return false;
    seen.add(term);
    return true;
  });
}

/**
 * The TASK_WORDS words of a task rarest in the catalog (`toolsWith`: how many tools have a
 * word's term), in the task's order; a word no tool has is dropped, as it cannot match.
 */
export function rarestWords(words: readonly string[], toolsWith: (word: string) => number): string[] {
  const present = words.filter((word) => toolsWith(word) > 0);
  if (present.length <= TASK_WORDS) return present;
  const kept = new Set([...present].sort((a, b) => toolsWith(a) - toolsWith(b)).slice(0, TASK_WORDS));
  return present.filter((word) => kept.has(word));
}

export interface ScoredTool {
  name: string;
  server: string;
  score: number;
}

/**
 * A task's ranking: each score divided by the number of query words it matched (undoing
 * MiniSearch's multiplication), then raised by the best score on the tool's server.
 */
export function rankTask<T extends ScoredTool & { matchedWords: number }>(results: readonly T[]): T[] {
  const own = results.map((r) => ({ ...r, score: r.score / Math.max(1, r.matchedWords) }));
  const top = Math.max(0, ...own.map((r) => r.score));
  if (top === 0) return own;
  const best = new Map<string, number>();
  for (const { server, score } of own) best.set(server, Math.max(best.get(server) ?? 0, score));
  return own
    .map((r) => ({ ...r, score: (r.score + SERVER_WEIGHT * best.get(r.server)!) / top }))
    .sort((a, b) => b.score - a.score);
}
