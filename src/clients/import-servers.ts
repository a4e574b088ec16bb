// mcpmux import: the MCP servers a person already configured in other clients, written into
// one mcpmux config. Each client's files are read in its dialect; a server two clients name
// alike is merged when both say the same and reported when they differ (the first client's
// kept); secrets become ${VAR} references unless kept on purpose; what has no mcpmux
// equivalent is reported. An existing config keeps its entries, comments and layout. A
// project's shared files (.mcp.json, .cursor/mcp.json, .vscode/mcp.json) came with a
// repository, not from the person: they are read only when the person names the project,
// a server they declined in Claude Code is left out, and each is shown with its command.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLineText } from '../common/command-line-text.js';
import { SERVER_NAME_PATTERN } from '../child/server-spec.js';
import {
  ClientFileError,
  MCPMUX_ENTRY,
  type ClientDialect,
  type ClientFile,
  type ClientPlaces,
  type ReadServer,
} from './client-dialect.js';
import { objectAt, parseJsonc, setMember } from './jsonc-edit.js';
import type { PortableEntry } from './portable-entry.js';
import {
  SecretNames,
  referencedVariables,
  secretLookingArgs,
  type SecretVariable,
} from './secret-references.js';
import { writeWhole } from './write-whole.js';
import { xdgConfigHome } from './dialects/json-dialect.js';

export interface ImportOptions {
  places: ClientPlaces;
  clients: readonly ClientDialect[];
  /** The mcpmux config to write or merge into. */
  out: string;
  dryRun: boolean;
  /** Copy secret values as they are instead of ${VAR} references. */
  keepSecrets: boolean;
  /** The person named the project (--project DIR): its shared files are read. Otherwise they are only listed. */
  trustProject: boolean;
}

/** Where one server came from: the client, and its file's path and scope. */
export interface Origin {
  client: string;
  path: string;
  scope: string;
}

export interface ImportReport {
  /** Each client file found: how many servers it gave, or why it could not be read. */
  files: (Origin & { servers: number; error?: string })[];
  /** Servers written into the config, with where each came from, and a project's with what it runs. */
  added: (Origin & { name: string; runs?: string })[];
  /** A project's shared files not read, as the project was not named. */
  untrusted: Origin[];
  /** A project's servers left out: declined in the client (with where that is recorded). */
  declined: (Origin & { name: string; why: string })[];
  /** Servers the config has already, as imported. */
  present: string[];
  /** A server found in more than one client file, the same in each. */
  merged: { name: string; origins: Origin[] }[];
  /** A server named alike that differs: which was kept, which was not, and in what. */
  conflicts: { name: string; kept: string; other: Origin; differ: string[] }[];
  /** Names that are not server names for mcpmux, and the name each got. */
  renamed: { from: string; to: string; origin: Origin }[];
  /** What did not fit, per server. */
  notes: { name: string; origin: Origin; note: string }[];
  /** Variables to set before mcpmux starts (secrets written as references). */
  variables: SecretVariable[];
  /** The config's text, as written (or as it would be, with --dry-run). */
  text: string;
  written: boolean;
}

/** $XDG_CONFIG_HOME/mcpmux/servers.json (~/.config/mcpmux/servers.json). */
export function defaultConfigPath(places: ClientPlaces): string {
  return join(xdgConfigHome(places), 'mcpmux', 'servers.json');
}

/** A server as the import keeps it: its entry, where it came from first, and where else. */
interface FoundServer {
  entry: PortableEntry;
  origin: Origin;
  origins: Origin[];
  variables: SecretVariable[];
  /** A project's server: whether the person approved it in its client. */
  approval?: string;
}

/** What reading the clients' files builds up: the report, the servers found, the secrets' names. */
interface Gathering {
  options: ImportOptions;
  report: ImportReport;
  found: Map<string, FoundServer>;
  secrets: SecretNames;
}

export function importServers(options: ImportOptions): ImportReport {
  const report: ImportReport = {
    files: [],
    added: [],
    untrusted: [],
    declined: [],
    present: [],
    merged: [],
    conflicts: [],
    renamed: [],
    notes: [],
    variables: [],
    text: '',
    written: false,
  };
  const gathering: Gathering = { options, report, found: new Map(), secrets: new SecretNames() };
  // A user's file may also be a project's (the project is the home folder): read once, as the user's.
  const seenPaths = new Set<string>();
  for (const dialect of options.clients) {
    for (const file of dialect.files(options.places)) {
      if (!existsSync(file.path)) continue;
      const origin: Origin = { client: dialect.label, path: file.path, scope: file.scope };
      if (file.scope === 'project' && seenPaths.has(file.path)) continue;
      seenPaths.add(file.path);
      if (file.scope === 'project' && !options.trustProject) report.untrusted.push(origin);
      else importFile(gathering, dialect, file, origin);
    }
  }
  report.merged = [...gathering.found]
    .filter(([, s]) => s.origins.length > 1)
    .map(([name, s]) => ({ name, origins: s.origins }));
  mergeIntoConfig(options, gathering.found, report);
  return report;
}

/** One client file's servers, each kept, merged with one found before, or reported. */
function importFile(gathering: Gathering, dialect: ClientDialect, file: ClientFile, origin: Origin): void {
  const { options, report } = gathering;
  const choices = file.scope === 'project' ? dialect.projectChoices?.(options.places) : undefined;
  let servers;
  try {
    servers = dialect.read(readFileSync(file.path, 'utf8'), file, options.places);
  } catch (error) {
    const why = error instanceof ClientFileError ? error.message : (error as Error).message;
    report.files.push({ ...origin, servers: 0, error: why });
    return;
  }
  if (servers.length === 0) return;
  report.files.push({ ...origin, servers: servers.length });
  for (const server of servers) {
    if (server.name === MCPMUX_ENTRY) continue; // mcpmux itself, installed there before
    if (choices?.disabled.includes(server.name)) {
      const why = `declined in ${dialect.label} (${choices.from.join(', ')})`;
      report.declined.push({ ...origin, name: server.name, why });
      continue;
    }
    const approval =
      file.scope !== 'project'
        ? undefined
        : choices?.all || choices?.enabled.includes(server.name)
          ? `approved in ${dialect.label}`
          : `never approved in ${dialect.label}: read it before you use it`;
    importServer(gathering, server, origin, approval);
  }
}

function importServer(
  gathering: Gathering,
  server: ReadServer,
  origin: Origin,
  approval: string | undefined,
): void {
  const { options, report, found, secrets } = gathering;
  const name = serverName(server.name);
  if (name !== server.name) report.renamed.push({ from: server.name, to: name, origin });
  for (const note of server.notes) report.notes.push({ name, origin, note });
  for (const i of secretLookingArgs(server.entry.args ?? []))
    report.notes.push({
      name,
      origin,
      note: `args[${i}] looks like a secret on the command line; kept as written: move it to env if the server reads one`,
    });
  if (Object.keys(server.entry).length === 0) return;
  const referenced = options.keepSecrets
    ? { entry: server.entry, variables: [] }
    : secrets.reference(name, server.entry);
  const { entry } = referenced;
  // Every variable it needs set, whether a secret became it or the client's entry named it already.
  const named = new Set(referenced.variables.map((v) => v.variable));
  const variables = [
    ...referenced.variables,
    ...referencedVariables(name, entry).filter((v) => !named.has(v.variable) && !!named.add(v.variable)),
  ];
  const seen = found.get(name);
  if (!seen) found.set(name, { entry, origin, origins: [origin], variables, ...(approval && { approval }) });
  else if (sameEntry(seen.entry, entry)) seen.origins.push(origin);
  else
    report.conflicts.push({
      name,
      kept: `${seen.origin.client} (${seen.origin.path})`,
      other: origin,
      differ: differingFields(seen.entry, entry),
    });
}

/**
 * The servers found, added to the config where it has none of the name (its other entries,
 * comments and layout kept); written unless --dry-run, once it reads back whole.
 */
function mergeIntoConfig(
  options: ImportOptions,
  found: Map<string, FoundServer>,
  report: ImportReport,
): void {
  const before = existsSync(options.out) ? readFileSync(options.out, 'utf8') : '';
  const json = before.trim() === '' ? {} : parseJsonc(before, options.out);
  // mcpmux reads VS Code's "servers" too: a config written that way keeps its key.
  const key =
    objectAt(json, ['mcpServers']) === undefined && objectAt(json, ['servers']) ? 'servers' : 'mcpServers';
  const existing = objectAt(json, [key]) ?? {};
  let text = before;
  for (const [name, { entry, origin, variables, approval }] of found) {
    const there = existing[name];
    if (there === undefined) {
      text = setMember(text, [key], name, entry);
      const runs = approval !== undefined && { runs: `${whatRuns(entry)} (${approval})` };
      report.added.push({ name, ...origin, ...runs });
      report.variables.push(...variables);
    } else if (sameEntry(there as PortableEntry, entry)) report.present.push(name);
    else
      report.conflicts.push({
        name,
        kept: `your mcpmux config (${options.out})`,
        other: origin,
        differ: differingFields(there as PortableEntry, entry),
      });
  }
  report.text = text;
  if (options.dryRun || text === before) return;
  // Parsed back before it replaces anything: every server there, as meant.
  const written = objectAt(parseJsonc(text, options.out), [key]) ?? {};
  const missing = [...found.keys()].filter((name) => !(name in written));
  if (missing.length > 0)
    throw new ClientFileError(
      `${options.out}: the servers ${missing.join(', ')} did not read back; nothing was written`,
    );
  writeWhole(options.out, text);
  report.written = true;
}

/** An entry's command line, or its URL: what a project's server would run, for the person to read. */
function whatRuns(entry: PortableEntry): string {
  if (entry.url !== undefined) return entry.url;
  return commandLineText([entry.command ?? '', ...(entry.args ?? [])]);
}

/** A name mcpmux takes as a server's: other characters become "-", "__" becomes "_", no "_" at the end. */
export function serverName(name: string): string {
  const cleaned = name
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^[^a-zA-Z0-9]+/, '')
    .replace(/[_-]+$/, '');
  return SERVER_NAME_PATTERN.test(cleaned) ? cleaned : 'server';
}

function sameEntry(a: PortableEntry, b: PortableEntry): boolean {
  return stable(a) === stable(b);
}

function differingFields(a: PortableEntry, b: PortableEntry): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter(
    (k) => stable((a as Record<string, unknown>)[k]) !== stable((b as Record<string, unknown>)[k]),
  );
}

function stable(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => x.localeCompare(y)))
      : v,
  );
}
