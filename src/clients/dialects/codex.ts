// Codex: config.toml in $CODEX_HOME (~/.codex) and a project's .codex/config.toml, one
// [mcp_servers.<name>] table per server: command/args/env/cwd, or url with
// bearer_token_env_var, http_headers and env_http_headers; env_vars passes variables
// through; enabled, enabled_tools and disabled_tools. It names a server's tools
// <server>__<tool> in 64. Edits are made on the text, table by table, so comments and layout
// stay; the result is parsed back before it is written.
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import {
  ClientFileError,
  MCPMUX_ENTRY,
  type ClientDialect,
  type ClientFile,
  type McpmuxLaunch,
  type ReadServer,
} from '../client-dialect.js';
import { commandLaunch } from './json-dialect.js';
import { addToolFilter, readEntry, setRecord, setStrings, type FieldReader } from '../portable-entry.js';

const reference = (name: string) => `\${${name}}`;

const OWN: Record<string, FieldReader> = {
  bearer_token_env_var: (value, entry, notes) => {
    if (typeof value !== 'string') return false;
    entry.headers = { ...entry.headers, Authorization: `Bearer ${reference(value)}` };
    notes.push(`bearer_token_env_var: the Authorization header reads \${${value}}`);
    return true;
  },
  http_headers: (v, e, n) => setRecord(v, 'http_headers', (r) => (e.headers = { ...e.headers, ...r }), n),
  env_http_headers: (v, e, n) =>
    setRecord(
      v,
      'env_http_headers',
      (r) =>
        (e.headers = {
          ...e.headers,
          ...Object.fromEntries(Object.entries(r).map(([header, name]) => [header, reference(name)])),
        }),
      n,
    ),
  env_vars: (v, e, n) =>
    setStrings(
      v,
      'env_vars',
      (names) => (e.env = { ...Object.fromEntries(names.map((name) => [name, reference(name)])), ...e.env }),
      n,
    ),
  enabled: (v, e) => {
    if (v === false) e.disabled = true;
    return true;
  },
  enabled_tools: (v, e, n) => setStrings(v, 'enabled_tools', (tools) => addToolFilter(e, 'allow', tools), n),
  disabled_tools: (v, e, n) => setStrings(v, 'disabled_tools', (tools) => addToolFilter(e, 'deny', tools), n),
};

function servers(text: string, file: ClientFile): Record<string, unknown> {
  let toml: Record<string, unknown>;
  try {
    toml = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new ClientFileError(`${file.path} is not valid TOML: ${(error as Error).message.split('\n')[0]}`);
  }
  const table = toml['mcp_servers'];
  return typeof table === 'object' && table !== null ? (table as Record<string, unknown>) : {};
}

/** A table header's key for a server: bare when it can be, else quoted. */
function tableKey(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
}

/**
 * `text` without the [mcp_servers.<name>] table and its sub-tables ([mcp_servers.<name>.env]);
 * comment lines right before the next table stay with it. A server written any other way
 * (an inline table, dotted keys) is not taken out by guesswork: that is an error.
 */
function withoutTable(text: string, name: string, file: ClientFile): string {
  const lines = text.split('\n');
  const key = tableKey(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const own = new RegExp(
    `^\\s*\\[\\s*mcp_servers\\s*\\.\\s*(${key}|"${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}")\\s*(\\.[^\\]]*)?\\]\\s*(#.*)?$`,
  );
  const header = /^\s*\[/;
  const kept: string[] = [];
  let dropping = false;
  let pending: string[] = [];
  for (const line of lines) {
    if (header.test(line)) {
      dropping = own.test(line);
      if (!dropping) kept.push(...pending);
      pending = [];
      if (!dropping) kept.push(line);
      continue;
    }
    if (!dropping) kept.push(line);
    // Comments and blank lines after a dropped table may belong to the next one.
    else if (/^\s*(#.*)?$/.test(line)) pending.push(line);
    else pending = [];
  }
  kept.push(...pending);
  const out = kept.join('\n');
  if (name in servers(out, file))
    throw new ClientFileError(
      `${file.path}: the server '${name}' is not written as an [mcp_servers.${tableKey(name)}] table; remove it by hand`,
    );
  return out;
}

export const codex: ClientDialect = {
  id: 'codex',
  label: 'Codex',
  maxToolName: 56,
  files: (places) => [
    {
      path: join(places.env['CODEX_HOME'] || join(places.home, '.codex'), 'config.toml'),
      scope: 'user',
      at: ['mcp_servers'],
    },
    { path: join(places.project, '.codex', 'config.toml'), scope: 'project', at: ['mcp_servers'] },
  ],
  read(text, file): ReadServer[] {
    return Object.entries(servers(text, file)).map(([name, fields]) => {
      if (typeof fields !== 'object' || fields === null)
        return { name, entry: {}, notes: ['not a table: nothing to import'] };
      const { entry, notes } = readEntry(fields as Record<string, unknown>, OWN);
      return { name, entry, notes };
    });
  },
  names: (text, file) => Object.keys(servers(text, file)),
  edit(text, file, { add, remove }) {
    let out = text;
    for (const name of [...remove, MCPMUX_ENTRY])
      if (name in servers(out, file)) out = withoutTable(out, name, file);
    const env = Object.entries(add.env ?? {});
    const envTable =
      env.length === 0
        ? ''
        : `\n[mcp_servers.${MCPMUX_ENTRY}.env]\n${env.map(([k, v]) => `${tableKey(k)} = ${JSON.stringify(v)}`).join('\n')}\n`;
    const body = `[mcp_servers.${MCPMUX_ENTRY}]\ncommand = ${JSON.stringify(add.command)}\nargs = [${add.args.map((a) => JSON.stringify(a)).join(', ')}]\n${envTable}`;
    const trimmed = out.replace(/\s*$/, '');
    return trimmed === '' ? body : `${trimmed}\n\n${body}`;
  },
  launchIn(text, file): McpmuxLaunch | undefined {
    const fields = servers(text, file)[MCPMUX_ENTRY];
    return typeof fields === 'object' && fields !== null
      ? commandLaunch(fields as Record<string, unknown>)
      : undefined;
  },
};
