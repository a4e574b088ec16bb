// A client whose config is a JSON(C) file with its servers under one key ("mcpServers",
// "servers", "mcp"): reading them with the client's own field names and references, and
// editing the file in place (jsonc-edit.ts). Each such client is this with its differences.
import { join } from 'node:path';
import {
  ClientFileError,
  MCPMUX_ENTRY,
  type ClientDialect,
  type ClientFile,
  type ClientId,
  type ClientPlaces,
  type McpmuxLaunch,
  type ReadServer,
} from '../client-dialect.js';
import { objectAt, parseJsonc, removeMember, setMember } from '../jsonc-edit.js';
import { mapTexts, readEntry, type FieldReader } from '../portable-entry.js';

export interface JsonDialectOptions {
  id: ClientId;
  label: string;
  maxToolName?: number;
  files(places: ClientPlaces): ClientFile[];
  /** The client's own fields (and its names for shared ones), read before the shared ones. */
  own?: Record<string, FieldReader>;
  /**
   * A text of an entry with the client's references written as mcpmux's; notes what cannot be.
   * `json` is the whole file (VS Code's inputs are beside its servers).
   */
  references?: (
    text: string,
    file: ClientFile,
    places: ClientPlaces,
    notes: string[],
    json: unknown,
  ) => string;
  /** mcpmux's entry in this client's fields. */
  launchEntry(launch: McpmuxLaunch): Record<string, unknown>;
  /** The launch an entry of this client holds. */
  launchOf(fields: Record<string, unknown>): McpmuxLaunch | undefined;
  /** What the person told the client about a project's shared servers. */
  projectChoices?: ClientDialect['projectChoices'];
}

export function jsonDialect(options: JsonDialectOptions): ClientDialect {
  const container = (text: string, file: ClientFile) => {
    const json = parseJsonc(text, file.path);
    if (json !== undefined && (typeof json !== 'object' || json === null || Array.isArray(json)))
      throw new ClientFileError(`${file.path} is not a JSON object`);
    return { json, servers: objectAt(json, file.at) ?? {} };
  };
  return {
    id: options.id,
    label: options.label,
    ...(options.maxToolName !== undefined && { maxToolName: options.maxToolName }),
    files: options.files,
    ...(options.projectChoices && { projectChoices: options.projectChoices }),
    read(text, file, places): ReadServer[] {
      const { json, servers } = container(text, file);
      return Object.entries(servers).map(([name, fields]) => {
        if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
          return { name, entry: {}, notes: ['not an object: nothing to import'] };
        const { entry, notes } = readEntry(fields as Record<string, unknown>, options.own);
        const referenced = options.references
          ? mapTexts(entry, (value) => options.references!(value, file, places, notes, json))
          : entry;
        return { name, entry: referenced, notes };
      });
    },
    names: (text, file) => Object.keys(container(text, file).servers),
    edit(text, file, { add, remove }) {
      let out = text;
      for (const name of remove) out = removeMember(out, file.at, name);
      return setMember(out, file.at, MCPMUX_ENTRY, options.launchEntry(add));
    },
    launchIn(text, file) {
      const fields = container(text, file).servers[MCPMUX_ENTRY];
      return typeof fields === 'object' && fields !== null
        ? options.launchOf(fields as Record<string, unknown>)
        : undefined;
    },
  };
}

/** The launch of an entry written as {command, args, env}. */
export function commandLaunch(fields: Record<string, unknown>): McpmuxLaunch | undefined {
  const { command, args } = fields;
  if (typeof command !== 'string') return undefined;
  const env = stringRecord(fields['env']);
  return { command, args: Array.isArray(args) ? args.map(String) : [], ...(env && { env }) };
}

/** An entry's {NAME: value} field, its string members only; undefined when it has none. */
export function stringRecord(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const strings = Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string');
  return strings.length > 0 ? Object.fromEntries(strings) : undefined;
}

/** An entry written as {command, args}, with env when the launch sets variables. */
export function commandEntry({ command, args, env }: McpmuxLaunch): Record<string, unknown> {
  return { command, args, ...(env && Object.keys(env).length > 0 && { env }) };
}

/** A user's config folder: %APPDATA% on Windows, ~/Library/Application Support on macOS, else $XDG_CONFIG_HOME. */
export function appConfigDir(places: ClientPlaces): string {
  if (places.platform === 'win32') return places.env['APPDATA'] || join(places.home, 'AppData', 'Roaming');
  if (places.platform === 'darwin') return join(places.home, 'Library', 'Application Support');
  return xdgConfigHome(places);
}

export function xdgConfigHome(places: ClientPlaces): string {
  return places.env['XDG_CONFIG_HOME'] || join(places.home, '.config');
}

/**
 * The references VS Code and Cursor expand: ${userHome}, ${workspaceFolder} (the project of a
 * project's file; mcpmux's working directory for the user's, as noted), ${env:VAR} (which
 * mcpmux reads as it is), ${pathSeparator}.
 */
export function editorReferences(
  text: string,
  file: ClientFile,
  places: ClientPlaces,
  notes: string[],
): string {
  return text.replace(
    /\$\{(userHome|workspaceFolder|workspaceRoot|workspaceFolderBasename|pathSeparator|\/)\}/g,
    (_, name: string) => {
      if (name === 'userHome') return places.home;
      if (name === 'pathSeparator' || name === '/') return places.platform === 'win32' ? '\\' : '/';
      if (file.scope === 'project')
        return name === 'workspaceFolderBasename'
          ? (places.project.split(/[\\/]/).pop() ?? '')
          : places.project;
      notes.push(`\${${name}} in the user's file: written as \${PWD:-.}, the folder mcpmux starts in`);
      return '${PWD:-.}';
    },
  );
}
