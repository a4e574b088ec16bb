// What mcpmux knows of another MCP client's config files: where they are on each platform,
// how to read the servers out of one, and how to change one (add mcpmux's entry, remove the
// entries mcpmux now serves) keeping the rest of it as it was. One module per client
// implements this; import-servers.ts and install-client.ts use them.
import type { PortableEntry } from './portable-entry.js';

export const CLIENT_IDS = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'codex',
  'gemini',
  'opencode',
] as const;

export type ClientId = (typeof CLIENT_IDS)[number];

/** Where to look: the person's home and platform, the environment, and the project folder. */
export interface ClientPlaces {
  home: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** The project whose project-scope files are read (the working directory by default). */
  project: string;
}

export interface ClientFile {
  path: string;
  /**
   * user: the person's own; project: the project's, shared with whoever opens it; local: the
   * person's own for one project (Claude Code's, kept in its user file).
   */
  scope: 'user' | 'project' | 'local';
  /** Where in the file the servers are (Claude Code keeps a project's local servers inside ~/.claude.json). */
  at: readonly string[];
}

/** One server as a client's file gives it, in that client's own fields. */
export interface ForeignServer {
  name: string;
  fields: Record<string, unknown>;
}

/** A server read into mcpmux's config fields, with what did not fit said. */
export interface ReadServer {
  name: string;
  entry: PortableEntry;
  /** What has no mcpmux equivalent, or was changed on the way ("trust: not kept"). */
  notes: string[];
}

/** mcpmux as a client's entry runs it: program, arguments, and the variables the entry sets. */
export interface McpmuxLaunch {
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
}

export interface ClientDialect {
  readonly id: ClientId;
  readonly label: string;
  /**
   * The longest tool name mcpmux should expose there (--max-tool-name): 64 less the prefix the
   * client adds to a server's tools; undefined where it adds none or none is known.
   */
  readonly maxToolName?: number;
  /** Its config files on this platform, the user's first; a file that is not there is skipped. */
  files(places: ClientPlaces): ClientFile[];
  /** The servers `text` holds at `file`; throws ClientFileError when it cannot be read. */
  read(text: string, file: ClientFile, places: ClientPlaces): ReadServer[];
  /** The names of the servers `text` holds at `file` (its own entries, read or not). */
  names(text: string, file: ClientFile): string[];
  /** `text` with mcpmux's entry set and `remove` taken out, everything else as it was ('' for a new file). */
  edit(text: string, file: ClientFile, change: { add: McpmuxLaunch; remove: readonly string[] }): string;
  /** mcpmux's entry as `text` holds it, to check an edit (undefined when there is none). */
  launchIn(text: string, file: ClientFile): McpmuxLaunch | undefined;
  /**
   * What the person told this client about the project's shared servers (Claude Code asks
   * before it runs a .mcp.json server, and records the answer); undefined when it keeps none.
   */
  projectChoices?(places: ClientPlaces): ProjectChoices | undefined;
}

/** The person's recorded answers about a project's shared servers. */
export interface ProjectChoices {
  /** Every server of the project's file approved at once. */
  readonly all: boolean;
  readonly enabled: readonly string[];
  readonly disabled: readonly string[];
  /** Where they were read, for the summary. */
  readonly from: readonly string[];
}

/** A client file that cannot be read or changed: it says which and why. */
export class ClientFileError extends Error {
  override readonly name = 'ClientFileError';
}

/** The name mcpmux's own entry has in every client. */
export const MCPMUX_ENTRY = 'mcpmux';
