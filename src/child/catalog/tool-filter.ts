// Per-server tool filters: `tools: {allow: [globs], deny: [globs]}` in a config entry or
// add_server. A tool is exposed when it matches an allow glob (or there is none) and no
// deny glob. Applied where a child's tools are listed, so a filtered tool is unknown
// everywhere: in tools/list, list_servers, reload diffs and calls.
import { compileGlob } from '../../common/glob-matcher.js';
import type { Tool } from '@modelcontextprotocol/server';
import type { ToolFilter } from '../server-spec.js';

export type { ToolFilter } from '../server-spec.js';

/** A predicate over child tool names; globs match the name as the child gives it. */
export function toolFilterPredicate(filter: ToolFilter): (name: string) => boolean {
  const allow = filter.allow?.length ? compileGlob(filter.allow) : () => true;
  const deny = filter.deny?.length ? compileGlob(filter.deny) : () => false;
  return (name) => allow(name) && !deny(name);
}

export function filterTools(tools: readonly Tool[], filter: ToolFilter | undefined): readonly Tool[] {
  if (!filter) return tools;
  const keep = toolFilterPredicate(filter);
  return tools.filter((tool) => keep(tool.name));
}
