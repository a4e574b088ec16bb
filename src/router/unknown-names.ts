// What a caller is told when a tool or prompt name routes nowhere: which servers have it,
// what it is exposed as, or what exists instead, and what to call to see it.
import { MuxError } from '../common/errors.js';
import type { ChildrenSnapshot, ServerView } from '../children/children-snapshot.js';
import type { CatalogTable, Route } from './routes.js';
import { heldItemError } from './held-items.js';
import { splitExposedName } from './tool-names.js';

/** The error for a name that is neither exposed nor (for a tool) one server's own. */
export function unknownNameError<K extends 'tools' | 'prompts'>(
  snapshot: ChildrenSnapshot,
  kind: K,
  name: string,
  table: CatalogTable<K>,
  toolOwners: readonly Route<'tools'>[] | undefined,
): MuxError {
  const noun = kind === 'tools' ? 'tool' : 'prompt';
  const code = kind === 'tools' ? 'TOOL_NOT_FOUND' : 'PROMPT_NOT_FOUND';
  if (toolOwners && toolOwners.length > 1)
    return new MuxError(
      code,
      `tool '${name}' is on ${toolOwners.length} servers (${toolOwners.map((r) => r.server).join(', ')}); call it by its exposed name: ${toolOwners.map((r) => `'${r.exposedKey}'`).join(' or ')}`,
    );
  const parts = splitExposedName(name);
  if (!parts) {
    // A prompt asked for by its server's own name (a tool by it is routed: toolRoute).
    const asExposed = [...table.byKey.values()]
      .filter((route) => route.item.name === name)
      .map((route) => `'${route.exposedKey}'`);
    const hint =
      asExposed.length > 0
        ? `did you mean ${asExposed.join(' or ')}?`
        : kind === 'tools'
          ? 'call list_servers to see them'
          : 'call prompts/list to see them';
    return new MuxError(
      code,
      `unknown ${noun} '${name}'; child ${noun}s are named <server>__<${noun}>: ${hint}`,
    );
  }
  const view = snapshot.servers.get(parts.server);
  if (!view) {
    const known = [...snapshot.servers.keys()];
    return new MuxError(
      code,
      `unknown ${noun} '${name}': no server named '${parts.server}'${known.length ? ` (servers: ${known.join(', ')})` : ''}`,
    );
  }
  if (view.connection.state.kind !== 'running') return notAvailable(view, `${noun} '${name}'`);
  const held = heldItemError(view, kind === 'tools' ? 'tool' : 'prompt', name);
  if (held) return held;
  const available = table.items.filter((t) => t.name.startsWith(view.name + '__')).map((t) => t.name);
  return new MuxError(
    code,
    `server '${view.name}' has no ${noun} '${name}'; its ${noun}s: ${available.join(', ') || '(none)'}`,
  );
}

/** The error for something of a server that is not running now. */
function notAvailable(view: ServerView, what: string): MuxError {
  const status = view.connection.status();
  const why =
    status.status === 'crashed'
      ? `crashed (${status.last_error}); call reload_server {"name":"${view.name}"}`
      : `${status.status}; try again when it is running`;
  const code = status.status === 'crashed' ? 'SERVER_CRASHED' : 'SERVER_BUSY';
  return new MuxError(code, `${what} is not available: server '${view.name}' is ${why}`);
}
