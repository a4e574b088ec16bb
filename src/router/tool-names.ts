// Exposed names: child tool T of server S is listed as `S__T`. Clients only accept
// ^[a-zA-Z0-9_-]{1,64}$ (minus any prefix of their own), so a name with other characters
// or over the budget is rewritten deterministically: it depends only on (S, T, budget),
// never on which other tools exist, and the router keeps the map back to (S, T).
import { createHash } from 'node:crypto';
import { SERVER_NAME_PATTERN } from '../child/server-spec.js';

export const NAME_SEPARATOR = '__';
export const DEFAULT_MAX_TOOL_NAME = 64;
/** Characters a rewritten name ends with: '_' and 8 hex digits of a hash of (S, T). */
const HASH_SUFFIX_LENGTH = 9;
/** The shortest tool part a server name must leave room for. */
const MIN_TOOL_PART = 1 + HASH_SUFFIX_LENGTH;
const VALID_EXPOSED = /^[a-zA-Z0-9_-]+$/;
const INVALID_CHARS = /[^a-zA-Z0-9_-]/g;

/** The longest server name that still leaves room for a tool under `maxToolName`. */
export const maxServerNameLength = (maxToolName: number): number =>
  maxToolName - NAME_SEPARATOR.length - MIN_TOOL_PART;

/** Why `name` cannot be a server name, or undefined when it can. */
export function serverNameProblem(name: string, maxToolName = DEFAULT_MAX_TOOL_NAME): string | undefined {
  if (name.length === 0) return 'the server name is empty; give a name such as "github"';
  if (!SERVER_NAME_PATTERN.test(name)) {
    return `server name '${name}' may only contain letters, digits, '_' and '-', and must start with a letter or digit`;
  }
  if (name.includes(NAME_SEPARATOR)) {
    return `server name '${name}' contains '__', which separates server and tool in exposed names; use a single '_' or '-'`;
  }
  if (name.endsWith('_'))
    return `server name '${name}' ends with '_', which would make its exposed names ambiguous`;
  const max = maxServerNameLength(maxToolName);
  if (name.length > max) {
    return `server name '${name}' has ${name.length} characters; with --max-tool-name ${maxToolName} a server name can have at most ${max}`;
  }
  return undefined;
}

/** The prefix a server's names get unless it names its own (`prefix` in its spec). */
export const defaultPrefix = (server: string): string => server + NAME_SEPARATOR;

/**
 * The name under which tool `tool` of server `server` is listed to the client: its prefix
 * (`server__` by default) and the tool's name.
 */
export function exposedToolName(
  server: string,
  tool: string,
  maxToolName = DEFAULT_MAX_TOOL_NAME,
  prefix = defaultPrefix(server),
): string {
  const plain = prefix + tool;
  if (plain.length <= maxToolName && VALID_EXPOSED.test(tool) && tool.length > 0) return plain;
  // Rewritten names always carry the hash, so a rewrite never equals another tool's plain name by accident.
  const cleaned = prefix + tool.replace(INVALID_CHARS, '_');
  const suffix = '_' + shortHash(server, tool);
  return cleaned.slice(0, maxToolName - suffix.length) + suffix;
}

/** Splits an exposed name on the first '__'; undefined when it has none. */
export function splitExposedName(exposed: string): { server: string; tool: string } | undefined {
  const at = exposed.indexOf(NAME_SEPARATOR);
  if (at <= 0) return undefined;
  return { server: exposed.slice(0, at), tool: exposed.slice(at + NAME_SEPARATOR.length) };
}

function shortHash(server: string, tool: string): string {
  return createHash('sha256')
    .update(server)
    .update('\0')
    .update(tool)
    .digest('hex')
    .slice(0, HASH_SUFFIX_LENGTH - 1);
}
