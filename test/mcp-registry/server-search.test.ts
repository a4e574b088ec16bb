// Registry entries found by what a person would ask for, with search_tools' BM25 ranker over
// their names, titles and descriptions (as the reference servers describe themselves in the
// official registry); two registries' listings searched together, each hit naming its registry.
import t from 'tap';
import { bm25Ranker } from '../../src/search/tool-index.js';
import type { ListedServer } from '../../src/mcp-registry/registry-listing.js';
import { ServerSearch } from '../../src/mcp-registry/server-search.js';

const listed = (name: string, description: string, title?: string): ListedServer => ({
  entry: { name, description, version: '1.0.0', ...(title && { title }) },
  status: 'active',
});

const official = [
  listed(
    'io.github.modelcontextprotocol/server-memory',
    'Knowledge graph-based persistent memory system',
    'Memory',
  ),
  listed(
    'io.github.modelcontextprotocol/server-filesystem',
    'Secure file operations with configurable access controls',
    'Filesystem',
  ),
  listed('io.github.modelcontextprotocol/server-time', 'Time and timezone conversion capabilities', 'Time'),
  listed(
    'io.github.modelcontextprotocol/server-fetch',
    'Web content fetching and conversion for efficient LLM usage',
  ),
  listed('io.github.example/postgres', 'Read-only access to PostgreSQL databases, with schema inspection'),
];
const internal = [listed('com.acme/tickets', 'Search and update Acme support tickets', 'Acme tickets')];

t.test('a need in words finds the server that meets it', async (t) => {
  const search = new ServerSearch(bm25Ranker);
  const listings = [{ registry: 'official', servers: official }];
  const top = async (query: string) => (await search.search(listings, query, 3))[0]?.server.entry.name;
  t.equal(await top('remember facts as a knowledge graph'), 'io.github.modelcontextprotocol/server-memory');
  t.equal(await top('convert a time between timezones'), 'io.github.modelcontextprotocol/server-time');
  t.equal(await top('query a postgres database'), 'io.github.example/postgres');
  t.equal(
    await top('filesystem'),
    'io.github.modelcontextprotocol/server-filesystem',
    'a title or name word',
  );
  t.same(await search.search(listings, 'zzz qqq', 3), [], 'nothing for words no entry has');
});

t.test("two registries are searched together, each hit under its registry's name", async (t) => {
  const search = new ServerSearch(bm25Ranker);
  const both = [
    { registry: 'official', servers: official },
    { registry: 'acme', servers: internal },
  ];
  const hits = await search.search(both, 'support tickets', 5);
  t.match(hits[0], { registry: 'acme', server: { entry: { name: 'com.acme/tickets' } } });
  t.ok(hits[0]!.score > 0);
  // A listing read again (a new array) replaces the old one in the ranking.
  const renamed = [
    { registry: 'official', servers: official },
    { registry: 'acme', servers: [] },
  ];
  t.same(await search.search(renamed, 'support tickets', 5), [], 'a server the listing dropped is not found');
});
