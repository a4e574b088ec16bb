// @ts-check
// Simulates: an MCP registry (the generic registry API, v0.1) on 127.0.0.1, serving the
// server.json entries of the JSON file REGISTRY_ENTRIES names ([{server, status?, updatedAt?}]).
// GET /v0.1/servers pages by `cursor` (REGISTRY_PAGE_SIZE entries a page, default 2; `limit`
// may ask fewer), filters by `search` (a part of the name), `updated_since` and `version`
// (latest, or one version); GET /v0.1/servers/{name}/versions/{version} answers one entry
// ("latest" included). Every answer carries an ETag and If-None-Match is answered 304. Each
// request is written to stderr (`request GET /v0.1/…`); it prints `listening on <url>`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const file = process.env.REGISTRY_ENTRIES;
if (!file) {
  process.stderr.write('mcp-registry: set REGISTRY_ENTRIES to a JSON file of entries\n');
  process.exit(2);
}
/** @type {{ server: { name: string, version: string }, status?: string, updatedAt?: string }[]} */
const entries = JSON.parse(readFileSync(file, 'utf8'));
const pageSize = Number(process.env.REGISTRY_PAGE_SIZE ?? 2);

/** An entry as the API lists it: server.json, and the registry's metadata beside it. */
const listed = (/** @type {(typeof entries)[number]} */ e, /** @type {boolean} */ isLatest) => ({
  server: {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    ...e.server,
  },
  _meta: {
    'io.modelcontextprotocol.registry/official': {
      status: e.status ?? 'active',
      publishedAt: '2026-01-01T00:00:00Z',
      updatedAt: e.updatedAt ?? '2026-01-01T00:00:00Z',
      isLatest,
    },
  },
});

/** Whether `e` is the last-listed version of its name. */
const isLatest = (/** @type {(typeof entries)[number]} */ e) =>
  entries.filter((other) => other.server.name === e.server.name).at(-1) === e;

const server = createServer((req, res) => {
  process.stderr.write(`request ${req.method} ${req.url}\n`);
  const url = new URL(req.url ?? '/', 'http://registry');
  const send = (/** @type {number} */ status, /** @type {unknown} */ body) => {
    const text = JSON.stringify(body);
    const etag = `"${createHash('sha256').update(text).digest('hex').slice(0, 20)}"`;
    if (status === 200 && req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      res.end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json', etag });
    res.end(text);
  };
  const one = /^\/v0\.1\/servers\/([^/]+)\/versions\/([^/]+)$/.exec(url.pathname);
  if (req.method === 'GET' && one) {
    const [name, version] = [decodeURIComponent(one[1] ?? ''), decodeURIComponent(one[2] ?? '')];
    const found = entries.filter(
      (e) => e.server.name === name && (version === 'latest' ? isLatest(e) : e.server.version === version),
    );
    if (found.length === 0) return send(404, { title: 'Not Found', status: 404, detail: 'Server not found' });
    return send(200, listed(found[0], isLatest(found[0])));
  }
  if (req.method !== 'GET' || url.pathname !== '/v0.1/servers')
    return send(404, { title: 'Not Found', status: 404, detail: `no route ${url.pathname}` });
  const search = url.searchParams.get('search');
  const since = url.searchParams.get('updated_since');
  const version = url.searchParams.get('version');
  const matching = entries.filter(
    (e) =>
      (!search || e.server.name.includes(search)) &&
      (!since || Date.parse(e.updatedAt ?? '2026-01-01T00:00:00Z') > Date.parse(since)) &&
      (!version || (version === 'latest' ? isLatest(e) : e.server.version === version)),
  );
  const start = Number(url.searchParams.get('cursor') ?? 0);
  const limit = Math.min(pageSize, Number(url.searchParams.get('limit') ?? pageSize));
  const page = matching.slice(start, start + limit);
  const next = start + limit < matching.length ? String(start + limit) : undefined;
  send(200, {
    servers: page.map((e) => listed(e, isLatest(e))),
    metadata: { count: page.length, ...(next && { nextCursor: next }) },
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object')
    process.stderr.write(`listening on http://127.0.0.1:${address.port}\n`);
});
