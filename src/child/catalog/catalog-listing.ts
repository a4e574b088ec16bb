// Reading a child's catalog: each list it declared (tools, prompts, resources, templates),
// every page of each. Only tools/list is essential: a list a server declares but does not
// serve, fails or answers malformed is taken as empty, and said so. Each item is checked on
// its own: one that is not valid MCP (a tool without an inputSchema, say) is left out and
// reported, so that it neither fails the server's start nor reaches the client, whose whole
// tools/list it would fail. A server's pages must end: a cursor it gave before, or a list past
// MAX_LIST_PAGES pages or MAX_LIST_ITEMS items, ends the listing there (said in the log),
// where it would otherwise have asked for the same page forever, holding every copy.
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/log.js';
import type { CapabilityRow, Catalog, CatalogItems, CatalogKind } from '../../protocol/capabilities.js';
import { filterTools, type ToolFilter } from './tool-filter.js';
import type { ConnectHost } from '../connect-host.js';
import type { Generation } from '../generation.js';

export interface ListingOptions {
  /** The server's name, for log lines. */
  name: string;
  toolFilter: ToolFilter | undefined;
  logger: Logger;
  signal: AbortSignal;
  timeout: number;
  /** What a listing left out, by list, each item with why (empty: nothing); told once the listing succeeded. */
  onSkipped?: (kind: CatalogKind, skipped: readonly string[]) => void;
}

/** Items a listing reports by name; the rest are counted. */
const SKIPPED_SHOWN = 10;
/** Where a list is cut, whatever its server says: far past any real server's list, short of a memory to fear for. */
export const MAX_LIST_PAGES = 10_000;
export const MAX_LIST_ITEMS = 100_000;

/** Lists `rows` (those the child declared) on top of `base`, every page of each. */
export async function listCatalog(
  client: Client,
  rows: readonly CapabilityRow[],
  base: Catalog,
  options: ListingOptions,
): Promise<Catalog> {
  const capabilities = client.getServerCapabilities() ?? {};
  const lists = await Promise.all(
    rows.map(async (row) =>
      capabilities[row.capability]
        ? await listAll(client, row, options)
        : { kind: row.kind, items: [], skipped: [] as string[] },
    ),
  );
  for (const { kind, skipped } of lists) options.onSkipped?.(kind, skipped);
  return Object.freeze({ ...base, ...Object.fromEntries(lists.map((l) => [l.kind, l.items])) }) as Catalog;
}

async function listAll<K extends CatalogKind>(
  client: Client,
  row: CapabilityRow<K>,
  options: ListingOptions,
) {
  const items: CatalogItems[K][] = [];
  const skipped: string[] = [];
  const pageSchema = listPageSchema(row.kind);
  const requestOptions = { signal: options.signal, timeout: options.timeout };
  const cursors = new Set<string>();
  let cursor: string | undefined;
  do {
    let page;
    try {
      page = await client.request(
        { method: row.listMethod, params: cursor === undefined ? {} : { cursor } },
        pageSchema,
        requestOptions,
      );
    } catch (error) {
      if (!isEmptyList(row, error, options)) throw error;
      break;
    }
    for (const raw of page[row.kind] as unknown[]) {
      const item = row.itemSchema.safeParse(raw);
      if (item.success) items.push(item.data);
      else skipped.push(describeSkipped(row, raw, items.length + skipped.length, item.error));
    }
    const next = nextCursor(page.nextCursor, cursors, items.length + skipped.length);
    if (typeof next === 'object') {
      options.logger.warn(
        `[${options.name}] ${row.listMethod}: ${next.cut}; the list is cut at ${items.length} ${row.kind} (a fault of the server)`,
      );
      break;
    }
    cursor = next;
  } while (cursor !== undefined);
  if (skipped.length > 0) {
    const shown = skipped.slice(0, SKIPPED_SHOWN).join('; ');
    const more = skipped.length > SKIPPED_SHOWN ? `; and ${skipped.length - SKIPPED_SHOWN} more` : '';
    options.logger.warn(
      `[${options.name}] ${row.listMethod}: ${skipped.length} item(s) are not valid MCP and are not exposed: ${shown}${more}`,
    );
  }
  // A filtered-out tool is not there at all, for every part of mcpmux.
  const kept = Object.freeze(row.kind === 'tools' ? filterTools(items as Tool[], options.toolFilter) : items);
  return { kind: row.kind, items: kept, skipped };
}

/**
 * The cursor of the next page, undefined at the end (null and "" are how some servers say
 * so), or why the list is cut here.
 */
function nextCursor(
  next: string | null | undefined,
  seen: Set<string>,
  listed: number,
): string | undefined | { cut: string } {
  if (next === undefined || next === null || next === '') return undefined;
  if (seen.has(next)) return { cut: `the server gave the cursor ${JSON.stringify(next.slice(0, 80))} again` };
  if (seen.size + 1 >= MAX_LIST_PAGES) return { cut: `the server has given ${MAX_LIST_PAGES} pages` };
  if (listed >= MAX_LIST_ITEMS)
    return { cut: `the server has listed ${listed} items, the most mcpmux takes` };
  seen.add(next);
  return next;
}

/** A page of a list: the items are checked one by one (CapabilityRow.itemSchema), the page only for its shape. */
const pageSchemas = new Map<
  CatalogKind,
  z.ZodType<{ nextCursor?: string | null | undefined } & Record<string, unknown>>
>();
function listPageSchema(kind: CatalogKind) {
  let schema = pageSchemas.get(kind);
  if (!schema) {
    schema = z.looseObject({ [kind]: z.array(z.unknown()), nextCursor: z.string().nullish() });
    pageSchemas.set(kind, schema);
  }
  return schema;
}

/** "tool 'x': inputSchema: Invalid input: expected object, received undefined" (its first two problems). */
function describeSkipped(row: CapabilityRow, raw: unknown, index: number, error: z.ZodError): string {
  const noun = {
    tools: 'tool',
    prompts: 'prompt',
    resources: 'resource',
    resourceTemplates: 'resource template',
  }[row.kind];
  const fields = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const [key, name] = [fields[row.key], fields['name']];
  const which =
    typeof key === 'string'
      ? `${noun} '${key.slice(0, 100)}'`
      : typeof name === 'string'
        ? `${noun} named '${name.slice(0, 100)}'`
        : `${noun} #${index + 1}`;
  const problems = error.issues
    .slice(0, 2)
    .map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`)
    .join(', ');
  return `${which}: ${problems}`;
}

/**
 * Many servers declare `resources` but serve no resources/templates/list, or declare a
 * capability they never implemented; others fail resources/list when a backend is down, or
 * answer it with something that is not a list (`{}`). Such a list is empty, not a failed
 * start: only tools/list is essential (a client connected directly would still have the
 * tools). A timeout or an abort still fails the start.
 */
function isEmptyList(
  row: Pick<CapabilityRow, 'kind' | 'capability' | 'listMethod'>,
  error: unknown,
  options: ListingOptions,
): boolean {
  if (options.signal.aborted) return false;
  if (row.kind !== 'tools' && error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    options.logger.warn(`[${options.name}] ${row.listMethod}: ${error.message}; taking it as empty`);
    return true;
  }
  // A timeout or a closed connection is the SDK's own error (SdkError), never an empty list.
  if (!(error instanceof ProtocolError)) return false;
  if (error.code === ProtocolErrorCode.MethodNotFound) {
    options.logger.debug(
      () => `[${options.name}] declares '${row.capability}' but has no ${row.listMethod}; taking it as empty`,
    );
    return true;
  }
  if (row.kind === 'tools') return false;
  options.logger.warn(`[${options.name}] ${row.listMethod} failed (${error.message}); taking it as empty`);
  return true;
}

/** Quiet time after a child's list_changed before it is re-listed, and the longest a burst may defer it. */
const RELIST_QUIET_MS = 30;
const RELIST_MAX_WAIT_MS = 250;

/**
 * A child that announces its changes in a burst (one list_changed per tool it registers) is
 * re-listed once, when it has been quiet for a moment (never later than RELIST_MAX_WAIT_MS).
 */
export function relistWhenQuiet(
  gen: Generation,
  rows: readonly CapabilityRow[],
  relist: (rows: CapabilityRow[]) => void,
): void {
  const pending = (gen.pendingRefresh ??= { rows: new Set(), since: Date.now(), timer: undefined });
  for (const row of rows) pending.rows.add(row);
  clearTimeout(pending.timer);
  const wait = Math.min(RELIST_QUIET_MS, Math.max(0, pending.since + RELIST_MAX_WAIT_MS - Date.now()));
  pending.timer = setTimeout(() => {
    gen.pendingRefresh = undefined;
    relist([...pending.rows]);
  }, wait);
}

/**
 * Lists `rows` again and commits them into the catalog as it is when they arrive (another
 * re-list may have replaced the other rows meanwhile); nothing is committed when the
 * generation no longer runs (`current` gives undefined), and a failed listing is logged (as a
 * warning only while the generation still runs).
 */
export async function relistRows(
  client: Client,
  rows: readonly CapabilityRow[],
  current: () => Catalog | undefined,
  options: ListingOptions,
  commit: (catalog: Catalog) => void,
): Promise<void> {
  const base = current();
  if (!base) return;
  try {
    const listed = await listCatalog(client, rows, base, options);
    const now = current();
    if (!now) return;
    commit(
      Object.freeze({
        ...now,
        ...Object.fromEntries(rows.map((row) => [row.kind, listed[row.kind]])),
      }) as Catalog,
    );
  } catch (error) {
    const failed = () =>
      `[${options.name}] re-listing ${rows.map((r) => r.kind).join(' and ')} after list_changed failed: ${messageOf(error)}`;
    // A server stopped meanwhile (removed, reloaded, mcpmux ending) has nothing to report.
    if (current()) options.logger.warn(failed());
    else options.logger.debug(failed);
  }
}

/** What listing a catalog needs: the start's signal and timeout, the server's name and tool filter. */
export function listingOptions(
  host: ConnectHost,
  gen: Generation,
  options: { signal: AbortSignal; timeout: number },
): ListingOptions {
  return {
    ...options,
    name: host.name,
    toolFilter: host.spec.toolFilter,
    logger: host.log,
    onSkipped: (kind, skipped) => (gen.skipped = { ...gen.skipped, [kind]: skipped }),
  };
}
