// The configured registries together: an entry found by name in the first that lists it (from
// the kept listing, else asked of the registry: one published since it was read, or another
// version); a search across all, one that is down named beside the others' hits; and what a
// hit shows the model, including which servers here run it already.
import t from 'tap';
import { bm25Ranker } from '../../src/search/tool-index.js';
import type { ServerSpec } from '../../src/child/server-spec.js';
import { foundServerSummary } from '../../src/mcp-registry/found-server.js';
import { McpRegistries, registryName, runningAs } from '../../src/mcp-registry/mcp-registries.js';
import { packageEntry, registryFetch, scratchDir, type Served } from '../helpers/registry-entries.js';

const memory = packageEntry(
  'io.github.modelcontextprotocol/server-memory',
  'npm',
  '@modelcontextprotocol/server-memory',
  {},
  {
    title: 'Memory',
    description: 'Knowledge graph-based persistent memory system',
  },
);
const tickets = packageEntry(
  'com.acme/tickets',
  'npm',
  '@acme/tickets',
  {
    environmentVariables: [
      {
        name: 'ACME_TOKEN',
        description: 'An Acme API token',
        isRequired: true,
        isSecret: true,
        default: 'sk-sample',
      },
      { name: 'ACME_SITE', default: 'acme.example', choices: ['acme.example', 'acme.test'] },
      { name: 'ACME_FIXED', value: 'set by the publisher' },
    ],
    packageArguments: [
      { type: 'positional', valueHint: 'workspace', isRequired: true },
      { type: 'named', name: '--verbose', value: '' },
    ],
  },
  { description: 'Search and update Acme support tickets' },
);

t.test('an entry by name: kept listing first, then the registry itself', async (t) => {
  let published: Served[] = [memory];
  const { fetch, asked } = registryFetch(() => published);
  const registries = new McpRegistries({
    urls: ['https://registry.example/'],
    dir: scratchDir(t, 'mcpmux-listings'),
    ranker: bm25Ranker,
    fetch,
  });
  t.same(registries.names, ['registry.example']);
  t.match(await registries.entry('io.github.modelcontextprotocol/server-memory'), {
    registry: 'registry.example',
    server: { entry: { name: 'io.github.modelcontextprotocol/server-memory' } },
  });
  t.same(asked, ['/v0.1/servers?version=latest&limit=100']);
  published = [memory, tickets];
  t.match(await registries.entry('com.acme/tickets'), { server: { entry: { name: 'com.acme/tickets' } } });
  t.equal(
    asked.at(-1),
    '/v0.1/servers/com.acme%2Ftickets/versions/latest',
    'published since the listing was read',
  );
  await registries.entry('com.acme/tickets', '1.0.0');
  t.equal(asked.at(-1), '/v0.1/servers/com.acme%2Ftickets/versions/1.0.0');
  await t.rejects(registries.entry('com.acme/tickets', '9.9.9'), {
    code: 'ENTRY_NOT_FOUND',
    message: /no registry lists 'com\.acme\/tickets' at version 9\.9\.9 \(asked: registry\.example\)/,
  });
});

t.test('a search across registries: a registry that is down is named, the others answer', async (t) => {
  const up = registryFetch(() => [memory, tickets]);
  const fetchSome = (async (input: string | URL | Request, init?: RequestInit) =>
    String(input).startsWith('https://down.example')
      ? Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } }))
      : up.fetch(input, init)) as typeof globalThis.fetch;
  const registries = new McpRegistries({
    urls: ['https://down.example', 'https://registry.example'],
    dir: scratchDir(t, 'mcpmux-listings'),
    ranker: bm25Ranker,
    fetch: fetchSome,
  });
  const { found, problems } = await registries.find('remember facts as a knowledge graph', 5);
  t.equal(found[0]?.server.entry.name, 'io.github.modelcontextprotocol/server-memory');
  t.equal(found[0]?.registry, 'registry.example');
  t.same(problems, ['registry https://down.example could not be read: fetch failed (ENOTFOUND)']);
  t.same((await registries.find('  ', 5)).found, [], 'no words, no hits');

  const allDown = new McpRegistries({
    urls: ['https://down.example'],
    dir: scratchDir(t, 'mcpmux-listings'),
    ranker: bm25Ranker,
    fetch: fetchSome,
  });
  await t.rejects(allDown.find('memory', 5), {
    code: 'REGISTRY_UNREACHABLE',
    message: /no MCP registry could be read: registry https:\/\/down\.example/,
  });
});

t.test('a hit as the model sees it', async (t) => {
  const hit = {
    registry: 'registry.example',
    score: 1,
    server: { entry: tickets.server as never, status: 'deprecated' },
  };
  t.same(foundServerSummary(hit, ['tickets']), {
    registry: 'registry.example',
    name: 'com.acme/tickets',
    description: 'Search and update Acme support tickets',
    version: '1.0.0',
    status: 'deprecated',
    runs: 'npm @acme/tickets@1.0.0',
    // What runs, before it runs: the command line with what is still to give as ${NAME}, and what the publisher fixed.
    command: ['npx', '-y', '@acme/tickets@1.0.0', '${workspace}', '--verbose'],
    fixed_env: { ACME_FIXED: 'set by the publisher' },
    env: [
      // A secret's default is not shown: a publisher's sample key is no value to use.
      { name: 'ACME_TOKEN', description: 'An Acme API token', required: true, secret: true },
      {
        name: 'ACME_SITE',
        required: false,
        secret: false,
        default: 'acme.example',
        choices: ['acme.example', 'acme.test'],
      },
    ],
    arguments: [{ name: 'workspace', required: true, secret: false }],
    running_as: ['tickets'],
  });
  const nuget = {
    registry: 'r',
    score: 1,
    server: {
      entry: { name: 'io.github.x/dotnet', packages: [{ registryType: 'nuget', identifier: 'X.Mcp' }] },
    },
  };
  t.match(foundServerSummary(nuget, []), {
    runs: /^not by mcpmux: offers nuget package X\.Mcp; mcpmux runs npm, PyPI and OCI packages/,
  });
});

t.test('which servers here run an entry already', async (t) => {
  const running = new Map<string, ServerSpec>([
    [
      'mem',
      {
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory@2026.1.1'],
        env: {},
      },
    ],
    [
      'mem-latest',
      { transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} },
    ],
    [
      'other',
      {
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory-plus'],
        env: {},
      },
    ],
    ['hosted', { transport: 'http', url: 'https://mcp.acme.example/me/mcp', headers: {} }],
    [
      'named',
      { transport: 'stdio', command: 'node', args: ['x.js'], env: {}, registryEntry: 'com.acme/tickets' },
    ],
  ]);
  t.same(runningAs(memory.server as never, running), ['mem', 'mem-latest']);
  t.same(runningAs(tickets.server as never, running), ['named']);
  const hostedEntry = {
    name: 'com.acme/hosted',
    remotes: [{ type: 'streamable-http', url: 'https://mcp.acme.example/{tenant}/mcp' }],
  };
  t.same(runningAs(hostedEntry, running), ['hosted']);
  t.equal(registryName('https://registry.modelcontextprotocol.io/'), 'registry.modelcontextprotocol.io');
});
