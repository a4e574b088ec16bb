// A server entry in mcpmux's config fields, read from another client's entry: the fields the
// clients share (command, args, env, url, headers…), each client's names for them
// (serverUrl, httpUrl), and what a field that has no mcpmux equivalent leaves behind (a note,
// never a silent drop). References to variables are written as mcpmux expands them (${VAR}).

/** One server in mcpmux's config file (the fields load-config.ts reads). */
export interface PortableEntry {
  type?: 'stdio' | 'http' | 'sse';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  envFile?: string;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  oauth?: Record<string, unknown> | false;
  tools?: { allow?: string[]; deny?: string[] };
  watch?: { paths: string[] };
  disabled?: boolean;
}

/** Reads one field of a foreign entry into `entry`; returns false when it does not know it. */
export type FieldReader = (value: unknown, entry: PortableEntry, notes: string[]) => boolean;

/** The fields most clients' entries share, as mcpmux names them. */
const SHARED: Record<string, FieldReader> = {
  command: (v, e, n) => setString(v, 'command', (s) => (e.command = s), n),
  args: (v, e, n) => setStrings(v, 'args', (a) => (e.args = a), n),
  // (Merged with what a client's own fields put there: Codex's env_vars, http_headers.)
  env: (v, e, n) => setRecord(v, 'env', (r) => (e.env = { ...e.env, ...r }), n),
  envFile: (v, e, n) => setString(v, 'envFile', (s) => (e.envFile = s), n),
  cwd: (v, e, n) => setString(v, 'cwd', (s) => (e.cwd = s), n),
  url: (v, e, n) => setString(v, 'url', (s) => (e.url = s), n),
  headers: (v, e, n) => setRecord(v, 'headers', (r) => (e.headers = { ...e.headers, ...r }), n),
  disabled: (v, e) => {
    if (v === true) e.disabled = true;
    return true;
  },
  type: (v, e, n) => {
    const type = typeof v === 'string' ? TYPES[v] : undefined;
    if (type) e.type = type;
    else n.push(`type ${JSON.stringify(v)}: not a transport mcpmux knows; left out`);
    return true;
  },
};

/** Transport names as clients write them. */
const TYPES: Record<string, PortableEntry['type']> = {
  stdio: 'stdio',
  local: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  remote: 'http',
  sse: 'sse',
};

/**
 * `fields` read with the shared readers and the client's own (which win); a field neither
 * knows is a note. A url entry's type is left out when it only says "http" (mcpmux tries
 * streamable HTTP, then HTTP+SSE, by itself), as a command entry's "stdio".
 */
export function readEntry(
  fields: Record<string, unknown>,
  own: Record<string, FieldReader> = {},
): { entry: PortableEntry; notes: string[] } {
  const entry: PortableEntry = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const reader = own[key] ?? SHARED[key];
    if (!reader || !reader(value, entry, notes)) notes.push(`${key}: no mcpmux equivalent; not kept`);
  }
  if (entry.type === 'stdio' || (entry.type === 'http' && entry.url !== undefined)) delete entry.type;
  return { entry, notes };
}

/** Every text of an entry a variable may stand in, each with its field's name (`env.KEY`, `args[0]`). */
export function entryTexts(entry: PortableEntry): [field: string, value: string][] {
  const texts: [string, string | undefined][] = [
    ['command', entry.command],
    ...(entry.args ?? []).map((arg, i): [string, string] => [`args[${i}]`, arg]),
    ['cwd', entry.cwd],
    ['url', entry.url],
    ...Object.entries(entry.env ?? {}).map(([k, v]): [string, string] => [`env.${k}`, v]),
    ...Object.entries(entry.headers ?? {}).map(([k, v]): [string, string] => [`headers.${k}`, v]),
  ];
  return texts.filter((t): t is [string, string] => typeof t[1] === 'string');
}

/** Every text of an entry (command, args, env and header values, url, cwd, envFile) passed through `change`. */
export function mapTexts(entry: PortableEntry, change: (text: string) => string): PortableEntry {
  const record = (r: Record<string, string> | undefined) =>
    r && Object.fromEntries(Object.entries(r).map(([k, v]) => [k, change(v)]));
  const out: PortableEntry = { ...entry };
  if (entry.command !== undefined) out.command = change(entry.command);
  if (entry.args) out.args = entry.args.map(change);
  if (entry.env) out.env = record(entry.env)!;
  if (entry.headers) out.headers = record(entry.headers)!;
  if (entry.url !== undefined) out.url = change(entry.url);
  if (entry.cwd !== undefined) out.cwd = change(entry.cwd);
  if (entry.envFile !== undefined) out.envFile = change(entry.envFile);
  return out;
}

export function setString(value: unknown, field: string, set: (s: string) => void, notes: string[]): boolean {
  if (typeof value === 'string') set(value);
  else notes.push(`${field}: not a string; not kept`);
  return true;
}

export function setStrings(
  value: unknown,
  field: string,
  set: (a: string[]) => void,
  notes: string[],
): boolean {
  if (Array.isArray(value) && value.every((x) => typeof x === 'string')) set(value);
  else notes.push(`${field}: not a list of strings; not kept`);
  return true;
}

export function setRecord(
  value: unknown,
  field: string,
  set: (r: Record<string, string>) => void,
  notes: string[],
): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    notes.push(`${field}: not an object; not kept`);
    return true;
  }
  const kept: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string') kept[key] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') kept[key] = String(v);
    else notes.push(`${field}.${key}: not a string; not kept`);
  }
  set(kept);
  return true;
}

/** A tool filter's globs added to an entry's allow or deny list. */
export function addToolFilter(entry: PortableEntry, list: 'allow' | 'deny', globs: readonly string[]): void {
  entry.tools = { ...entry.tools, [list]: [...(entry.tools?.[list] ?? []), ...globs] };
}
