// One notification per real change, counted per list by a client of the built mcpmux: a
// change of the children (add, reload, remove, crash, a config edit, a child's own
// list_changed) sends, for each list, at most one notification, and only when that list as
// the client sees it changed.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { resultText } from '../helpers/client-calls.js';
import { fixture, fixturePath, npmServerPath } from '../helpers/fixtures.js';
import { tempConfigPath } from '../helpers/temp-config.js';
import { mcpmuxStdioTransport, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const LISTS = ['tools', 'prompts', 'resources'] as const;
type Counts = Record<(typeof LISTS)[number], number>;

/** How long after an operation a late notification would still have arrived (debounces are 10-30 ms). */
const SETTLE_MS = 400;

async function connect(args: string[] = []) {
  const client = new Client({ name: 'counting-client', version: '1.0.0' });
  const counts: Counts = { tools: 0, prompts: 0, resources: 0 };
  for (const list of LISTS)
    client.setNotificationHandler(`notifications/${list}/list_changed`, () => void counts[list]++);
  const { transport, stderr } = mcpmuxStdioTransport(args);
  await client.connect(transport);
  /** Runs `operation`, lets late notifications arrive, and returns what each list got meanwhile. */
  const counted = async (operation: () => Promise<unknown>): Promise<Counts> => {
    const before = { ...counts };
    await operation();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return {
      tools: counts.tools - before.tools,
      prompts: counts.prompts - before.prompts,
      resources: counts.resources - before.resources,
    };
  };
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${resultText(result)}`);
    return result;
  };
  return { client, counted, call, stderr };
}

const memory = { command: process.execPath, args: [npmServerPath('@modelcontextprotocol/server-memory')] };

t.test(
  'add, reload with and without changes, remove, crash: one notification per changed list',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpmux-counts-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'build'));
    writeFileSync(join(dir, 'build', 'tools.json'), JSON.stringify(['alpha']));
    const { client, counted, call } = await connect();

    t.same(
      await counted(() => call('add_server', { name: 'memory', ...memory })),
      { tools: 1, prompts: 0, resources: 1 },
      'add: its tools and its resource',
    );
    t.same(
      await counted(() => call('reload_server', { name: 'memory' })),
      { tools: 0, prompts: 0, resources: 0 },
      'reload, nothing changed: none',
    );

    await counted(() => call('add_server', { name: 'dev', ...fixture('tools-from-file'), cwd: dir }));
    writeFileSync(join(dir, 'build', 'tools.json'), JSON.stringify(['alpha', 'beta']));
    t.same(
      await counted(() => call('reload_server', { name: 'dev' })),
      { tools: 1, prompts: 0, resources: 0 },
      'reload with a new tool: one',
    );

    t.same(
      await counted(() => call('add_server', { name: 'lc', ...fixture('list-changed') })),
      { tools: 1, prompts: 1, resources: 0 },
      'add with prompts: tools and prompts',
    );
    t.same(
      await counted(() => call('remove_server', { name: 'lc' })),
      { tools: 1, prompts: 1, resources: 0 },
      'remove: tools and prompts',
    );

    const pid = (
      JSON.parse(resultText(await call('list_servers'))) as { servers: { name: string; pid?: number }[] }
    ).servers.find((s) => s.name === 'memory')?.pid;
    t.same(
      await counted(async () => {
        process.kill(pid!, 'SIGKILL');
        await waitFor(async () => /"status": "crashed"/.test(resultText(await call('list_servers'))));
      }),
      { tools: 1, prompts: 0, resources: 1 },
      'crash: tools and resources, once',
    );
    t.same(
      await counted(() => call('reload_server', { name: 'memory' })),
      { tools: 1, prompts: 0, resources: 1 },
      'reload of the crashed server: they come back, once',
    );
    await client.close();
    await assertNoLeaks(t);
  },
);

t.test("a child's own list_changed, ten in 50 ms: one notification per re-list", async (t) => {
  const { client, counted, call, stderr } = await connect(['--log-level', 'debug']);
  await counted(() => call('add_server', { name: 'lc', ...fixture('list-storm') }));
  const relists = () => stderr().match(/server 'lc' sent list_changed; its tools changed/g)?.length ?? 0;
  const before = relists();
  const told = await counted(() => call('lc__storm', { count: 10, interval_ms: 5 }));
  // The ten are re-listed once they have been quiet for 30 ms: once, unless a loaded machine
  // holds the child's 5 ms timers back past that (CI saw two re-lists once, each a real change).
  const relisted = relists() - before;
  t.ok(relisted >= 1 && relisted <= 3, `the ten coalesced into ${relisted} re-list(s)`);
  t.same(
    told,
    { tools: relisted, prompts: 0, resources: 0 },
    'one notification per re-list that changed the tools',
  );
  t.equal(
    (await client.listTools()).tools.filter((x) => x.name.startsWith('lc__storm_')).length,
    10,
    'all ten are listed',
  );
  t.same(
    await counted(() => call('lc__touch')),
    { tools: 0, prompts: 0, resources: 0 },
    'a list_changed that changed nothing: none',
  );
  await client.close();
  await assertNoLeaks(t);
});

t.test('a config edit touching three servers: one notification per changed list', async (t) => {
  const config = tempConfigPath(t, 'mcpmux-counts-config');
  const entry = (name: 'echo-v1' | 'echo-v2' | 'list-changed') => ({
    command: process.execPath,
    args: [fixturePath(name)],
  });
  writeFileSync(config, JSON.stringify({ mcpServers: { one: entry('echo-v1'), two: entry('echo-v1') } }));
  const { client, counted } = await connect(['--config', config, '--watch-config']);
  // (Both configured servers started; their own notifications have arrived before the edit.)
  await counted(async () =>
    t.ok(
      await waitFor(async () => {
        const names = (await client.listTools()).tools.map((x) => x.name);
        return names.includes('one__echo') && names.includes('two__echo');
      }, 15_000),
      'configured servers run',
    ),
  );
  t.same(
    await counted(async () => {
      // One edit: one server removed, one replaced, one added (with prompts).
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: { two: entry('echo-v2'), three: entry('list-changed') } }),
      );
      // The whole edit applied: 'one' gone, 'three' added and 'two' replaced (echo-v2 adds
      // reverse). The edit's notifications go out once all of it is done; 'two' can come last.
      await waitFor(async () => {
        const names = (await client.listTools()).tools.map((x) => x.name);
        return (
          names.includes('three__add_tool') && names.includes('two__reverse') && !names.includes('one__echo')
        );
      }, 15_000);
    }),
    { tools: 1, prompts: 1, resources: 0 },
  );
  await client.close();
  await assertNoLeaks(t);
});

t.test(
  'servers given at start: a list held for them is not followed by a notification that they came',
  async (t) => {
    const config = tempConfigPath(t, 'mcpmux-counts-startup');
    // memory starts at once (tools and a resource), slow a second later (a tool): memory's
    // change comes while the client's lists still wait for slow.
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          memory,
          slow: { ...fixture('slow-start'), env: { SLOW_START_MS: '1000' } },
        },
      }),
    );

    // A client that lists tools, prompts and resources at connect, as most do.
    const every = await connect(['--config', config]);
    const firstAnswers = await every.counted(async () => {
      const [tools, , resources] = await Promise.all([
        every.client.listTools(),
        every.client.listPrompts(),
        every.client.listResources(),
      ]);
      t.ok(
        ['memory__read_graph', 'slow__ready'].every((name) => tools.tools.some((x) => x.name === name)),
        'the first answer holds both servers',
      );
      t.ok(resources.resources.length > 0, "and memory's resource");
    });
    t.same(firstAnswers, { tools: 0, prompts: 0, resources: 0 }, 'not told of what it was just given');
    // A change after start-up is told as before.
    t.same(
      await every.counted(() => every.call('remove_server', { name: 'slow' })),
      { tools: 1, prompts: 0, resources: 0 },
      'a later change: one',
    );
    await every.client.close();

    // A client that lists only its tools is not told of the other lists either: no list it
    // could have asked for lacked memory's resource, since every one waits for the start.
    const toolsOnly = await connect(['--config', config]);
    t.same(
      await toolsOnly.counted(() => toolsOnly.client.listTools()),
      { tools: 0, prompts: 0, resources: 0 },
      'resources, which it has not listed, are not told',
    );
    t.ok((await toolsOnly.client.listResources()).resources.length > 0, 'they have it when it lists them');
    await toolsOnly.client.close();
    await assertNoLeaks(t);
  },
);

t.test(
  '--expose search and code: a server added or removed changes no listed tool, and is not told',
  async (t) => {
    for (const mode of ['search', 'code']) {
      const { client, counted, call } = await connect(['--expose', mode]);
      const listed = JSON.stringify((await client.listTools()).tools);
      t.same(
        await counted(() => call('add_server', { name: 'e', ...fixture('echo-v1') })),
        { tools: 0, prompts: 0, resources: 0 },
        `${mode}: add`,
      );
      t.equal(JSON.stringify((await client.listTools()).tools), listed, `${mode}: the list is as it was`);
      if (mode === 'search') {
        // A found tool is listed once activated; its server's removal takes it off the list.
        t.same(
          await counted(() => call('search_tools', { query: 'e__echo', limit: 1, activate: true })),
          { tools: 1, prompts: 0, resources: 0 },
          'search: a tool activated',
        );
        await client.listTools();
      }
      t.same(
        await counted(() => call('remove_server', { name: 'e' })),
        { tools: mode === 'search' ? 1 : 0, prompts: 0, resources: 0 },
        mode === 'search' ? 'search: remove takes the activated tool off' : 'code: remove',
      );
      await client.close();
    }
    await assertNoLeaks(t);
  },
);

t.test(
  '--expose search and code over HTTP, a 2026-07-28 client: a server added or removed is told only when its list changed',
  async (t) => {
    for (const mode of ['search', 'code']) {
      const served = await startMcpmuxHttp(['--expose', mode]);
      const client = new Client(
        { name: 'modern-counting-client', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      let told = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => void told++);
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      await client.listen({ toolsListChanged: true });
      /** Runs `operation` and counts the tools/list_changed it brought. */
      const counted = async (operation: () => Promise<unknown>) => {
        const before = told;
        const result = await operation();
        if ((result as CallToolResult).isError) throw new Error(resultText(result as CallToolResult));
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        return told - before;
      };
      const call = (name: string, args: Record<string, unknown>) =>
        client.callTool({ name, arguments: args });
      const listed = JSON.stringify((await client.listTools()).tools);
      t.equal(
        await counted(() => call('add_server', { name: 'e', ...fixture('echo-v1') })),
        0,
        `${mode}: add`,
      );
      t.equal(JSON.stringify((await client.listTools()).tools), listed, `${mode}: the list is as it was`);
      if (mode === 'search') {
        t.equal(
          await counted(() => call('search_tools', { query: 'e__echo', limit: 1, activate: true })),
          1,
          'search: a tool activated',
        );
        t.ok(
          (await client.listTools()).tools.some((x) => x.name === 'e__echo'),
          'and listed',
        );
        // The activation moved what later changes are told against: a second server is not told.
        t.equal(
          await counted(() => call('add_server', { name: 'f', ...fixture('echo-v1') })),
          0,
          'search: another server added after it',
        );
      }
      t.equal(
        await counted(() => call('remove_server', { name: 'e' })),
        mode === 'search' ? 1 : 0,
        mode === 'search' ? 'search: remove takes the activated tool off' : 'code: remove',
      );
      await client.close();
      await served.stop();
    }
    await assertNoLeaks(t);
  },
);
