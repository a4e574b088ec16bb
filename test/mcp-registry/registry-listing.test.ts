// A registry's listing read over its REST API from a registry served on 127.0.0.1: page by
// page, kept on disk, read again only past its age and then only what changed, entries it
// cannot read left out, and an unreachable registry named (its kept copy used when there is one).
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { RegistryListing, RegistryUnreachable } from '../../src/mcp-registry/registry-listing.js';

interface Listed {
  server: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

const listed = (name: string, updatedAt: string, status = 'active'): Listed => ({
  server: { name, description: `The ${name} server`, version: '1.0.0' },
  _meta: { 'io.modelcontextprotocol.registry/official': { status, updatedAt, isLatest: true } },
});

/** A registry of `servers`, two to a page; every request's query is recorded. */
async function startRegistry(t: Test, servers: () => Listed[]) {
  const queries: URLSearchParams[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://registry');
    if (url.pathname !== '/v0.1/servers') return void res.writeHead(404).end();
    queries.push(url.searchParams);
    const since = url.searchParams.get('updated_since');
    const all = servers().filter(
      (s) =>
        !since ||
        (s._meta?.['io.modelcontextprotocol.registry/official'] as { updatedAt: string }).updatedAt > since,
    );
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const next = start + 2 < all.length ? String(start + 2) : undefined;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ servers: all.slice(start, start + 2), metadata: { nextCursor: next, count: 2 } }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, queries };
}

const scratch = (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-registries-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

t.test('read whole, page by page, then kept: no request while the copy is young', async (t) => {
  const servers = [
    listed('io.github.a/one', '2026-01-01T00:00:00Z'),
    listed('io.github.a/two', '2026-01-02T00:00:00Z'),
    { server: { description: 'no name: not a server.json this schema reads' } },
    listed('io.github.a/three', '2026-01-03T00:00:00Z'),
  ];
  const registry = await startRegistry(t, () => servers);
  const dir = scratch(t);
  const listing = new RegistryListing({ url: `${registry.url}/`, dir });
  const first = await listing.listing(60_000);
  t.same(
    first.servers.map((s) => s.entry.name),
    ['io.github.a/one', 'io.github.a/two', 'io.github.a/three'],
    'every page, the unreadable entry left out',
  );
  t.equal(first.servers[0]!.status, 'active');
  t.same(
    registry.queries.map((q) => [q.get('version'), q.get('cursor'), q.get('updated_since')]),
    [
      ['latest', null, null],
      ['latest', '2', null],
    ],
  );
  t.equal(readdirSync(dir).length, 1, 'kept in one file');
  const again = await listing.listing(60_000);
  t.same(
    again.servers.map((s) => s.entry.name),
    first.servers.map((s) => s.entry.name),
  );
  t.equal(registry.queries.length, 2, 'a young copy is answered without the network');
  t.same(
    new RegistryListing({ url: registry.url, dir }).kept()?.servers.length,
    3,
    'another process reads the copy',
  );
});

t.test('past its age, only what changed since is read: updated, added, deleted', async (t) => {
  let servers = [
    listed('io.github.a/one', '2026-01-01T00:00:00Z'),
    listed('io.github.a/two', '2026-01-01T00:00:00Z'),
  ];
  const registry = await startRegistry(t, () => servers);
  const listing = new RegistryListing({ url: registry.url, dir: scratch(t) });
  const { readAt } = await listing.listing(0);
  const later = new Date(Date.parse(readAt) + 1000).toISOString();
  servers = [
    {
      ...listed('io.github.a/one', later),
      server: { name: 'io.github.a/one', description: 'Now better', version: '2.0.0' },
    },
    listed('io.github.a/two', later, 'deleted'),
    listed('io.github.a/new', later),
  ];
  const second = await listing.listing(0);
  t.equal(
    registry.queries.at(-1)?.get('updated_since'),
    readAt,
    'asked for what changed since the last read',
  );
  t.same(
    second.servers.map((s) => [s.entry.name, s.entry.version]),
    [
      ['io.github.a/one', '2.0.0'],
      ['io.github.a/new', '1.0.0'],
    ],
  );
});

t.test('a registry that cannot be read is named; a kept copy is used, saying so', async (t) => {
  const registry = await startRegistry(t, () => [listed('io.github.a/one', '2026-01-01T00:00:00Z')]);
  const dir = scratch(t);
  await new RegistryListing({ url: registry.url, dir }).listing(0);
  // A port that was just listened on and closed: nothing answers there.
  const closed = createServer().listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  closed.close();
  await t.rejects(new RegistryListing({ url: gone, dir }).listing(0), RegistryUnreachable);
  await t.rejects(new RegistryListing({ url: gone, dir }).listing(0), {
    message: /^registry http:\/\/127\.0\.0\.1:\d+ could not be read: fetch failed \(ECONNREFUSED\)$/,
  });
  const failing = new RegistryListing({
    url: registry.url,
    dir,
    fetch: async () => new Response('down for maintenance', { status: 503 }),
  });
  const stale = await failing.listing(0);
  t.same(
    stale.servers.map((s) => s.entry.name),
    ['io.github.a/one'],
  );
  t.match(
    stale.stale,
    /^registry http:\/\/127\.0\.0\.1:\d+ could not be read: HTTP 503 .*; its listing as read at \S+ is used$/,
  );
  const notAListing = new RegistryListing({
    url: `${registry.url}/elsewhere`,
    dir: scratch(t),
    fetch: async () => Response.json({ items: [] }),
  });
  await t.rejects(notAListing.listing(0), { message: /its answer is not a server listing/ });
});
