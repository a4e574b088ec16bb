// An MCP App's tool names its UI by a `ui://` URI in `_meta.ui.resourceUri` (and the older
// `_meta["ui/resourceUri"]`). When two servers use the same URI (two instances of one app,
// or two apps with the same path), each tool must name its own server's: the URI is
// rewritten as resources/list rewrites a shared URI, and reading it reaches that server.
import type { Tool } from '@modelcontextprotocol/server';
import type { ChildrenSnapshot } from '../children/children-snapshot.js';
import { rewriteUri } from './uri-names.js';

/** `tools` (exposed, each of the server `serverOf` names) with every shared UI URI rewritten. */
export function withExposedAppUris(
  snapshot: ChildrenSnapshot,
  tools: readonly Tool[],
  serverOf: (tool: Tool) => string,
): Tool[] {
  const servers = new Map<string, Set<string>>();
  const own = (uri: string, server: string) => servers.set(uri, (servers.get(uri) ?? new Set()).add(server));
  for (const view of snapshot.servers.values())
    for (const resource of view.catalog.resources) own(resource.uri, view.name);
  for (const tool of tools) {
    const uri = appUri(tool);
    if (uri !== undefined) own(uri, serverOf(tool));
  }
  return tools.map((tool) => {
    const uri = appUri(tool);
    if (uri === undefined || servers.get(uri)!.size < 2) return tool;
    return withAppUri(tool, rewriteUri(serverOf(tool), uri));
  });
}

/** The URI of an MCP App's UI that a tool names, if it names one. */
function appUri(tool: Tool): string | undefined {
  const meta = tool._meta;
  if (!meta) return undefined;
  const ui = meta['ui'] as { resourceUri?: unknown } | undefined;
  const uri = typeof ui?.resourceUri === 'string' ? ui.resourceUri : meta['ui/resourceUri'];
  return typeof uri === 'string' ? uri : undefined;
}

/** `tool` naming `uri` as its UI, under both keys it used. */
function withAppUri(tool: Tool, uri: string): Tool {
  const meta = { ...tool._meta };
  const ui = meta['ui'] as Record<string, unknown> | undefined;
  if (typeof ui?.['resourceUri'] === 'string') meta['ui'] = { ...ui, resourceUri: uri };
  if (typeof meta['ui/resourceUri'] === 'string') meta['ui/resourceUri'] = uri;
  return { ...tool, _meta: meta };
}
