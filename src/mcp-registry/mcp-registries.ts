// The MCP registries mcpmux is pointed at (--registry, "mcpmux": {"registries": [...]}, else
// the official one), as find_servers and add_server use them: every registry's kept listing
// searched at once, a registry that cannot be read named beside the others' answers; an
// entry found by its name, at its latest version or the one asked for.
import { MuxError } from '../common/errors.js';
import { telemetry } from '../common/telemetry.js';
import type { RankerSource } from '../search/tool-index.js';
import type { ServerSpec } from '../child/server-spec.js';
import { RegistryListing, RegistryUnreachable, type ListedServer } from './registry-listing.js';
import { ServerSearch, type FoundServer, type RegistryServers } from './server-search.js';
import type { ServerEntry } from './server-entry.js';

/** The official MCP Registry, used when no registry is configured. */
export const OFFICIAL_REGISTRY = 'https://registry.modelcontextprotocol.io';

/** A kept listing is read again after this long; a search in between reads only the disk. */
const DEFAULT_MAX_AGE_MS = 60 * 60 * 1000;

export interface McpRegistriesOptions {
  /** The registries' base URLs, in the order they are asked. */
  readonly urls: readonly string[];
  /** Where listings are kept ($XDG_CACHE_HOME/mcpmux/registries). */
  readonly dir: string;
  /** search_tools' ranker, a separate instance: registry entries are ranked as tools are. */
  readonly ranker: RankerSource;
  readonly maxAgeMs?: number;
  readonly fetch?: typeof fetch;
}

export interface RegistryFindings {
  readonly found: readonly FoundServer[];
  /** Registries that could not be read (with nothing kept), or whose kept copy is old: why, in words. */
  readonly problems: readonly string[];
}

export interface RegistryEntry {
  /** The registry's name, as hits show it (its host and path). */
  readonly registry: string;
  readonly server: ListedServer;
}

/** What the person can do when no registry can be read: where to point mcpmux, or how to turn them off. */
const ELSEWHERE =
  'Start mcpmux with --registry URL to use one it can reach (any web server with a static v0.1/servers file is one: ' +
  'docs/tools.md, "A registry of your own"), or with --no-registry to turn registries off';

/** A registry as people name it: its host and path, without the scheme. */
export const registryName = (url: string): string => url.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');

export class McpRegistries {
  readonly #listings: readonly RegistryListing[];
  readonly #search: ServerSearch;
  readonly #maxAgeMs: number;

  constructor(options: McpRegistriesOptions) {
    this.#listings = options.urls.map(
      (url) => new RegistryListing({ url, dir: options.dir, ...(options.fetch && { fetch: options.fetch }) }),
    );
    this.#search = new ServerSearch(options.ranker);
    this.#maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  }

  /** The registries' names, in the order they are asked. */
  get names(): string[] {
    return this.#listings.map((l) => registryName(l.url));
  }

  /** The entries that best meet `query`, across every registry that can be read (or is kept). */
  async find(query: string, limit: number): Promise<RegistryFindings> {
    const { listings, problems } = await this.#read();
    if (listings.length === 0)
      throw new MuxError(
        'REGISTRY_UNREACHABLE',
        `no MCP registry could be read: ${problems.join('; ')}. ${ELSEWHERE}`,
      );
    const started = performance.now();
    const found = query.trim() === '' ? [] : await this.#search.search(listings, query, limit);
    telemetry.record('mcpmux.search.duration', (performance.now() - started) / 1000, {
      'mcpmux.search.kind': 'servers',
    });
    return { found, problems };
  }

  /**
   * The entry named `name` (`io.github.owner/server`), from the first registry that lists it:
   * at `version` when given (read from the registry then), else its latest, from the kept
   * listing or, for an entry published since it was read, from the registry.
   */
  async entry(name: string, version?: string): Promise<RegistryEntry> {
    const problems: string[] = [];
    if (version === undefined) {
      const { listings, problems: unread } = await this.#read();
      problems.push(...unread);
      for (const { registry, servers } of listings) {
        const server = servers.find((s) => s.entry.name === name);
        if (server) return { registry, server };
      }
    }
    for (const listing of this.#listings) {
      try {
        const server = await listing.entry(name, version ?? 'latest');
        if (server) return { registry: registryName(listing.url), server };
      } catch (error) {
        if (!(error instanceof RegistryUnreachable)) throw error;
        if (!problems.some((p) => p.startsWith(`registry ${listing.url} `))) problems.push(error.message);
      }
    }
    const at = version === undefined ? '' : ` at version ${version}`;
    throw new MuxError(
      'ENTRY_NOT_FOUND',
      `no registry lists '${name}'${at} (asked: ${this.names.join(', ')})` +
        (problems.length > 0 ? `; ${problems.join('; ')}. ${ELSEWHERE}` : '') +
        '. Entry names look like io.github.owner/server: find_servers finds them by what they do',
    );
  }

  /** Every registry's listing that can be had (fresh, or as kept), and why the others cannot. */
  async #read(): Promise<{ listings: RegistryServers[]; problems: string[] }> {
    const read = await Promise.allSettled(this.#listings.map((l) => l.listing(this.#maxAgeMs)));
    const listings: RegistryServers[] = [];
    const problems: string[] = [];
    read.forEach((outcome, i) => {
      if (outcome.status === 'rejected') {
        if (!(outcome.reason instanceof RegistryUnreachable)) throw outcome.reason;
        problems.push(outcome.reason.message);
        return;
      }
      if (outcome.value.stale) problems.push(outcome.value.stale);
      listings.push({ registry: registryName(this.#listings[i]!.url), servers: outcome.value.servers });
    });
    return { listings, problems };
  }
}

/**
 * The names of running servers that run `entry` already: a command line that names one of its
 * packages, or one of its remotes' URLs (whoever added them, and however).
 */
export function runningAs(entry: ServerEntry, running: ReadonlyMap<string, ServerSpec>): string[] {
  const packages = (entry.packages ?? []).map((p) => p.identifier);
  const remotes = (entry.remotes ?? []).map((r) => withoutTemplate(r.url));
  return [...running].flatMap(([name, spec]) => {
    if (spec.registryEntry === entry.name) return [name];
    if (spec.transport === 'http')
      return remotes.some((url) => url !== '' && spec.url.startsWith(url)) ? [name] : [];
    const runs = spec.args.some((arg) =>
      packages.some(
        (id) =>
          arg === id || arg.startsWith(`${id}@`) || arg.startsWith(`${id}==`) || arg.startsWith(`${id}:`),
      ),
    );
    return runs ? [name] : [];
  });
}

/** A remote URL up to its first `{variable}`. */
const withoutTemplate = (url: string) => url.split('{')[0]!;
