// A whole task as a query: the words searched for, and the scores that rank its tools.
import t from 'tap';
import { rankTask, rarestWords, taskWords } from '../../src/catalog/task-query.js';

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

t.test("a task's ranking: scores per matched word, raised by the best tool of their server", async (t) => {
  const ranked = rankTask([
    // A long description that shares many of a task's words: 12 of them, 24 in all.
    { name: 'web__scrape', server: 'web', score: 24, matchedWords: 12 },
    { name: 'parks__find_parks', server: 'parks', score: 20, matchedWords: 2 },
    { name: 'weather__forecast', server: 'weather', score: 8.5, matchedWords: 1 },
    { name: 'parks__campgrounds', server: 'parks', score: 8, matchedWords: 1 },
  ]);
  t.same(
    ranked.map((r) => r.name),
    ['parks__find_parks', 'parks__campgrounds', 'weather__forecast', 'web__scrape'],
    'many words matched once each do not beat a few matched well; a tool of the best server comes next',
  );
  t.same(
    ranked.map((r) => r.score),
    [2, 1.8, 1.7, 0.4],
    'relative to the top tool',
  );
  t.same(rankTask([]), []);
  t.same(
    rankTask([{ name: 'a__x', server: 'a', score: 0, matchedWords: 0 }]).map((r) => r.score),
    [0],
    'nothing scored: left as it is',
  );
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
