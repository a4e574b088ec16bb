// The router's table against collisions: a child tool whose exposed name is already taken
// (listed twice, or a plain name equal to another tool's rewrite) is left out of the list,
// the routing map and add_server's summary alike, so what the client sees is what it can call.
import type { Tool } from '@modelcontextprotocol/server';
import t from 'tap';
import type { ChildConnection } from '../../src/child/child-connection.js';
import { createLogger } from '../../src/common/log.js';
import type { ChildrenSnapshot } from '../../src/children/children-snapshot.js';
import { exposedToolName } from '../../src/router/tool-names.js';
import { CatalogRouter } from '../../src/router/catalog-router.js';
import { EMPTY_CATALOG } from '../../src/protocol/capabilities.js';

const tool = (name: string, description = name): Tool => ({
  name,
  description,
  inputSchema: { type: 'object' },
});

function routerWithLog() {
  const warnings: string[] = [];
  const logger = createLogger({ level: 'warn', sink: (line) => warnings.push(line) });
  return { router: new CatalogRouter({ logger }), warnings };
}

/** A snapshot of running servers; the connections are never called here (routing tables only). */
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

t.test('a tool listed twice is exposed once, the first one, with a warning', async (t) => {
  const { router, warnings } = routerWithLog();
  const tools = [tool('read', 'first'), tool('read', 'second'), tool('write')];
  const table = router.table(snapshot(1, { fs: tools }), 'tools');
  t.same(
    table.items.map((x) => [x.name, x.description]),
    [
      ['fs__read', 'first'],
      ['fs__write', 'write'],
    ],
  );
  t.equal(table.byKey.get('fs__read')?.item.description, 'first');
  t.same(router.exposedItems('tools', 'fs', tools), table.items, 'the summary shows exactly the table');
  t.match(warnings.join('\n'), /server 'fs' lists tool 'read' twice/);
});

t.test(
  "a plain name equal to another tool's rewrite: the first keeps it, the other is left out",
  async (t) => {
    const { router, warnings } = routerWithLog();
    const rewritten = exposedToolName('srv', 'a b'); // 'srv__a_b_' + 8 hex
    const impostor = rewritten.slice('srv__'.length);
    const tools = [tool('a b'), tool(impostor)];
    const table = router.table(snapshot(1, { srv: tools }), 'tools');
    t.same(
      table.items.map((x) => x.name),
      [rewritten],
    );
    t.equal(table.byKey.get(rewritten)?.item.name, 'a b', 'the name routes to the first tool');
    t.match(warnings.join('\n'), new RegExp(`tools 'a b' and '${impostor}' both map to '${rewritten}'`));
  },
);

t.test('tables are rebuilt per snapshot version; exposures are made once per tool list', async (t) => {
  const { router, warnings } = routerWithLog();
  const tools = [tool('x'), tool('x')];
  const first = router.table(snapshot(1, { a: tools }), 'tools');
  t.equal(router.table(snapshot(1, { a: tools }), 'tools'), first, 'same version: same table');
  const second = router.table(snapshot(2, { a: tools, b: [tool('y')] }), 'tools');
  t.not(second, first);
  t.same(
    second.items.map((x) => x.name),
    ['a__x', 'b__y'],
  );
  t.equal(warnings.length, 1, 'the duplicate is reported once, not on every rebuild');
});

t.test('a prompt asked for by its own name is told its exposed name', async (t) => {
  const { router } = routerWithLog();
  const prompt = (name: string) => ({ name, description: name });
  const view = (name: string, prompts: { name: string }[]) =>
    [
      name,
      {
        name,
        tools: [],
        catalog: { ...EMPTY_CATALOG, prompts },
        listed: { ...EMPTY_CATALOG, prompts },
        connection: { name } as unknown as ChildConnection,
      },
    ] as const;
  const snap: ChildrenSnapshot = {
    version: 1,
    servers: new Map([view('ev', [prompt('simple'), prompt('both')]), view('docs', [prompt('both')])]),
  };
  t.throws(() => router.route(snap, 'prompts', 'simple'), {
    code: 'PROMPT_NOT_FOUND',
    message:
      /^unknown prompt 'simple'; child prompts are named <server>__<prompt>: did you mean 'ev__simple'\?$/,
  });
  t.throws(() => router.route(snap, 'prompts', 'both'), {
    message: /did you mean 'ev__both' or 'docs__both'\?$/,
  });
  t.throws(() => router.route(snap, 'prompts', 'none'), {
    message:
      /^unknown prompt 'none'; child prompts are named <server>__<prompt>: call prompts\/list to see them$/,
  });
});
