// A whole task as a query: the words searched for, and the scores that rank its tools.
import t from 'tap';
import { highest, rankTask, rarestWords, taskWords } from '../../src/search/task-query.js';

t.test('a task is searched by its words, each once, without conversation', async (t) => {
  const termOf = (word: string) => (word === 'the' ? null : word.toLowerCase().replace(/s$/, ''));
  t.same(
    taskWords(
      ['Could', 'you', 'please', 'list', 'the', 'Files', 'and', 'then', 'files', 'file', 'Parks'],
      termOf,
    ),
    ['list', 'Files', 'and', 'then', 'Parks'],
    'conversation and stopwords dropped; a term repeated in another spelling counts once, as first written',
  );
  t.same(taskWords([], termOf), []);
});

/** Totals for tools 0…n-1 from [server, sum, matched] rows. */
function totals(rows: [string, number, number][]) {
  const servers = [...new Set(rows.map(([server]) => server))];
  return {
    slots: rows.map((_, slot) => slot),
    sum: Float64Array.from(rows, ([, sum]) => sum),
    matched: Uint16Array.from(rows, ([, , matched]) => matched),
    serverOf: rows.map(([server]) => servers.indexOf(server)),
    servers: servers.length,
  };
}

t.test(
  "a paragraph's ranking: the sum of its words' scores, raised by the best tool of its server",
  async (t) => {
    const tools = ['web__scrape', 'parks__find_parks', 'weather__forecast', 'parks__campgrounds'];
    const rows = totals([
      // A long description that shares many of a task's words: 12 of them, 2 in all.
      ['web', 2, 12],
      ['parks', 10, 2],
      ['weather', 8.5, 1],
      ['parks', 8, 1],
    ]);
    const ranked = rankTask(rows, 50, 10);
    t.same(
      ranked.map((r) => tools[r.slot]),
      ['parks__find_parks', 'parks__campgrounds', 'weather__forecast', 'web__scrape'],
      'many words matched once each do not beat a few matched well; a tool of the best server comes next',
    );
    t.same(
      ranked.map((r) => r.score),
      [2, 1.8, 1.7, 0.4],
      'relative to the top tool',
    );
    t.equal(rankTask(rows, 50, 2).length, 2, 'the depth asked for');
    const none = totals([]);
    t.same(rankTask(none, 50, 10), []);
    const zero = totals([['a', 0, 0]]);
    t.same(rankTask(zero, 50, 10), [{ slot: 0, score: 0 }], 'nothing scored: left as it is');
  },
);

t.test('a sentence keeps part of the reward for matching more of its words', async (t) => {
  const rows = totals([
    ['shodan', 6, 4], // get_host_info: four words matched
    ['shodan', 9, 1], // search: one word, scored higher
  ]);
  // 10 words searched: times 4^0.4 (6 × 1.74 = 10.4 > 9), so four words matched still lead.
  t.same(
    rankTask(rows, 10, 10).map((r) => r.slot),
    [0, 1],
  );
  // 50 words: the sum alone (6 < 9).
  t.same(
    rankTask(rows, 50, 10).map((r) => r.slot),
    [1, 0],
  );
});

t.test('the highest k of many, best first', async (t) => {
  const scores = [5, 1, 9, 3, 9.5, 0, 7, 2];
  const slots = scores.map((_, i) => i);
  t.same(
    highest(slots, (slot) => scores[slot]!, 3).map((r) => r.slot),
    [4, 2, 6],
  );
  t.same(
    highest(slots, (slot) => scores[slot]!, 0),
    [],
  );
  t.equal(highest(slots, (slot) => scores[slot]!, 20).length, 8);
});

t.test("a long task keeps its 50 words rarest in the catalog, in the task's order", async (t) => {
  // word i is in i tools: w1 the rarest, w80 the most common; "absent" is in none.
  const words = ['absent', ...Array.from({ length: 80 }, (_, i) => `w${80 - i}`)];
  const toolsWith = (word: string) => (word === 'absent' ? 0 : Number(word.slice(1)));
  const kept = rarestWords(words, toolsWith);
  t.equal(kept.length, 50);
  t.same(
    kept,
    Array.from({ length: 50 }, (_, i) => `w${50 - i}`),
    'w1…w50, as the task wrote them; a word no tool has is not searched for',
  );
  t.same(
    rarestWords(['absent', 'w3', 'w1'], toolsWith),
    ['w3', 'w1'],
    'a short task keeps every word a tool has',
  );
});
