// A task as a query. An agent that hands search_tools its whole task (a paragraph in a
// user's words, ~200 words in MCP-Bench) needs another scoring than a few words typed by
// hand, because what suits short queries hurts long ones:
// - MiniSearch multiplies a document's score by how many distinct query words it matched.
//   For three words that rewards a tool matching all three; for two hundred it squares the
//   advantage of every long description, so the tools with the longest texts won every task.
//   Undone in full for a paragraph, in part for a sentence (matchedWordsExponent); a task is
//   scored from postings of its own with MiniSearch's BM25 (task-postings.ts).
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
// - A task asks for several things: its requests are also searched one by one, and the
//   lists fused (task-clauses.ts).
// Chosen on the development half of MCP-Bench (bench/retrieval.js): MRR 0.150 → 0.750; then
// on the development halves of MSC-Bench's tasks too.

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
  // Each word's count once: the sort would otherwise ask for it at every comparison.
  const count = new Map(words.map((word) => [word, toolsWith(word)]));
  const present = words.filter((word) => count.get(word)! > 0);
  if (present.length <= TASK_WORDS) return present;
  const kept = new Set([...present].sort((a, b) => count.get(a)! - count.get(b)!).slice(0, TASK_WORDS));
  return present.filter((word) => kept.has(word));
}

/** Each tool's total for one text, summed over the text's terms (task-postings.ts), by slot. */
export interface TextTotals {
  /** The tools with at least one of the text's terms, in the order first met. */
  slots: readonly number[];
  /** The sum of their terms' BM25 scores. */
  sum: Float64Array;
  /** How many of the text's terms each has. */
  matched: Uint16Array;
  /** Per slot: its server, as a number below `servers` (a task's tools are raised by their server's best). */
  serverOf: ArrayLike<number>;
  servers: number;
}

/**
 * How much of the reward for matching more of a text's words is undone (MiniSearch multiplies
 * a tool's score by how many it matched), for a text of `searched` words: all of it at 50 (a
 * paragraph, where matching many words says a description is long), half at a few (a request
 * of one sentence, where matching more of its words says a tool does more of what is asked).
 * Between, in proportion: on the development halves, 0.5 + searched ÷ 100 did as well as
 * any, and better than undoing it all throughout (MSC-Bench's one-server tasks: Hit@1 0.80 → 0.83).
 */
function matchedWordsExponent(searched: number): number {
  return Math.min(1, 0.5 + searched / 100);
}

/**
 * A task's ranking, the `depth` best: each tool's sum times (a power of) the number of words
 * it matched, as far as the text's length calls for, then raised by the best such score on
 * its server; relative to the top tool.
 */
export function rankTask(
  totals: TextTotals,
  searched: number,
  depth: number,
): { slot: number; score: number }[] {
  // What is left of the reward for matching more words (MiniSearch's score is the sum times their number).
  const reward = 1 - matchedWordsExponent(searched);
  const { slots, sum, matched, serverOf } = totals;
  // Each tool's score worked out once, by slot: a task matches most of a catalog.
  const score = new Float64Array(sum.length);
  const best = new Float64Array(totals.servers);
  let top = 0;
  for (const slot of slots) {
    const own = reward === 0 ? sum[slot]! : sum[slot]! * matched[slot]! ** reward;
    score[slot] = own;
    if (own > top) top = own;
    const server = serverOf[slot]!;
    if (own > best[server]!) best[server] = own;
  }
  if (top === 0) return slots.slice(0, depth).map((slot) => ({ slot, score: 0 }));
  for (const slot of slots) score[slot] = (score[slot]! + SERVER_WEIGHT * best[serverOf[slot]!]!) / top;
  return highest(slots, (slot) => score[slot]!, depth);
}

/** The `k` slots of highest score, best first (a heap of k: a task matches most of a catalog). */
export function highest(
  slots: readonly number[],
  scoreOf: (slot: number) => number,
  k: number,
): { slot: number; score: number }[] {
  const heap: { slot: number; score: number }[] = [];
  const below = (i: number, j: number) => heap[i]!.score < heap[j]!.score;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j]!, heap[i]!]);
  for (const slot of slots) {
    const score = scoreOf(slot);
    if (heap.length < k) {
      heap.push({ slot, score });
      for (let i = heap.length - 1; i > 0 && below(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (k > 0 && score > heap[0]!.score) {
      heap[0] = { slot, score };
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < heap.length && below(l, least)) least = l;
        if (r < heap.length && below(r, least)) least = r;
        if (least === i) break;
        swap(i, least);
        i = least;
      }
    }
  }
  return heap.sort((a, b) => b.score - a.score);
}
