// One MCP registry's listing, kept on disk: read whole through its REST API the first time
// (`GET /v0.1/servers?version=latest`, page by page with `cursor`), then only what changed
// since the last read (`updated_since`), so that a search neither waits on the network every
// turn nor fails when the registry cannot be reached and a copy is kept.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { messageOf } from '../common/errors.js';
import { boundedEntry, boundedJson, ENTRY_BYTES, PAGE_BYTES } from './entry-bounds.js';
import { serverEntry, type ServerEntry } from './server-entry.js';

/** The official registry's metadata under each listed server. */
const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

/** Pages are asked this large (the API's bound is 100). */
const PAGE_LIMIT = 100;

/** A full listing is at most this many pages: a registry that pages for ever is cut off. */
const MAX_PAGES = 500;

const page = z.looseObject({
  servers: z.array(
    z.looseObject({ server: z.unknown(), _meta: z.record(z.string(), z.unknown()).optional() }),
  ),
  metadata: z.looseObject({ nextCursor: z.string().nullish() }).optional(),
});

export interface ListedServer {
  readonly entry: ServerEntry;
  /** The registry's status for it: active, deprecated, deleted. */
  readonly status?: string;
  readonly updatedAt?: string;
}

/** A listed item (`{server, _meta}`) as mcpmux keeps it; undefined when its server.json cannot be read. */
function listedServer(item: {
  server: unknown;
  _meta?: Record<string, unknown> | undefined;
}): ListedServer | undefined {
  const entry = serverEntry.safeParse(item.server);
  const bounded = entry.success ? boundedEntry(entry.data) : undefined;
  if (!bounded) return undefined;
  const official = z
    .looseObject({ status: z.string().optional(), updatedAt: z.string().optional() })
    .safeParse(item._meta?.[OFFICIAL_META]);
  return {
    entry: bounded,
    ...(official.success && official.data.status !== undefined && { status: official.data.status }),
    ...(official.success && official.data.updatedAt !== undefined && { updatedAt: official.data.updatedAt }),
  };
}

interface KeptListing {
  readonly url: string;
  /** When the last read began (ISO): the next read asks for what changed since. */
  readonly readAt: string;
  readonly servers: ListedServer[];
}

export class RegistryUnreachable extends Error {
  override readonly name = 'RegistryUnreachable';
}

export interface RegistryListingOptions {
  /** The registry's base URL: https://registry.modelcontextprotocol.io, or an organisation's. */
  readonly url: string;
  /** Where listings are kept ($XDG_CACHE_HOME/mcpmux/registries). */
  readonly dir: string;
  readonly fetch?: typeof fetch;
  /** How long one page may take. */
  readonly timeoutMs?: number;
}

export class RegistryListing {
  readonly url: string;
  readonly #file: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: RegistryListingOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.#file = join(
      options.dir,
      `${createHash('sha256').update(this.url).digest('hex').slice(0, 16)}.json`,
    );
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** The copy on disk, if any; no network. */
  kept(): { readAt: string; servers: ListedServer[] } | undefined {
    try {
      const kept = JSON.parse(readFileSync(this.#file, 'utf8')) as KeptListing;
      return kept.url === this.url ? { readAt: kept.readAt, servers: kept.servers } : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The listing, read again when the kept copy is older than `maxAgeMs` (only what changed
   * since it, when there is one). Throws RegistryUnreachable when the registry cannot be read
   * and nothing is kept; with a copy kept, answers it and says why it is not fresher.
   */
  async listing(maxAgeMs: number): Promise<{ servers: ListedServer[]; readAt: string; stale?: string }> {
    const kept = this.kept();
    if (kept && Date.now() - Date.parse(kept.readAt) < maxAgeMs) return kept;
    const readAt = new Date().toISOString();
    let changed: ListedServer[];
    try {
      changed = await this.#read(kept?.readAt);
    } catch (error) {
      const why = this.#unreadable(error);
      if (!kept) throw new RegistryUnreachable(why);
      return { ...kept, stale: `${why}; its listing as read at ${kept.readAt} is used` };
    }
    const byName = new Map((kept?.servers ?? []).map((s) => [s.entry.name, s]));
    for (const server of changed) {
      if (server.status === 'deleted') byName.delete(server.entry.name);
      else byName.set(server.entry.name, server);
    }
    const servers = [...byName.values()];
    this.#keep({ url: this.url, readAt, servers });
    return { servers, readAt };
  }

  /**
   * One entry at `version` ("latest" included), read from the registry now
   * (`GET /v0.1/servers/{name}/versions/{version}`); undefined when the registry has none.
   */
  async entry(name: string, version: string): Promise<ListedServer | undefined> {
    const path = `/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
    let response: Response;
    try {
      response = await this.#fetch(`${this.url}${path}`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new RegistryUnreachable(this.#unreadable(error));
    }
    if (response.status === 404) return undefined;
    if (!response.ok)
      throw new RegistryUnreachable(`registry ${this.url} answered HTTP ${response.status} for ${path}`);
    const item = z
      .looseObject({ server: z.unknown(), _meta: z.record(z.string(), z.unknown()).optional() })
      .safeParse(
        await boundedJson(response, ENTRY_BYTES, `its answer to ${path}`).catch((error: unknown) => {
          throw new RegistryUnreachable(`registry ${this.url}: ${messageOf(error)}`);
        }),
      );
    const listed = item.success ? listedServer(item.data) : undefined;
    if (!listed)
      throw new RegistryUnreachable(
        `registry ${this.url} answered ${path} with no server entry mcpmux can read`,
      );
    return listed;
  }

  /** Why the registry could not be read: fetch says only "fetch failed", its cause says what. */
  #unreadable(error: unknown): string {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const detail = typeof cause?.code === 'string' ? cause.code : cause?.message;
    return `registry ${this.url} could not be read: ${messageOf(error)}${typeof detail === 'string' ? ` (${detail})` : ''}`;
  }

  /** Every page of the listing (since `updatedSince`, when given). */
  async #read(updatedSince: string | undefined): Promise<ListedServer[]> {
    const servers: ListedServer[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const query = new URLSearchParams({ version: 'latest', limit: String(PAGE_LIMIT) });
      if (updatedSince) query.set('updated_since', updatedSince);
      if (cursor) query.set('cursor', cursor);
      const response = await this.#fetch(`${this.url}/v0.1/servers?${query}`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status} for ${response.url || this.url}`);
      const parsed = page.safeParse(await boundedJson(response, PAGE_BYTES, 'a page of its listing'));
      if (!parsed.success) throw new Error('its answer is not a server listing (servers: [{server}])');
      for (const item of parsed.data.servers) {
        // An entry this schema cannot read is left out, not the registry.
        const listed = listedServer(item);
        if (listed) servers.push(listed);
      }
      cursor = parsed.data.metadata?.nextCursor ?? undefined;
      if (!cursor) return servers;
    }
    throw new Error(`more than ${MAX_PAGES} pages`);
  }

  /** Written whole, then renamed: a search beside this read never sees half a listing. */
  #keep(listing: KeptListing): void {
    mkdirSync(join(this.#file, '..'), { recursive: true });
    const staged = `${this.#file}.${process.pid}`;
    writeFileSync(staged, JSON.stringify(listing));
    renameSync(staged, this.#file);
  }
}
