// The semantic ranker: the servers closest to a task in meaning are one more view of which
// servers it is about (server-prior.ts). Its rules with an embedder whose vectors are known,
// then the real distilled embeddings.
import type { Tool } from '@modelcontextprotocol/server';
import t from 'tap';
import type { Embedder } from '../../src/search/semantic/embedder.js';
import { StaticEmbedder } from '../../src/search/semantic/static-embedder.js';
import { SemanticRanker } from '../../src/search/semantic/semantic-ranker.js';
import { Bm25Ranker } from '../../src/search/bm25-ranker.js';
import type { IndexedTool } from '../../src/search/tool-ranker.js';
import { createLogger } from '../../src/common/log.js';

const tool = (name: string, description: string): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties: {} },
});
const catalogOf = (servers: Record<string, Tool[]>): Map<string, IndexedTool> =>
  new Map(
    Object.entries(servers).flatMap(([server, tools]) =>
      tools.map((item) => [
        `${server}__${item.name}`,
        { name: `${server}__${item.name}`, server, tool: item },
      ]),
    ),
  );

/** Vectors on three axes, papers, places and code, chosen by the words a text has. */
class KeywordEmbedder implements Embedder {
  calls: string[][] = [];
  failWith: Error | undefined;
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.failWith) throw this.failWith;
    this.calls.push([...texts]);
    return texts.map((text) => {
      const v = new Float32Array([
        /arxiv|paper|research|studies/i.test(text) ? 1 : 0,
        /place|map|trip|route/i.test(text) ? 1 : 0,
        /git|commit|code/i.test(text) ? 1 : 0,
      ]);
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
  }
  async close(): Promise<void> {}
}

const catalog = {
  // The task's words are in the notes server's descriptions, not in the paper server's.
  notes: [
    tool('save_note', 'Save a note about what is new on a topic, with a summary and the results'),
    tool('list_notes', 'List the notes saved on a topic'),
  ],
  scholar: [
    tool('search_arxiv', 'Search the main arXiv preprints by keywords'),
    tool('read_arxiv_paper', 'Read the full text of an arXiv paper'),
  ],
  git: [tool('git_commit', 'Record changes to the repository')],
  // Two servers that share a word or two with the task, so that the task's three servers are a choice.
  trips: [tool('plan_route', 'Plan a short route for a trip')],
  weather: [tool('forecast', 'Forecast for a place over the next three days')],
};
const task =
  "I'm preparing a talk and need to know what is new in research on protein folding over the last " +
  'three months: the main studies, a short summary of each, and the results they report on the topic.';

t.test(
  'a task: the server closest to it in meaning is among its servers, with its tools that share no word',
  async (t) => {
    const embedder = new KeywordEmbedder();
    const ranker = new SemanticRanker({ embedder, logger: createLogger({ level: 'error', sink: () => {} }) });
    const bm25 = new Bm25Ranker();
    const tools = catalogOf(catalog);
    ranker.update(tools);
    bm25.update(tools);
    const byWords = bm25.rank(task, { limit: 6 }).map((r) => r.name);
    t.same(
      byWords,
      [
        'notes__save_note',
        'notes__list_notes',
        'weather__forecast',
        'trips__plan_route',
        'scholar__search_arxiv',
      ],
      'BM25 alone: the paper server last, by one word ("main"), its other tool not at all',
    );
    const ranked = await ranker.rank(task, { limit: 6 });
    t.same(
      ranked.map((r) => r.name),
      [
        'notes__save_note',
        'notes__list_notes',
        'weather__forecast',
        'scholar__search_arxiv',
        'trips__plan_route',
        'scholar__read_arxiv_paper',
      ],
      "with meaning: the paper server is one of the task's three, its tool above the route planner's, " +
        'and its tool that shares no word listed after every tool that does',
    );
    t.same(
      ranked.map((r) => r.matched),
      [['new', 'summary', 'results', 'topic'], ['topic'], ['over', 'three'], ['main'], ['short'], []],
      'a tool found through its server alone has no matched words to show',
    );
    t.equal(embedder.calls.length, 2, 'one batch for the servers, one for the task');
    const serverBatch = embedder.calls.find((texts) => texts.length === 5)!;
    t.same(
      serverBatch.map((text) => text.split(':')[0]).sort(),
      ['git', 'notes', 'scholar', 'trips', 'weather'],
      'one text per server',
    );
    t.ok(
      serverBatch.includes('scholar: search arxiv, read arxiv paper'),
      "a server's text: its name and its tools' names",
    );

    await ranker.rank(task, { limit: 5 });
    t.equal(embedder.calls.length, 3, 'the servers are not embedded again: only the task is');
    ranker.update(
      catalogOf({ ...catalog, git: [...catalog.git, tool('git_log', 'Show the commit history')] }),
    );
    await ranker.rank(task, { limit: 5 });
    t.equal(embedder.calls.length, 5);
    t.ok(
      embedder.calls.slice(3).some((texts) => texts.join() === 'git: git commit, git log'),
      'a server whose tools changed is embedded again, alone',
    );
    ranker.update(catalogOf({ ...catalog, scholar: [] }));
    const without = await ranker.rank(task, { limit: 5 });
    t.notOk(
      without.some((r) => r.name.startsWith('scholar__')),
      'a server that left is not ranked',
    );
  },
);

t.test('a few words, or one server asked for: BM25 alone, the model untouched', async (t) => {
  const embedder = new KeywordEmbedder();
  const ranker = new SemanticRanker({ embedder, logger: createLogger({ level: 'error', sink: () => {} }) });
  const bm25 = new Bm25Ranker();
  ranker.update(catalogOf(catalog));
  bm25.update(catalogOf(catalog));
  t.same(await ranker.rank('save a note', { limit: 3 }), bm25.rank('save a note', { limit: 3 }));
  t.same(
    await ranker.rank(task, { limit: 3, server: 'notes' }),
    bm25.rank(task, { limit: 3, server: 'notes' }),
  );
  t.same(embedder.calls, [], 'nothing embedded');
});

t.test('a model that fails: BM25 alone, and one warning', async (t) => {
  const embedder = new KeywordEmbedder();
  embedder.failWith = new Error('out of memory');
  const warnings: string[] = [];
  const ranker = new SemanticRanker({
    embedder,
    logger: createLogger({ level: 'warn', sink: (line) => warnings.push(line) }),
  });
  const bm25 = new Bm25Ranker();
  ranker.update(catalogOf(catalog));
  bm25.update(catalogOf(catalog));
  t.same(
    (await ranker.rank(task, { limit: 3 })).map((r) => r.name),
    bm25.rank(task, { limit: 3 }).map((r) => r.name),
  );
  ranker.prepare();
  await ranker.rank(task, { limit: 3 });
  t.equal(warnings.length, 1, 'said once');
  t.match(warnings[0], /tool search goes on with BM25 alone: out of memory/);
});

t.test('the real embeddings, distilled at build time from the sentence encoder', async (t) => {
  const embedder = new StaticEmbedder();
  t.teardown(() => embedder.close());
  const [weather, forecast, git] = await embedder.embed([
    'weather: get forecast, get alerts',
    'Will it rain in Paris tomorrow afternoon?',
    'git: git commit, git log, git diff',
  ]);
  t.equal(weather!.length, 512, '512 numbers');
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  t.ok(Math.abs(dot(weather!, weather!) - 1) < 1e-4, 'of length 1');
  t.ok(dot(forecast!, weather!) > dot(forecast!, git!), 'rain is closer to a weather server than to git');
  t.same(await embedder.embed([]), [], 'nothing to embed: no work');
  const [again] = await embedder.embed(['weather: get forecast, get alerts']);
  t.same([...again!], [...weather!], 'the same text, the same vector');
  const [empty] = await embedder.embed(['']);
  t.ok(
    empty!.every((x) => x === 0),
    'a text with no pieces: the zero vector, not NaN',
  );

  // Real ranking through the table, over three servers (each of them one of the task's): the
  // paper server's tools are listed though the task never says "paper" or "arXiv".
  const ranker = new SemanticRanker({ embedder, logger: createLogger({ level: 'error', sink: () => {} }) });
  ranker.update(catalogOf({ notes: catalog.notes, scholar: catalog.scholar, git: catalog.git }));
  ranker.prepare();
  const ranked = await ranker.rank(task, { limit: 5 });
  t.ok(
    ranked.some((r) => r.name === 'scholar__read_arxiv_paper' && r.matched?.length === 0),
    `the research server's tool that shares no word is in the first five: ${ranked.map((r) => r.name).join(', ')}`,
  );
});

t.test(
  'servers with a prefix of their own: names and servers come from the tools, not the exposed names',
  async (t) => {
    const embedder = new KeywordEmbedder();
    const ranker = new SemanticRanker({ embedder, logger: createLogger({ level: 'error', sink: () => {} }) });
    // "prefix": "" exposes search_arxiv under its own name.
    ranker.update(
      new Map([
        ['search_arxiv', { name: 'search_arxiv', server: 'scholar', tool: catalog.scholar[0]! }],
        ['notes__save_note', { name: 'notes__save_note', server: 'notes', tool: catalog.notes[0]! }],
      ]),
    );
    const ranked = await ranker.rank(task, { limit: 5 });
    t.ok(
      embedder.calls.some((texts) => texts.includes('scholar: search arxiv')),
      "the server's text holds its tool's own name",
    );
    t.ok(
      ranked.some((r) => r.name === 'search_arxiv'),
      'its tool rises with its server',
    );
    const bm25 = new Bm25Ranker();
    bm25.update(
      new Map([['search_arxiv', { name: 'search_arxiv', server: 'scholar', tool: catalog.scholar[0]! }]]),
    );
    t.equal(
      bm25.rank('search arxiv', { limit: 1 })[0]?.name,
      'search_arxiv',
      "BM25 reads the tool's own name too",
    );
  },
);
