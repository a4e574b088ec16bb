// Registry entries for tests below the proxy, served by a registry API that answers in
// process (a fetch of its own): the listing, paged, and one entry at a version.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';

export type Served = { server: Record<string, unknown>; status?: string };

/** A fetch that serves `entries` as the generic registry API does; the URLs asked are kept. */
export function registryFetch(entries: () => Served[]): { fetch: typeof fetch; asked: string[] } {
  const asked: string[] = [];
  const item = (e: Served) => ({
    server: e.server,
    _meta: { 'io.modelcontextprotocol.registry/official': { status: e.status ?? 'active' } },
  });
  const fetchStub = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    asked.push(url.pathname + url.search);
    const one = /^\/v0\.1\/servers\/([^/]+)\/versions\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const [name, version] = [decodeURIComponent(one[1]!), decodeURIComponent(one[2]!)];
      const found = entries().filter(
        (e) => e.server['name'] === name && (version === 'latest' || e.server['version'] === version),
      );
      return found.length === 0 ? new Response('{}', { status: 404 }) : Response.json(item(found.at(-1)!));
    }
    return Response.json({ servers: entries().map(item), metadata: {} });
  }) as typeof fetch;
  return { fetch: fetchStub, asked };
}

/** A folder for one test's kept listings or secrets, removed after it. */
export function scratchDir(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A package entry of `registryType` with these inputs. */
export const packageEntry = (
  name: string,
  registryType: string,
  identifier: string,
  inputs: Record<string, unknown> = {},
  about: Record<string, unknown> = {},
): Served => ({
  server: {
    name,
    description: `The ${name} server`,
    version: '1.0.0',
    packages: [{ registryType, identifier, version: '1.0.0', transport: { type: 'stdio' }, ...inputs }],
    ...about,
  },
});
