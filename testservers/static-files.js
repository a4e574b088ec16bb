// @ts-check
// Simulates: any web server that serves a folder's files as they are (a bucket, nginx, a CDN):
// GET or HEAD of a path answers the file under STATIC_ROOT at that path, whatever the query
// string; a folder, a missing file or a path out of the folder is 404. It knows nothing of
// MCP. Each request is written to stderr (`request GET /v0.1/…`); it prints `listening on <url>`.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, normalize, sep } from 'node:path';

const root = process.env.STATIC_ROOT;
if (!root) {
  process.stderr.write('static-files: set STATIC_ROOT to the folder to serve\n');
  process.exit(2);
}

const server = createServer((req, res) => {
  process.stderr.write(`request ${req.method} ${req.url}\n`);
  if (req.method !== 'GET' && req.method !== 'HEAD') return res.writeHead(405).end();
  const path = normalize(join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
  if (!path.startsWith(root + sep) || !statSync(path, { throwIfNoEntry: false })?.isFile())
    return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  const body = readFileSync(path);
  // A generic server types a file by its extension only; one without is octet-stream.
  const type = path.endsWith('.json') ? 'application/json' : 'application/octet-stream';
  res.writeHead(200, { 'content-type': type, 'content-length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
});
server.listen(0, '127.0.0.1', () => {
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  process.stderr.write(`listening on http://127.0.0.1:${address.port}\n`);
});
