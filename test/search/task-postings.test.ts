// A task's postings score each tool exactly as MiniSearch would, and follow tools that come and go.
import MiniSearch from 'minisearch';
import t from 'tap';
import { FIELD_BOOSTS, TaskPostings, type Field } from '../../src/search/task-postings.js';

const BM25 = { k: 1.2, b: 1, d: 0 };
const FIELDS = Object.keys(FIELD_BOOSTS) as Field[];
type Doc = Record<Field, string> & { id: string };

const tokenize = (text: string) => text.split(/\s+/).filter(Boolean);
const processTerm = (word: string) => (word === 'the' ? null : word.toLowerCase());
const fields = (doc: Doc) => {
  const words = Object.fromEntries(FIELDS.map((f) => [f, tokenize(doc[f])])) as Record<Field, string[]>;
  const terms = Object.fromEntries(
    FIELDS.map((f) => [f, words[f].map(processTerm).filter((x): x is string => x !== null)]),
  ) as Record<Field, string[]>;
  return { words, terms };
};
const doc = (
  id: string,
  server: string,
  name: string,
  description: string,
  args = '',
  argDescriptions = '',
): Doc => ({
  id,
  name,
  server,
  description,
  args,
  argDescriptions,
});

const docs = [
  doc(
    'gh__create_issue',
    'gh',
    'create issue',
    'Create an issue in the repository',
    'title body',
    'the issue title',
  ),
  doc('gh__list_issues', 'gh', 'list issues', 'List issues of a repository, newest first', 'state'),
  doc('fs__read_file', 'fs', 'read file', 'Read the contents of a file', 'path', 'path of the file to read'),
  doc('fs__write_file', 'fs', 'write file', 'Write a file, replacing its contents', 'path content'),
  doc('web__fetch', 'web', 'fetch', 'Fetch a URL and return its contents as markdown', 'url'),
];

t.test("a term's score in each tool is MiniSearch's, summed over the words of a text", async (t) => {
  const postings = new TaskPostings(BM25);
  for (const d of docs) postings.add(d.id, d.server, fields(d));
  const search = new MiniSearch<Doc>({ fields: FIELDS, tokenize, processTerm });
  search.addAll(docs);
  for (const text of ['issue', 'file contents', 'read the file path', 'repository issue title fetch']) {
    const terms = tokenize(text)
      .map(processTerm)
      .filter((x): x is string => x !== null);
    const totals = postings.score(terms);
    const expected = search.search(text, { boost: FIELD_BOOSTS, bm25: BM25, combineWith: 'OR' });
    t.same(
      totals.slots.map((slot) => postings.idOf(slot)).sort(),
      expected.map((r) => r.id).sort(),
      `${text}: the same tools`,
    );
    for (const r of expected) {
      const slot = totals.slots.find((s) => postings.idOf(s) === r.id)!;
      // MiniSearch multiplies the sum by how many of the query's terms a tool matched.
      t.ok(
        Math.abs(totals.sum[slot]! * totals.matched[slot]! - r.score) < 1e-9,
        `${text}: ${r.id} ${r.score}`,
      );
      t.equal(totals.matched[slot], r.queryTerms.length);
    }
  }
  t.equal(postings.toolsWith('file'), 2);
  t.ok(postings.toolHas('fs__read_file', 'path'));
  t.notOk(postings.toolHas('fs__read_file', 'issue'));
});

t.test('tools come and go: postings, counts and scores follow', async (t) => {
  const postings = new TaskPostings(BM25);
  for (const d of docs) postings.add(d.id, d.server, fields(d));
  const before = postings.score(['file']);
  t.equal(before.slots.length, 2);
  postings.remove('fs__read_file');
  postings.remove('fs__read_file'); // twice: nothing more happens
  t.equal(postings.size, 4);
  t.equal(postings.toolsWith('read'), 0, 'a term no tool has any more is gone');
  const after = postings.score(['file']);
  t.same(
    after.slots.map((slot) => postings.idOf(slot)),
    ['fs__write_file'],
  );
  // Fewer tools: the same word is rarer, so it scores higher.
  const writeBefore = before.sum[before.slots.find((s) => postings.idOf(s) === 'fs__write_file')!]!;
  t.ok(after.sum[after.slots[0]!]! > writeBefore);
  // A slot is reused; the new tool is found under its own id and server.
  postings.add(
    'notes__read_note',
    'notes',
    fields(doc('notes__read_note', 'notes', 'read note', 'Read a note')),
  );
  const read = postings.score(['read']);
  t.same(
    read.slots.map((slot) => [postings.idOf(slot), postings.serverOf(slot)]),
    [['notes__read_note', 'notes']],
  );
  // Adding an id again replaces it.
  postings.add('web__fetch', 'web', fields(doc('web__fetch', 'web', 'fetch', 'Download a page')));
  t.equal(postings.toolsWith('markdown'), 0);
  t.equal(postings.size, 5);
});

t.test('a text can be narrowed to some tools', async (t) => {
  const postings = new TaskPostings(BM25);
  for (const d of docs) postings.add(d.id, d.server, fields(d));
  const totals = postings.score(['contents'], (slot) => postings.serverOf(slot) === 'fs');
  t.same(totals.slots.map((slot) => postings.idOf(slot)).sort(), ['fs__read_file', 'fs__write_file']);
});

/**
 * The query likelihood of `terms` under each server's words, worked out directly from the
 * documents (the reference serversByLikelihood must agree with): a server's words are its
 * name's and its tools' names' twice each and each tool's distinct description words, and
 * they are smoothed with all servers' words (μ = 1000).
 */
function likelihoodOrder(list: Doc[], terms: string[]): string[] {
  const termsOf = (text: string) =>
    tokenize(text)
      .map(processTerm)
      .filter((x): x is string => x !== null);
  const words = new Map<string, string[]>();
  for (const d of list) {
    if (!words.has(d.server)) words.set(d.server, [...termsOf(d.server), ...termsOf(d.server)]);
    words.get(d.server)!.push(...termsOf(d.name), ...termsOf(d.name), ...new Set(termsOf(d.description)));
  }
  const all = [...words.values()].flat();
  const searched = [...new Set(terms)].filter((term) => all.includes(term));
  const mu = 1000;
  const score = (own: string[]) =>
    searched.reduce((sum, term) => {
      const expected = (mu * all.filter((w) => w === term).length) / all.length;
      return sum + Math.log(1 + own.filter((w) => w === term).length / expected);
    }, 0) +
    searched.length * Math.log(mu / (own.length + mu));
  return [...words].sort((a, b) => score(b[1]) - score(a[1])).map(([server]) => server);
}

t.test('servers ranked by how likely their words make a task', async (t) => {
  const postings = new TaskPostings(BM25);
  for (const d of docs) postings.add(d.id, d.server, fields(d));
  for (const terms of [
    ['read', 'write', 'file', 'contents', 'url'],
    ['fetch', 'url', 'markdown', 'contents'],
    ['issue', 'repository', 'file'],
    ['gh', 'contents'],
    ['title', 'fetch'], // "title" is only an argument's word: it counts for no server
  ]) {
    t.same(postings.serversByLikelihood(terms), likelihoodOrder(docs, terms), terms.join(' '));
  }
  t.equal(postings.serversByLikelihood(['read', 'write', 'file'])[0], 'fs', 'the server with all three');
  t.same(postings.serversByLikelihood(['title', 'fetch']), postings.serversByLikelihood(['fetch']));
});

t.test("a server's words follow its tools as they come and go", async (t) => {
  const postings = new TaskPostings(BM25);
  for (const d of docs) postings.add(d.id, d.server, fields(d));
  const tasks = [['read', 'file', 'url'], ['issue', 'fetch', 'contents'], ['write']];
  const before = tasks.map((terms) => postings.serversByLikelihood(terms));
  postings.remove('fs__read_file');
  postings.remove('fs__write_file');
  t.same(
    postings.serversByLikelihood(['file']),
    likelihoodOrder(docs.slice(0, 2).concat(docs[4]!), ['file']),
  );
  t.notOk(postings.serversByLikelihood(['read']).includes('fs'), 'a server with no tool left is not ranked');
  postings.add(docs[3]!.id, docs[3]!.server, fields(docs[3]!));
  postings.add(docs[2]!.id, docs[2]!.server, fields(docs[2]!));
  t.same(
    tasks.map((terms) => postings.serversByLikelihood(terms)),
    before,
    'back as they were with the same tools',
  );
});
