// --expose search end to end with a real SDK client: only the management tools are listed,
// a tool is found by describing the task and called through call_tool; activation lists
// found tools in a bounded pool and tells the client.
import t from 'tap';
import { fixture, npmServerPath } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { waitFor } from '../helpers/processes.js';

const MANAGEMENT = [
  'add_server',
  'remove_server',
  'reload_server',
  'list_servers',
  'search_tools',
  'call_tool',
  'read_result',
];

t.test('search mode: find, call, activate, evict', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'search', activePoolSize: 2 } });
  await h.callJson('add_server', {
    name: 'ev',
    command: process.execPath,
    args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
  });
  await h.callJson('add_server', { name: 'e', ...fixture('echo-v2') });
  t.same(await h.toolNames(), MANAGEMENT, 'only the management tools are listed');
  const listed = (await h.client.listTools()).tools;
  t.same(
    listed.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name),
    [],
    'compact: no outputSchema in search mode',
  );
  const status = await h.client.callTool({ name: 'list_servers', arguments: {} });
  t.ok(status.structuredContent, 'results still carry structuredContent');
  t.notMatch(JSON.stringify(listed), /9007199254740991|propertyNames/, "zod's noise is not listed");
  const { servers, stats } = await h.callJson('list_servers');
  t.ok(
    servers.every((s: { tools_tokens: number }) => s.tools_tokens > 0),
    'each server says what its tools cost',
  );
  t.ok(
    stats.tools_list_tokens < stats.all_tools_tokens,
    `search mode lists ${stats.tools_list_tokens} of ${stats.all_tools_tokens} tokens`,
  );
  const sum = servers.reduce((total: number, s: { tools_tokens: number }) => total + s.tools_tokens, 0);
  const managementInAllMode = stats.all_tools_tokens - sum;
  t.ok(
    managementInAllMode > 0 && stats.tools_list_tokens < managementInAllMode,
    "what search mode lists costs less than the management tools' full definitions",
  );

  const found = await h.callJson('search_tools', { query: 'add two numbers together' });
  t.ok(
    found.tools.slice(0, 2).some((x: { name: string }) => x.name === 'ev__get-sum' || x.name === 'e__add'),
    'the adding tools rank high',
  );
  t.match(
    textOf(await h.call('call_tool', { name: 'e__add', arguments: { a: 2, b: 3 } })),
    '5',
    'a found tool is called through call_tool',
  );

  const before = h.listChanged();
  const activated = await h.callJson('search_tools', { query: 'reverse a string', limit: 1, activate: true });
  t.same(activated.activated, ['e__reverse']);
  t.ok(await waitFor(() => h.listChanged() > before), 'list_changed is sent');
  t.same(await h.toolNames(), [...MANAGEMENT, 'e__reverse']);

  await h.callJson('search_tools', { query: 'e__echo', limit: 1, activate: true });
  t.same(
    await h.toolNames(),
    [...MANAGEMENT, 'e__reverse', 'e__echo'],
    'appended; the first keeps its place',
  );
  await h.call('e__reverse', { text: 'ab' }); // a call is a use: e__echo is now the least recently used
  const third = await h.callJson('search_tools', { query: 'get-tiny-image', limit: 1, activate: true });
  t.same(third.deactivated, ['e__echo'], 'the pool of 2 makes room by the least recently used');
  t.same(await h.toolNames(), [...MANAGEMENT, 'e__reverse', 'ev__get-tiny-image']);

  await h.callJson('remove_server', { name: 'e' });
  t.same(
    await h.toolNames(),
    [...MANAGEMENT, 'ev__get-tiny-image'],
    'an activated tool of a removed server is not listed',
  );
  await h.close();
});

t.test('several queries at once: one list each, in order; activation takes them all', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'search', activePoolSize: 5 } });
  await h.callJson('add_server', { name: 'e', ...fixture('echo-v2') });
  const found = await h.callJson('search_tools', {
    queries: ['reverse a string', 'add two numbers', 'zzqx'],
    limit: 1,
    activate: true,
  });
  t.match(found.results, [
    {
      query: 'reverse a string',
      tools: [{ name: 'e__reverse', server: 'e', matched: ['reverse', 'string'] }],
    },
    { query: 'add two numbers', tools: [{ name: 'e__add' }] },
    { query: 'zzqx', tools: [] },
  ]);
  t.equal(found.tools, undefined, 'no single list beside them');
  t.same([...found.activated].sort(), ['e__add', 'e__reverse']);
  const both = await h.call('search_tools', { query: 'echo', queries: ['echo'] });
  t.ok(both.isError, 'query and queries together are refused');
  t.match(textOf(both), /give either query \(one search\) or queries \(several\), not both/);
  const neither = await h.call('search_tools', {});
  t.ok(neither.isError, 'so is neither');
  t.match(textOf(neither), /give query \(one search\) or queries \(several\) \[INVALID_ARGUMENTS\]/);
  const task = `I need to turn some text around, reverse a string for me. ${'Some more context about the task. '.repeat(200)}`;
  t.ok(task.length > 1000 && task.length <= 10_000);
  t.match(
    (await h.callJson('search_tools', { query: task, limit: 3 })).tools,
    [{ name: 'e__reverse' }],
    'a whole task is a query',
  );
  const tooLong = await h.call('search_tools', { query: 'x'.repeat(10_001) });
  t.ok(tooLong.isError);
  t.match(textOf(tooLong), /at most 10000 characters; split a longer text into queries/);
  await h.close();
});

t.test('in all mode, activate changes nothing and says so', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'e', ...fixture('echo-v1') });
  const result = await h.callJson('search_tools', { query: 'echo', activate: true });
  t.match(result, { tools: [{ name: 'e__echo' }], hint: /only --expose search lists found tools/ });
  await h.close();
});
