// Reads a config file in the formats clients already use: {"mcpServers": {...}} (Claude,
// Cursor) or VS Code's {"servers": {...}}, expands variables, and returns validated specs.
// Every problem in the file is reported at once, with where it is, before anything runs.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { specFromWire, wireServerFields, type ServerSpec } from '../server-spec.js';
import { expandVariables } from './expand-variables.js';

export interface ConfiguredServer {
  name: string;
  spec: ServerSpec;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

// Entries written for other clients carry fields of their own (autoApprove, timeout, …): they are ignored.
const entrySchema = z.looseObject({
  ...wireServerFields,
  type: z.enum(['stdio', 'http', 'sse', 'streamable-http', 'streamableHttp']).optional(),
  disabled: z.boolean().optional(),
});

const fileSchema = z.looseObject({
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  servers: z.record(z.string(), z.unknown()).optional(),
});

/** mcpmux's own settings in its config file: `"mcpmux": {"expose": "search"}` (flags win over them). */
const settingsSchema = z.object({ expose: z.enum(['all', 'search', 'code', 'agent']).optional() }).strict();

export type ConfigSettings = z.infer<typeof settingsSchema>;

export async function loadConfigSettings(path: string): Promise<ConfigSettings> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read config file '${path}': ${(error as Error).message}`);
  }
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
  return parseConfig(text, path, env, validateName);
}

export function parseConfig(
  text: string,
  source: string,
  env: Readonly<Record<string, string | undefined>>,
  validateName: (name: string) => string | undefined,
): ConfiguredServer[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file '${source}' is not valid JSON: ${(error as Error).message}`);
  }
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
  for (const [name, raw] of entries) {
    const where = `${key}.${name}`;
    const nameProblem = validateName(name);
    if (nameProblem) problems.push(`${where}: ${nameProblem}`);
    const entry = entrySchema.safeParse(raw);
    if (!entry.success) {
      for (const issue of entry.error.issues)
        problems.push(`${[where, ...issue.path].join('.')}: ${issue.message}`);
      continue;
    }
    if (entry.data.disabled) continue;
    const expanded = expandEntry(entry.data, env, where, problems);
    const spec = specFromWire(expanded);
    if (typeof spec === 'string') problems.push(`${where}: ${spec}`);
    else if (!nameProblem) servers.push({ name, spec });
  }
  if (problems.length > 0)
    throw new ConfigError(`config file '${source}' has problems:\n  ${problems.join('\n  ')}`);
  return servers;
}

type Entry = z.infer<typeof entrySchema>;

function expandEntry(
  entry: Entry,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
  problems: string[],
) {
  const expand = (value: string, field: string) => {
    const result = expandVariables(value, env);
    for (const p of result.problems) problems.push(`${where}.${field}: ${p}`);
    return result.value;
  };
  const expandRecord = (record: Record<string, string> | undefined, field: string) =>
    record && Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v, `${field}.${k}`)]));
  return {
    command: entry.command === undefined ? undefined : expand(entry.command, 'command'),
    args: entry.args?.map((a, i) => expand(a, `args[${i}]`)),
    env: expandRecord(entry.env, 'env'),
    cwd: entry.cwd === undefined ? undefined : expand(entry.cwd, 'cwd'),
    url: entry.url === undefined ? undefined : expand(entry.url, 'url'),
    headers: expandRecord(entry.headers, 'headers'),
    oauth: entry.oauth && {
      ...entry.oauth,
      ...(entry.oauth.client_id !== undefined && {
        client_id: expand(entry.oauth.client_id, 'oauth.client_id'),
      }),
      ...(entry.oauth.client_secret !== undefined && {
        client_secret: expand(entry.oauth.client_secret, 'oauth.client_secret'),
      }),
    },
    tools: entry.tools,
    watch: entry.watch,
    prefix: entry.prefix,
    era: entry.era,
    restart: entry.restart,
  };
}
