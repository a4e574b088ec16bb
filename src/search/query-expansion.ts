// Words that tool authors and agents use for the same thing. A query word also searches for
// its alternatives, at a lower weight, so "run javascript" finds `evaluate_script` and "add a
// row" finds `create_record` while a tool named with the query's own word still ranks first.
// Kept small and general on purpose: each entry is a synonym in the language of APIs, chosen
// on the tuning half of bench/data/tool-queries.json and checked on the held-out half.
const ALTERNATIVES: Readonly<Record<string, readonly string[]>> = {
  add: ['create', 'insert', 'sum'],
  create: ['add', 'new'],
  run: ['execute', 'evaluate', 'exec'],
  execute: ['run', 'evaluate', 'exec'],
  row: ['record'],
  record: ['row'],
  route: ['directions'],
  remove: ['delete'],
  delete: ['remove'],
  find: ['search'],
  lookup: ['search', 'get'],
};

/** How much a found alternative counts against the query's own word. */
export const ALTERNATIVE_WEIGHT = 0.4;

/** The alternatives of the words of a query (lower-case words), without the words themselves. */
export function alternativesOf(words: readonly string[]): string[] {
  const own = new Set(words);
  return [...new Set(words.flatMap((word) => ALTERNATIVES[word] ?? []))].filter((word) => !own.has(word));
}
