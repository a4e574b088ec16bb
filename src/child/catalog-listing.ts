// Reading a child's catalog: each list it declared (tools, prompts, resources, templates),
// every page of each. Only tools/list is essential: a list a server declares but does not
// serve, or fails, is taken as empty, and said so.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Client, Tool } from '@modelcontextprotocol/client';
import { messageOf } from '../errors.js';
import type { Logger } from '../log.js';
import type { CapabilityRow, Catalog, CatalogKind } from '../router/capabilities.js';
import { filterTools, type ToolFilter } from '../router/tool-filter.js';
import type { Generation } from './generation.js';

export interface ListingOptions {
  /** The server's name, for log lines. */
  name: string;
  toolFilter: ToolFilter | undefined;
  logger: Logger;
  signal: AbortSignal;
  timeout: number;
}

/** Lists `rows` (those the child declared) on top of `base`, every page of each. */
export async function listCatalog(
  client: Client,
  rows: readonly CapabilityRow[],
  base: Catalog,
  options: ListingOptions,
): Promise<Catalog> {
  const capabilities = client.getServerCapabilities() ?? {};
  const lists = await Promise.all(
    rows.map(
      async (row) =>
        [row.kind, capabilities[row.capability] ? await listAll(client, row, options) : []] as const,
    ),
  );
  return Object.freeze({ ...base, ...Object.fromEntries(lists) }) as Catalog;
}

async function listAll<K extends CatalogKind>(
  client: Client,
  row: CapabilityRow<K>,
  options: ListingOptions,
) {
  const items: unknown[] = [];
  const requestOptions = { signal: options.signal, timeout: options.timeout };
  let cursor: string | undefined;
  do {
    let page;
    try {
      page = await client.request(
        { method: row.listMethod, params: cursor === undefined ? {} : { cursor } },
        row.listResultSchema,
        requestOptions,
      );
    } catch (error) {
      if (!isEmptyList(row, error, options)) throw error;
      break;
    }
    items.push(...(page[row.kind] as unknown[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  // A filtered-out tool is not there at all, for every part of mcpmux.
  return Object.freeze(row.kind === 'tools' ? filterTools(items as Tool[], options.toolFilter) : items);
}

/**
 * Many servers declare `resources` but serve no resources/templates/list, or declare a
 * capability they never implemented; others fail resources/list when a backend is down.
 * Such a list is empty, not a failed start: only tools/list is essential. A timeout or an
 * abort still fails the start.
 */
function isEmptyList(
  row: Pick<CapabilityRow, 'kind' | 'capability' | 'listMethod'>,
  error: unknown,
  options: ListingOptions,
): boolean {
  // A timeout or a closed connection is the SDK's own error (SdkError), never an empty list.
  if (options.signal.aborted || !(error instanceof ProtocolError)) return false;
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
 * generation no longer runs (`current` gives undefined), and a failed listing is logged.
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
    options.logger.warn(
      `[${options.name}] re-listing ${rows.map((r) => r.kind).join(' and ')} after list_changed failed: ${messageOf(error)}`,
    );
  }
}
