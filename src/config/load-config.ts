// Reads a config file in the formats clients already use: {"mcpServers": {...}} (Claude,
// Cursor) or VS Code's {"servers": {...}}, expands variables, and returns validated specs.
// Every problem in the file is reported at once, with where it is, before anything runs.
import { readFile } from 'node:fs/promises';
import type { ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { specFromWire, wireServerFields, type ServerSpec } from '../child/server-spec.js';
import { QUARANTINE_MODES } from '../trust/quarantine.js';
import { readEnvFile } from './env-file.js';
import { expandVariables, type SecretLookup, type Unset } from './expand-variables.js';
import { KeptSecrets, secretsDir } from '../secrets/kept-secrets.js';
import { meantField } from './field-typos.js';

export interface ConfiguredServer {
  name: string;
  spec: ServerSpec;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

// Entries written for other clients carry fields of their own (autoApprove, timeout, …): they are
// ignored, but for those that say where a server is, what it needs or what it may do: Windsurf's
// serverUrl and Gemini CLI's httpUrl are a url, VS Code's and Cursor's envFile adds to env, and
// Gemini CLI's includeTools and excludeTools filter tools, its camelCase oauth is read as ours.
const entrySchema = z.looseObject({
  ...wireServerFields,
  type: z.enum(['stdio', 'http', 'sse', 'streamable-http', 'streamableHttp']).optional(),
  disabled: z.boolean().optional(),
  serverUrl: z.string().min(1, 'serverUrl must not be empty').optional(),
  httpUrl: z.string().min(1, 'httpUrl must not be empty').optional(),
  envFile: z.string().min(1, 'envFile must not be empty').optional(),
  includeTools: z.array(z.string().min(1)).optional(),
  excludeTools: z.array(z.string().min(1)).optional(),
  // Config only (add_server has no such field: the model never sets how far it is trusted).
  // Gemini CLI's boolean `trust` (skip its own confirmations) means nothing here, and is ignored.
  trust: z
    .union([z.enum(['approved', 'follow', 'held']), z.boolean()], {
      error: 'trust must be "approved", "follow" or "held"',
    })
    .optional(),
});

/** The fields an entry may have that mean something to mcpmux. */
const ENTRY_FIELDS = Object.keys(entrySchema.shape);

/**
 * Gemini CLI's oauth block ({enabled, clientId, clientSecret, scopes, authorizationUrl, …}) as
 * ours: its client and scopes are read, `enabled: false` is "oauth": false, and the endpoints it
 * may name are left to discovery (mcpmux reads them from the server's metadata).
 */
function withOurOAuth(raw: unknown): unknown {
  const entry = raw as { oauth?: Record<string, unknown> } | null;
  const oauth = entry?.oauth;
  if (typeof oauth !== 'object' || oauth === null || !GEMINI_OAUTH_KEYS.some((key) => key in oauth))
    return raw;
  const { enabled, clientId, clientSecret, ...ours } = oauth;
  for (const key of GEMINI_OAUTH_KEYS) delete ours[key];
  if (enabled === false) return { ...entry, oauth: false };
  return {
    ...entry,
    oauth: {
      ...(clientId !== undefined && { client_id: clientId }),
      ...(clientSecret !== undefined && { client_secret: clientSecret }),
      ...ours,
    },
  };
}

const GEMINI_OAUTH_KEYS = [
  'enabled',
  'clientId',
  'clientSecret',
  'authorizationUrl',
  'tokenUrl',
  'registrationUrl',
  'audiences',
  'redirectUri',
  'tokenParamName',
];

/** The url an entry gives, under whichever client's name; more than one that differ is a problem. */
function entryUrl(entry: Entry, where: string, problems: string[]): string | undefined {
  const given = (['url', 'serverUrl', 'httpUrl'] as const).filter((field) => entry[field] !== undefined);
  if (new Set(given.map((field) => entry[field])).size > 1)
    problems.push(`${where}: ${given.join(' and ')} name different servers; give one url`);
  return given.length === 0 ? undefined : entry[given[0]!];
}

const fileSchema = z.looseObject({
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  servers: z.record(z.string(), z.unknown()).optional(),
});

/** mcpmux's own settings in its config file: `"mcpmux": {"expose": "search"}` (flags win over them). */
const settingsSchema = z
  .object({
    expose: z.enum(['all', 'search', 'code', 'agent']).optional(),
    /** Which servers start held until a person approves their text (--quarantine). */
    quarantine: z.enum(QUARANTINE_MODES).optional(),
    /** The MCP registries to use instead of the official one; [] turns them off. */
    registries: z
      .array(
        z.string().refine((url) => /^https?:\/\//.test(url) && URL.canParse(url), {
          error: 'give a registry\'s base URL, e.g. "https://registry.modelcontextprotocol.io"',
        }),
      )
      .optional(),
  })
  .strict();

export type ConfigSettings = z.infer<typeof settingsSchema>;

export async function loadConfigSettings(path: string): Promise<ConfigSettings> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file '${path}': ${(error as Error).message}`);
  }
  const json = await readConfigJson(text, path);
  const block = (json as { mcpmux?: unknown } | null)?.mcpmux;
  if (block === undefined) return {};
  const settings = settingsSchema.safeParse(block);
  if (!settings.success) {
    throw new ConfigError(
      `config file '${path}': ${settings.error.issues.map((i) => `mcpmux${i.path.length ? '.' + i.path.join('.') : ''}: ${i.message}`).join('; ')}`,
    );
  }
  return settings.data;
}

export async function loadConfigFile(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
  validateName: (name: string) => string | undefined,
): Promise<ConfiguredServer[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      `cannot read config file '${path}': ${code === 'ENOENT' ? 'no such file' : String(error)}`,
    );
  }
  return parseConfig(await readConfigJson(text, path), path, env, validateName);
}

const BYTE_ORDER_MARK = 0xfeff;

/**
 * A config file's text as JSON. Files are written by hand and by other clients' tools: a
 * byte-order mark (Windows editors write one) is skipped, and VS Code's mcp.json is JSON with
 * comments and trailing commas, read with VS Code's own parser (jsonc-parser), which is
 * loaded only for a file JSON.parse refuses.
 */
export async function readConfigJson(text: string, source: string): Promise<unknown> {
  const body = text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    const { parse, printParseErrorCode } = await import('jsonc-parser');
    const errors: ParseError[] = [];
    const json: unknown = parse(body, errors, { allowTrailingComma: true, disallowComments: false });
    const first = errors[0];
    if (!first) return json;
    const { line, column } = lineAndColumn(body, first.offset);
    const code = printParseErrorCode(first.error);
    throw new ConfigError(
      `config file '${source}' is not valid JSON (nor JSON with comments) at line ${line}, column ${column}: ${PARSE_ERRORS[code] ?? code}`,
    );
  }
}

/** jsonc-parser's errors in words (the rest by their names). */
const PARSE_ERRORS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'a character that cannot be here',
  PropertyNameExpected: 'a property name in double quotes is expected',
  ValueExpected: 'a value is expected',
  ColonExpected: 'a colon is expected',
  CommaExpected: 'a comma is missing',
  CloseBraceExpected: 'a closing } is missing',
  CloseBracketExpected: 'a closing ] is missing',
  EndOfFileExpected: 'there is more after the end of the JSON',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfComment: 'a comment is not closed',
};

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** A config file's servers, from its JSON (readConfigJson). */
export function parseConfig(
  json: unknown,
  source: string,
  env: Readonly<Record<string, string | undefined>>,
  validateName: (name: string) => string | undefined,
): ConfiguredServer[] {
  const file = fileSchema.safeParse(json);
  if (!file.success || (file.data.mcpServers === undefined && file.data.servers === undefined)) {
    throw new ConfigError(
      `config file '${source}' must be an object with "mcpServers" (or VS Code's "servers"), e.g. {"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}`,
    );
  }
  const key = file.data.mcpServers !== undefined ? 'mcpServers' : 'servers';
  const entries = Object.entries(file.data[key] ?? {});
  const problems: string[] = [];
  const servers: ConfiguredServer[] = [];
  const secret = keptSecret(env);
  for (const [name, raw] of entries) {
    const where = `${key}.${name}`;
    const nameProblem = validateName(name);
    if (nameProblem) problems.push(`${where}: ${nameProblem}`);
    for (const field of typeof raw === 'object' && raw !== null ? Object.keys(raw) : []) {
      const meant = meantField(field, ENTRY_FIELDS);
      if (meant) problems.push(`${where}.${field}: not a field mcpmux knows; did you mean "${meant}"?`);
    }
    const entry = entrySchema.safeParse(withOurOAuth(raw));
    if (!entry.success) {
      for (const issue of entry.error.issues)
        problems.push(`${[where, ...issue.path].join('.')}: ${issue.message}`);
      continue;
    }
    if (entry.data.disabled) continue;
    const unset: Unset[] = [];
    const expanded = expandEntry(entry.data, { env, secret }, where, problems, unset);
    const spec = specFromWire(expanded);
    if (unset.length > 0) {
      // It waits for its values; the others start (an entry that cannot be read still fails the config).
      const unconfigured = {
        missing: [...new Set(unset.map((u) => u.reference))],
        problems: unset.map((u) => u.problem),
      };
      if (!nameProblem)
        servers.push({
          name,
          spec: {
            ...withTrust(typeof spec === 'string' ? asWritten(entry.data) : spec, entry.data.trust),
            unconfigured,
          },
        });
    } else if (typeof spec === 'string') problems.push(`${where}: ${spec}`);
    else if (!nameProblem) servers.push({ name, spec: withTrust(spec, entry.data.trust) });
  }
  if (problems.length > 0)
    throw new ConfigError(`config file '${source}' has problems:\n  ${problems.join('\n  ')}`);
  return servers;
}

type Entry = z.infer<typeof entrySchema>;

const withTrust = (spec: ServerSpec, trust: Entry['trust']): ServerSpec =>
  trust === undefined || typeof trust === 'boolean' ? spec : { ...spec, trust };

/** The oauth fields where ${VAR} is read from mcpmux's environment. */
const OAUTH_EXPANDED = ['client_id', 'client_secret', 'private_key', 'assertion_file'] as const;
const IDP_EXPANDED = ['issuer', 'token_endpoint', 'client_id', 'client_secret', 'id_token_file'] as const;

/** `record` with ${VAR} expanded in the named fields it has. */
function expandFields<T extends Record<string, unknown>>(
  record: T,
  fields: readonly (keyof T & string)[],
  where: string,
  expand: (value: string, field: string) => string,
): T {
  const expanded = fields.flatMap((field) => {
    const value = record[field];
    return typeof value === 'string' ? [[field, expand(value, `${where}.${field}`)]] : [];
  });
  return { ...record, ...Object.fromEntries(expanded) };
}

function expandEntry(
  entry: Entry,
  { env, secret }: { env: Readonly<Record<string, string | undefined>>; secret: SecretLookup },
  where: string,
  problems: string[],
  unset: Unset[],
) {
  const expand = (value: string, field: string) => {
    const result = expandVariables(value, env, secret);
    for (const p of result.problems) problems.push(`${where}.${field}: ${p}`);
    for (const u of result.unset) unset.push({ reference: u.reference, problem: `${field}: ${u.problem}` });
    return result.value;
  };
  const expandRecord = (record: Record<string, string> | undefined, field: string) =>
    record && Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v, `${field}.${k}`)]));
  const url = entryUrl(entry, where, problems);
  return {
    command: entry.command === undefined ? undefined : expand(entry.command, 'command'),
    args: entry.args?.map((a, i) => expand(a, `args[${i}]`)),
    env: withEnvFile(expandRecord(entry.env, 'env'), entry, where, problems, expand),
    cwd: entry.cwd === undefined ? undefined : expand(entry.cwd, 'cwd'),
    url: url === undefined ? undefined : expand(url, 'url'),
    headers: expandRecord(entry.headers, 'headers'),
    oauth:
      entry.oauth === false
        ? (false as const)
        : entry.oauth && {
            ...expandFields(entry.oauth, OAUTH_EXPANDED, 'oauth', expand),
            ...(entry.oauth.idp && { idp: expandFields(entry.oauth.idp, IDP_EXPANDED, 'oauth.idp', expand) }),
          },
    tools: toolFilter(entry, where, problems),
    watch: entry.watch,
    prefix: entry.prefix,
    era: entry.era,
    restart: entry.restart,
    sandbox: entry.sandbox,
  };
}

/**
 * The spec of a waiting server whose values, unexpanded, do not make one (its url is a
 * variable): its command or URL as written, never started.
 */
function asWritten(entry: Entry): ServerSpec {
  const url = entry.url ?? entry.serverUrl ?? entry.httpUrl;
  if (url !== undefined) return { transport: 'http', url, headers: {} };
  return { transport: 'stdio', command: entry.command ?? '', args: entry.args ?? [], env: {} };
}

/**
 * Kept secrets, read from the folder `env` names (XDG_STATE_HOME) once per load of the config,
 * and only when it refers to one.
 */
function keptSecret(env: Readonly<Record<string, string | undefined>>): SecretLookup {
  let store: KeptSecrets | undefined;
  return (entry, name) => (store ??= new KeptSecrets(secretsDir(env))).find(entry, name);
}

/** The entry's tool filter: mcpmux's own, or Gemini CLI's includeTools and excludeTools (not both). */
function toolFilter(entry: Entry, where: string, problems: string[]): Entry['tools'] {
  const { includeTools, excludeTools } = entry;
  if (includeTools === undefined && excludeTools === undefined) return entry.tools;
  if (entry.tools !== undefined) {
    problems.push(`${where}: give tools or Gemini CLI's includeTools/excludeTools, not both`);
    return entry.tools;
  }
  return {
    ...(includeTools !== undefined && { allow: includeTools }),
    ...(excludeTools !== undefined && { deny: excludeTools }),
  };
}

/** An entry's env with its envFile's variables under it (env wins, as in VS Code). */
function withEnvFile(
  env: Record<string, string> | undefined,
  entry: Entry,
  where: string,
  problems: string[],
  expand: (value: string, field: string) => string,
): Record<string, string> | undefined {
  if (entry.envFile === undefined) return env;
  if (entry.command === undefined) {
    problems.push(`${where}: envFile applies to a command, not to a url`);
    return env;
  }
  const read = readEnvFile(expand(entry.envFile, 'envFile'));
  if (typeof read === 'string') {
    problems.push(`${where}: ${read}`);
    return env;
  }
  return { ...read, ...env };
}
