// SEP-2243 (MCP 2026-07-28 over HTTP): a tool may mark arguments with `x-mcp-header`, and a
// client then repeats each such argument's value in an `Mcp-Param-{Name}` header, so that a
// gateway can route on it without reading the body. mcpmux is at both ends: it sends the
// headers when it calls such a tool of a 2026-07-28 server over HTTP (the SDK's server
// refuses the call without them, and the SDK adds them only in Client.callTool, which the
// proxy does not use), and it checks them on a 2026-07-28 client's calls to its own endpoint
// (a server MUST refuse one missing, malformed or different). The rules are those of the
// SDK's core (mcpParamHeaders.ts), which it does not export: a schema with any misplaced or
// malformed declaration has none, as the SDK reads it on both sides.

/** JSON-RPC error code of a request whose headers and body disagree (HeaderMismatch). */
export const HEADER_MISMATCH = -32020;

const HEADER_PREFIX = 'Mcp-Param-';
const DECLARATION_KEY = 'x-mcp-header';
/** An RFC 9110 token: what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'number', 'boolean']);
/** Where a declaration may not be: it must be reached from the root by `properties` alone. */
const UNREACHABLE_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
const KEYED_KEYWORDS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const BASE64_OPEN = '=?base64?';
const BASE64_CLOSE = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

export interface ParamHeader {
  /** The argument's path from the arguments object (a chain of property names). */
  path: readonly string[];
  /** The header's name after `Mcp-Param-`. */
  name: string;
  type: string;
}

const scanned = new WeakMap<object, readonly ParamHeader[]>();

/** The arguments a tool's input schema mirrors into headers (none when it declares them wrongly). */
export function paramHeadersOf(inputSchema: unknown): readonly ParamHeader[] {
  if (typeof inputSchema !== 'object' || inputSchema === null) return [];
  let found = scanned.get(inputSchema);
  if (!found) {
    found = scan(inputSchema) ?? [];
    scanned.set(inputSchema, found);
  }
  return found;
}

/** The declarations, or undefined when one is misplaced, malformed or repeated. */
function scan(root: object): ParamHeader[] | undefined {
  const found: ParamHeader[] = [];
  const names = new Set<string>();
  const visit = (node: unknown, path: readonly string[], reachable: boolean): boolean => {
    if (typeof node !== 'object' || node === null) return true;
    const schema = node as Record<string, unknown>;
    if (DECLARATION_KEY in schema) {
      const name = schema[DECLARATION_KEY];
      const type = schema['type'];
      if (!reachable || path.length === 0 || typeof name !== 'string' || !TOKEN.test(name)) return false;
      if (typeof type !== 'string' || !PRIMITIVE_TYPES.has(type) || names.has(name.toLowerCase()))
        return false;
      names.add(name.toLowerCase());
      found.push({ path, name, type });
    }
    const properties = schema['properties'];
    if (typeof properties === 'object' && properties !== null)
      for (const [key, child] of Object.entries(properties))
        if (!visit(child, [...path, key], reachable)) return false;
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : KEYED_KEYWORDS.has(keyword) && typeof sub === 'object' && sub !== null
          ? Object.values(sub)
          : [sub];
      if (!branches.every((branch) => visit(branch, path, false))) return false;
    }
    return true;
  };
  return visit(root, [], true) ? found : undefined;
}

/** The headers a call with `args` carries: one per declared argument that has a primitive value. */
export function paramHeaderValues(
  declared: readonly ParamHeader[],
  args: Record<string, unknown> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, name } of declared) {
    const value = primitiveText(valueAt(args, path));
    if (value !== undefined) headers[HEADER_PREFIX + name] = encode(value);
  }
  return headers;
}

/**
 * Why a call's headers do not match its arguments, or undefined when they do. `header` reads a
 * request header by name (case-insensitively). An argument left out (or null) needs no header.
 */
export function paramHeaderMismatch(
  declared: readonly ParamHeader[],
  args: Record<string, unknown> | undefined,
  header: (name: string) => string | undefined,
): { header: string; body: string } | undefined {
  for (const { path, name, type } of declared) {
    const raw = valueAt(args, path);
    const text = primitiveText(raw);
    if (text === undefined) continue;
    const headerName = HEADER_PREFIX + name;
    const given = header(headerName);
    const where = path.join('.');
    if (given === undefined)
      return {
        header: headerName,
        body: `the body carries ${where}=${JSON.stringify(raw)} but the ${headerName} header is absent`,
      };
    const decoded = decode(given.trim());
    if (decoded === undefined)
      return {
        header: headerName,
        body: `the ${headerName} header carries an invalid Base64 sentinel value`,
      };
    // Numbers compare as numbers (42.0 is 42), from a plain decimal only.
    const numeric =
      (type === 'integer' || type === 'number') && typeof raw === 'number' && CANONICAL_DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== raw : decoded !== text)
      return {
        header: headerName,
        body: `the ${headerName} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(raw)}`,
      };
  }
  return undefined;
}

/**
 * A client's tools/call whose Mcp-Param-* headers do not match its arguments, as the JSON-RPC
 * error to answer it with (HTTP 400); undefined for any other request, or one that matches.
 * `headers` are Node's: names in lower case, several of one name in an array.
 */
export function callHeaderMismatch(
  body: unknown,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  inputSchemaOf: (tool: string) => unknown,
): { id: string | number; error: { code: number; message: string; data: unknown } } | undefined {
  const request = body as {
    method?: unknown;
    id?: unknown;
    params?: { name?: unknown; arguments?: unknown };
  };
  if (typeof body !== 'object' || body === null || request.method !== 'tools/call') return undefined;
  const { id } = request;
  const name = request.params?.name;
  if ((typeof id !== 'string' && typeof id !== 'number') || typeof name !== 'string') return undefined;
  const declared = paramHeadersOf(inputSchemaOf(name));
  if (declared.length === 0) return undefined;
  const args = request.params?.arguments;
  const mismatch = paramHeaderMismatch(
    declared,
    typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : undefined,
    (name) => {
      const value = headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
  );
  if (!mismatch) return undefined;
  const message = `Bad Request: the request headers and body disagree: ${mismatch.body}`;
  return { id, error: { code: HEADER_MISMATCH, message, data: { mismatch } } };
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    !(Number.isInteger(value) && !Number.isSafeInteger(value))
  )
    return String(value);
  return undefined;
}

/** A value as a header carries it: as it is when it is plain visible ASCII, else Base64 in a sentinel. */
function encode(value: string): string {
  const plain =
    value.length > 0 &&
    value === value.trim() &&
    !(value.startsWith(BASE64_OPEN) && value.endsWith(BASE64_CLOSE)) &&
    /^[\x20-\x7e\t]*$/.test(value);
  return plain ? value : `${BASE64_OPEN}${Buffer.from(value, 'utf8').toString('base64')}${BASE64_CLOSE}`;
}

function decode(value: string): string | undefined {
  if (!(value.startsWith(BASE64_OPEN) && value.endsWith(BASE64_CLOSE))) return value;
  const base64 = value.slice(BASE64_OPEN.length, value.length - BASE64_CLOSE.length);
  if (!CANONICAL_BASE64.test(base64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}
