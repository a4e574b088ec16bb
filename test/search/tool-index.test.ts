// Tool search: ranking sanity on a small catalog, and an index that always matches the
// children (add, remove, crash, reload, a child's own list_changed), through search_tools.
import type { Tool } from '@modelcontextprotocol/server';
import t from 'tap';
import type { ChildConnection } from '../../src/child/child-connection.js';
import { ToolIndex } from '../../src/search/tool-index.js';
import { nameWords } from '../../src/search/tool-ranker.js';
import { alternativesOf } from '../../src/search/query-expansion.js';
import { createLogger } from '../../src/common/log.js';
import type { ChildrenSnapshot } from '../../src/children/children-snapshot.js';
import { EMPTY_CATALOG } from '../../src/protocol/capabilities.js';
import { CatalogRouter } from '../../src/router/catalog-router.js';
import { fixture } from '../helpers/fixtures.js';
import { startHarness } from '../helpers/mux-harness.js';
import { waitFor } from '../helpers/processes.js';

const logger = createLogger({ level: 'error', sink: () => {} });
const tool = (name: string, description: string, args: Record<string, string> = {}): Tool => ({
  name,
  description,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(args).map(([k, d]) => [k, { type: 'string', description: d }]),
    ),
  },
});
function snapshot(version: number, servers: Record<string, Tool[]>): ChildrenSnapshot {
  const views = Object.entries(servers).map(
    ([name, tools]) =>
      [
        name,
        {
          name,
          tools,
          catalog: { ...EMPTY_CATALOG, tools },
          listed: { ...EMPTY_CATALOG, tools },
          connection: { name } as unknown as ChildConnection,
        },
      ] as const,
  );
  return { version, servers: new Map(views) };
}

const catalog = {
  fs: [
    tool('read_file', 'Read the complete contents of a file from the file system', {
      path: 'Path of the file',
    }),
    tool('write_file', 'Create a new file or overwrite an existing file with new content', {
      path: 'Path',
      content: 'Text to write',
    }),
    tool('list_directory', 'Get a listing of all files and directories in a path', { path: 'Directory' }),
    tool('searchFiles', 'Recursively search for files and directories matching a pattern', {
      pattern: 'Glob pattern',
    }),
  ],
  github: [
    tool('create_issue', 'Create a new issue in a GitHub repository', {
      owner: 'Owner',
      repo: 'Repository',
      title: 'Title',
    }),
    tool('list_issues', 'List issues in a GitHub repository', { state: 'open or closed' }),
  ],
  weather: [tool('get_forecast', 'Weather forecast for the coming days', { city: 'Name of the city' })],
};

t.test('names are split on camelCase, snake_case and kebab-case', async (t) => {
  t.same(nameWords('searchFiles'), ['search', 'files']);
  t.same(nameWords('get-HTTPResponse_v2'), ['get', 'http', 'response', 'v2']);
});

t.test(
  'the ranker is loaded at the first search, once, and told of the tools as they are then',
  async (t) => {
    let loads = 0;
    const updates: number[] = [];
    const index = new ToolIndex({
      router: new CatalogRouter({ logger }),
      ranker: async () => {
        loads++;
        return {
          update: (tools) => void updates.push(tools.size),
          rank: () => [{ name: 'fs__read_file', score: 1 }],
        };
      },
    });
    t.same(index.serverCounts(snapshot(1, catalog)).length, 3, 'counts need no ranker');
    t.equal(loads, 0, 'nothing loaded before a search');
    const [first, second] = await Promise.all([
      index.search(snapshot(1, catalog), 'read'),
      index.search(snapshot(1, catalog), 'read'),
    ]);
    t.equal(first![0]!.name, 'fs__read_file');
    t.same(second, first);
    t.equal(loads, 1, 'loaded once for two searches at once');
    t.same(updates, [7], 'and told of the 7 tools once');
    await index.search(snapshot(2, { fs: catalog.fs }), 'read');
    t.same(updates, [7, 4], 'a change of tools reaches it at the next search');
    await index.close();
  },
);

t.test('a ranker that cannot load fails the search that needs it, with its reason', async (t) => {
  const index = new ToolIndex({
    router: new CatalogRouter({ logger }),
    ranker: () => Promise.reject(new Error('no such module')),
  });
  index.prepare(snapshot(1, catalog));
  await t.rejects(index.search(snapshot(1, catalog), 'read'), /no such module/);
  await index.close();
});

t.test('ranking sanity', async (t) => {
  const index = new ToolIndex({ router: new CatalogRouter({ logger }) });
  const snap = snapshot(1, catalog);
  const top = async (query: string, options = {}) =>
    (await index.search(snap, query, options)).map((h) => h.name);
  t.equal((await top('read_file'))[0], 'fs__read_file', 'an exact name comes first');
  t.equal((await top('fs__list_directory'))[0], 'fs__list_directory', 'so does an exact exposed name');
  t.equal((await top('reading files'))[0], 'fs__read_file', 'stemming: reading → read, files → file');
  t.equal((await top('search files'))[0], 'fs__searchFiles', 'a camelCase name is found by its words');
  t.equal((await top('city'))[0], 'weather__get_forecast', 'argument names count');
  t.equal((await top('make a new issue'))[0], 'github__create_issue');
  t.same(
    (await top('issue', { server: 'github' })).sort(),
    ['github__create_issue', 'github__list_issues'],
    'narrowed to one server',
  );
  t.same(await top('zzqx'), [], 'nonsense finds nothing');
  t.equal((await top('file', { limit: 2 })).length, 2, 'limit');
  const [hit] = await index.search(snap, 'forecast');
  t.match(hit, {
    name: 'weather__get_forecast',
    server: 'weather',
    description: 'Weather forecast for the coming days',
    inputSchema: { type: 'object' },
  });
  t.ok(hit!.score > 0);
  t.same(hit!.matched, ['forecast'], 'a hit says which words of the query it matched');
  t.equal((await top('forcast'))[0], 'weather__get_forecast', 'a typo in a few words is forgiven');
  t.notOk(
    (
      await top('please could you tell me what the forcast will be like for the trip we are planning to make')
    ).includes('weather__get_forecast'),
    'not in a long text, where fuzzy matching of every word is slow and only adds noise',
  );
  const [read] = await index.search(snap, 'reading the files');
  t.same(
    [...read!.matched!].sort(),
    ['files', 'reading'],
    'as the query wrote them, not stemmed; stopwords are not words that matched',
  );
});

t.test('a whole task finds the tools each of its requests needs', async (t) => {
  const index = new ToolIndex({ router: new CatalogRouter({ logger }) });
  const snap = snapshot(1, {
    ...catalog,
    web: [
      tool(
        'scrape',
        'Scrape any web page and return its content. Use it to find data, search results, sources, ' +
          'reports, details and specific information about anything: places, trips, news, prices, ' +
          'days, weeks, numbers and evidence. Give it a URL and it will help you get the page you need.',
        { url: 'The page to scrape', formats: 'Formats of the content you want back' },
      ),
    ],
    parks: [
      tool('find_parks', 'Find national parks by state or by name', { state: 'Two-letter state code' }),
      tool('get_campgrounds', 'Campgrounds in a national park, with their amenities', { park: 'Park code' }),
      tool('get_alerts', 'Current alerts and closures in a national park', { park: 'Park code' }),
    ],
  });
  const task =
    "Hi! I'm planning a camping trip to Yosemite next week and I'd really love some help. Could you " +
    'find which campgrounds the park has, check the weather forecast for the coming days, and tell me ' +
    'about any alerts or closures in the park? Please give me specific numbers and sources, not vague ' +
    'summaries: I need solid details for the trip. Thanks!';
  const hits = await index.search(snap, task, { limit: 5 });
  const names = hits.map((h) => h.name);
  // Each request (campgrounds, forecast, alerts) is also searched on its own, so each of their
  // tools has a place in the top five. So has the closing request ("give me specific numbers
  // and sources… details for the trip"), and the one tool that says all of that takes a place.
  t.same(
    names.filter((name) => name !== 'web__scrape').sort(),
    ['parks__find_parks', 'parks__get_alerts', 'parks__get_campgrounds', 'weather__get_forecast'],
    'the tools the task needs are in the top five',
  );
  t.ok(
    names.indexOf('weather__get_forecast') < names.indexOf('parks__get_campgrounds'),
    'the tool that matches the most telling words of its request leads the other requests',
  );
  t.same(
    [...hits.find((h) => h.name === 'weather__get_forecast')!.matched!].sort(),
    ['coming', 'days', 'forecast', 'weather'],
    'its matched words, as written, each once',
  );
  t.same(
    (await index.search(snap, task, { server: 'weather' })).map((h) => h.name),
    ['weather__get_forecast'],
    'narrowed to one server',
  );
  // The task's scoring follows the catalog after it was first used: a server goes, another comes.
  const later = snapshot(2, {
    ...Object.fromEntries(Object.entries(catalog).filter(([server]) => server !== 'weather')),
    parks: [
      tool('get_campgrounds', 'Campgrounds in a national park, with their amenities', { park: 'Park code' }),
    ],
    meteo: [tool('daily_forecast', 'The weather forecast for the coming days', { place: 'Where' })],
  });
  const again = (await index.search(later, task, { limit: 10 })).map((h) => h.name);
  t.notOk(
    again.some((name) => name.startsWith('weather__') || name === 'parks__get_alerts'),
    'nothing of what left',
  );
  t.ok(again.includes('meteo__daily_forecast'), `what came is found: ${again.join(', ')}`);
});

t.test(
  'query words also find their usual alternatives, at a lower weight than the word itself',
  async (t) => {
    const index = new ToolIndex({ router: new CatalogRouter({ logger }) });
    const snap = snapshot(1, {
      page: [
        tool('evaluate_script', 'Evaluate JavaScript inside the page'),
        tool('close_page', 'Close the page'),
      ],
      table: [
        tool('create_record', 'Create a new record in a table'),
        tool('list_rows', 'List the rows of a table'),
      ],
      calc: [tool('get_sum', 'Returns the sum of two numbers')],
    });
    const top = async (query: string) => (await index.search(snap, query)).map((h) => h.name);
    t.equal((await top('run javascript in the page'))[0], 'page__evaluate_script', 'run → evaluate');
    t.equal((await top('add a row to my table'))[0], 'table__create_record', 'add → create, row → record');
    t.equal((await top('list rows'))[0], 'table__list_rows', "the query's own word beats an alternative");
    t.equal((await top('add two numbers'))[0], 'calc__get_sum', 'add → sum');
    t.same(
      alternativesOf(['run', 'execute']),
      ['evaluate', 'exec'],
      'words already in the query are not added again',
    );
  },
);

t.test('the index follows the children: add, list_changed, reload, crash and remove', async (t) => {
  const h = await startHarness(t);
  const search = async (query: string, server?: string) =>
    (
      (await h.callJson('search_tools', { query, ...(server && { server }) })).tools as { name: string }[]
    ).map((x) => x.name);
  await h.callJson('add_server', { name: 'lc', ...fixture('list-changed') });
  t.same(await search('register a new prompt'), ['lc__add_prompt', 'lc__add_tool']);
  await h.call('lc__add_tool', { name: 'brew_coffee' });
  t.ok(
    await waitFor(async () => (await search('coffee')).includes('lc__brew_coffee')),
    "a tool added by the child's own list_changed is found",
  );
  await h.callJson('add_server', { name: 'e', ...fixture('echo-v1') });
  t.same(await search('echo'), ['e__echo']);
  const { pid } = (await h.callJson('list_servers')).servers.find((s: { name: string }) => s.name === 'e');
  process.kill(pid, 'SIGKILL');
  t.ok(
    await waitFor(async () => (await search('echo')).length === 0),
    "a crashed server's tools are not found",
  );
  await h.callJson('reload_server', { name: 'e' });
  t.same(await search('echo'), ['e__echo'], 'back after reload');
  await h.callJson('remove_server', { name: 'e' });
  t.same(await search('echo'), [], 'gone after remove');

  const empty = await h.callJson('search_tools', { query: '   ' });
  t.match(empty, {
    tools: [],
    servers: [{ name: 'lc', tools: 4 }],
    hint: /give a query that describes the task/,
  });
  const nothing = await h.callJson('search_tools', { query: 'zzqx' });
  t.match(nothing.hint, /no tool matches 'zzqx'/);
  const unknown = await h.call('search_tools', { query: 'x', server: 'nope' });
  t.ok(unknown.isError);
  await h.close();
});
