// The capability table: one row per list a server can publish (tools, prompts, resources,
// resource templates), saying how it is listed, what identifies an item, how that key is
// namespaced across children, which request uses an item, and which notification says the
// list changed. Listing, re-listing, diffing, naming and routing read this table, so the
// four lists share one mechanism.
import type {
  Prompt,
  Resource,
  ResourceTemplateType,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/server';
import { PromptSchema, ResourceSchema, ResourceTemplateSchema, ToolSchema } from '@modelcontextprotocol/core';
import type { z } from 'zod';

export const CATALOG_KINDS = ['tools', 'prompts', 'resources', 'resourceTemplates'] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];

export interface CatalogItems {
  tools: Tool;
  prompts: Prompt;
  resources: Resource;
  resourceTemplates: ResourceTemplateType;
}

/** Everything one child publishes; each list is immutable once made. */
export type Catalog = { readonly [K in CatalogKind]: readonly CatalogItems[K][] };

export const EMPTY_CATALOG: Catalog = Object.freeze({
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
});

export type ListChangedMethod =
  | 'notifications/tools/list_changed'
  | 'notifications/prompts/list_changed'
  | 'notifications/resources/list_changed';

export interface CapabilityRow<K extends CatalogKind = CatalogKind> {
  readonly kind: K;
  /** The server capability that says a child has this list. */
  readonly capability: keyof Pick<ServerCapabilities, 'tools' | 'prompts' | 'resources'>;
  readonly listMethod: 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list';
  /**
   * What one item of the list must be: each is checked on its own, so that one malformed
   * item is left out (and said so) rather than failing the whole list, and the server.
   */
  readonly itemSchema: z.ZodType<CatalogItems[K]>;
  /** The field that identifies an item. */
  readonly key: 'name' | 'uri' | 'uriTemplate';
  /**
   * How keys of several children become one namespace: `prefixed` names become
   * `server__name` (tool-names.ts); `uri` keys stay as they are unless two children share
   * one, and then become `mcpmux://server/<uri>` (uri-names.ts).
   */
  readonly naming: 'prefixed' | 'uri';
  /** The request that uses one item, routed by its key. */
  readonly useMethod: 'tools/call' | 'prompts/get' | 'resources/read' | undefined;
  /** What a child sends when this list changed, and what mcpmux sends its client. */
  readonly listChanged: ListChangedMethod;
}

export const CAPABILITY_TABLE: { readonly [K in CatalogKind]: CapabilityRow<K> } = {
  tools: {
    kind: 'tools',
    capability: 'tools',
    listMethod: 'tools/list',
    itemSchema: ToolSchema,
    key: 'name',
    naming: 'prefixed',
    useMethod: 'tools/call',
    listChanged: 'notifications/tools/list_changed',
  },
  prompts: {
    kind: 'prompts',
    capability: 'prompts',
    listMethod: 'prompts/list',
    itemSchema: PromptSchema,
    key: 'name',
    naming: 'prefixed',
    useMethod: 'prompts/get',
    listChanged: 'notifications/prompts/list_changed',
  },
  resources: {
    kind: 'resources',
    capability: 'resources',
    listMethod: 'resources/list',
    itemSchema: ResourceSchema,
    key: 'uri',
    naming: 'uri',
    useMethod: 'resources/read',
    listChanged: 'notifications/resources/list_changed',
  },
  resourceTemplates: {
    kind: 'resourceTemplates',
    capability: 'resources',
    listMethod: 'resources/templates/list',
    itemSchema: ResourceTemplateSchema,
    key: 'uriTemplate',
    naming: 'uri',
    // A template is used by reading a URI it expands to (routed by matching).
    useMethod: undefined,
    listChanged: 'notifications/resources/list_changed',
  },
};

export const CAPABILITY_ROWS: readonly CapabilityRow[] = CATALOG_KINDS.map(
  (kind) => CAPABILITY_TABLE[kind] as CapabilityRow,
);

/** The key of an item under its row (its name, URI or URI template). */
export function itemKey<K extends CatalogKind>(kind: K, item: CatalogItems[K]): string {
  return (item as unknown as Record<string, string>)[CAPABILITY_TABLE[kind].key]!;
}

/** Rows whose list a notification says changed. */
export const rowsChangedBy = (method: ListChangedMethod): readonly CapabilityRow[] =>
  CAPABILITY_ROWS.filter((row) => row.listChanged === method);
