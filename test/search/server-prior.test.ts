// A task's servers, told by two views fused, have their tools raised together; within them,
// and below them, the tool ranking's order stands. Through BM25: a word of the task that a
// stranger server's tool happens to share no longer puts that tool among the first.
import type { Tool } from '@modelcontextprotocol/client';
import t from 'tap';
import { Bm25Ranker } from '../../src/search/bm25-ranker.js';
import { withTaskServersRaised } from '../../src/search/server-prior.js';
import type { IndexedTool } from '../../src/search/tool-ranker.js';

const ranked = (...names: string[]) => names.map((name, i) => ({ name, score: 1 / (i + 1) }));
const serverOf = (name: string) => name.split('__')[0]!;

t.test("the first servers of the fusion have their tools raised, in the ranking's order", async (t) => {
  // By first meeting: a, b, c, d, e; by likelihood: e first, then a, then d.
  const out = withTaskServersRaised(
    ranked('a__1', 'b__1', 'a__2', 'c__1', 'd__1', 'e__1', 'b__2', 'e__2'),
    serverOf,
    ['e', 'a', 'd', 'b', 'c'],
  );
  t.same(
    out.map(({ name }) => name),
    ['a__1', 'a__2', 'd__1', 'e__1', 'e__2', 'b__1', 'c__1', 'b__2'],
    'a, e and d lead (a met first and likely; e and d likely), each tool in its own order',
  );
  t.equal(out[0]!.score, 1, 'scores relative to the first');
  t.ok(
    out.every(({ score }, i) => i === 0 || score <= out[i - 1]!.score),
    'best first',
  );
  t.same(withTaskServersRaised([], serverOf, ['a']), []);
});

t.test('with three servers or fewer, every tool is raised alike: the order is unchanged', async (t) => {
  const list = ranked('a__1', 'b__1', 'a__2', 'c__1');
  t.same(
    withTaskServersRaised(list, serverOf, ['c', 'b', 'a']).map(({ name }) => name),
    list.map(({ name }) => name),
  );
});

const tool = (name: string, description: string): Tool =>
  ({ name, description, inputSchema: { type: 'object' } }) as Tool;

t.test("through BM25: a stranger sharing a word of the task drops below the task's servers", async (t) => {
  const servers: Record<string, Tool[]> = {
    papers: [
      tool('search_arxiv', 'Search academic papers on arXiv by keywords'),
      tool('download_arxiv', 'Download the PDF of an arXiv paper'),
      tool('read_arxiv_paper', 'Read and extract the text of an arXiv paper PDF'),
      tool('search_pubmed', 'Search academic papers on PubMed'),
    ],
    charts: [
      tool('bar_chart', 'Draw a bar chart of labelled values and save it as an image'),
      tool('line_chart', 'Draw a line chart of a series of values'),
    ],
    units: [
      tool('convert_speed', 'Convert a speed between units (km/h, mph, m/s, knots)'),
      tool('convert_mass', 'Convert a mass between units'),
    ],
    weather: [tool('forecast', 'Weather forecast for a city: temperature, wind speed, rain')],
  };
  const tools = new Map<string, IndexedTool>();
  for (const [server, list] of Object.entries(servers))
    for (const tool of list)
      tools.set(`${server}__${tool.name}`, { name: `${server}__${tool.name}`, server, tool });
  const bm25 = new Bm25Ranker();
  bm25.update(tools);
  const task =
    'I am comparing the speed of two transformer training methods for my thesis. Find the latest papers on arXiv ' +
    'about efficient attention, download the two most cited ones and read their methods, then draw a bar chart ' +
    'of the speed-ups they report.';
  const order = bm25.rank(task, { limit: 10 }).map(({ name }) => name);
  // Before, convert_speed came fourth, above line_chart and both searches ("speed", twice in the task).
  const stranger = order.indexOf('units__convert_speed');
  const taskTools = order.filter((name) => ['papers', 'charts'].includes(serverOf(name)));
  t.equal(taskTools.length, 6, 'every tool of the two task servers is in the first ten');
  t.ok(
    taskTools.every((name) => order.indexOf(name) < stranger),
    `the unit converter below all of them: ${order.join(', ')}`,
  );
  t.equal(order[0], 'papers__read_arxiv_paper');
});

t.test(
  "meaning's order is a third view: it settles a close call, not what the words rank far apart",
  async (t) => {
    const list = ranked('a__1', 'b__1', 'c__1', 'd__1', 'e__1', 'f__1', 'g__1', 'h__1', 'a__2');
    const likely = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const toolsOf = (server: string) => [`${server}__1`, `${server}__2`];
    const raisedServers = (closest: string[]) =>
      withTaskServersRaised(list, serverOf, likely, { closest, toolsOf })
        .slice(0, 4)
        .map(({ name }) => serverOf(name))
        .filter((server, i, all) => all.indexOf(server) === i)
        .sort();
    t.same(raisedServers(likely), ['a', 'b', 'c'], 'meaning agreeing: the words’ first three');
    t.same(
      raisedServers(['d', 'e', 'f', 'g', 'h', 'a', 'b', 'c']),
      ['a', 'b', 'd'],
      'the fourth by words and first by meaning passes the third by words and last by meaning',
    );
    t.same(
      raisedServers(['h', 'a', 'b', 'd', 'c', 'e', 'f', 'g']),
      ['a', 'b', 'c'],
      'the last by words stays below the third, however close in meaning',
    );
  },
);

t.test(
  "with meaning, a task server's tools that share no word with the task follow every tool that does",
  async (t) => {
    const toolsOf = (server: string) => [`${server}__1`, `${server}__2`, `${server}__3`];
    const out = withTaskServersRaised(
      ranked('a__1', 'b__1', 'c__1', 'd__1', 'a__2'),
      serverOf,
      ['a', 'b', 'c', 'd'],
      { closest: ['a', 'b', 'c', 'd'], toolsOf },
    );
    t.same(
      out.slice(0, 5).map(({ name }) => name),
      ['a__1', 'b__1', 'c__1', 'a__2', 'd__1'],
      "first every ranked tool: the task servers', then the other server's",
    );
    t.same(
      out
        .slice(5)
        .map(({ name }) => name)
        .sort(),
      ['a__3', 'b__2', 'b__3', 'c__2', 'c__3'],
      "then the task servers' unranked tools",
    );
    t.ok(out[5]!.score < out[4]!.score, 'scored below every ranked tool');
    t.notOk(
      out.some(({ name }) => name === 'd__2'),
      "no unranked tool of a server that is not the task's",
    );
    t.same(
      withTaskServersRaised(ranked('a__1', 'b__1'), serverOf, ['a', 'b']).map(({ name }) => name),
      ['a__1', 'b__1'],
      'without meaning, only ranked tools',
    );
  },
);
