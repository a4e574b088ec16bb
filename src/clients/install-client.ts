// mcpmux install --client: mcpmux registered in a client's config, serving the servers of an
// mcpmux config with the client's tool-name budget; with replace, the client's own entries
// for those servers taken out. The file is backed up first, edited in place (comments, other
// keys and layout kept), and parsed back before it is written: an edit that does not read
// back as meant writes nothing.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  ClientFileError,
  MCPMUX_ENTRY,
  type ClientDialect,
  type ClientFile,
  type ClientPlaces,
  type McpmuxLaunch,
} from './client-dialect.js';
import { objectAt, parseJsonc } from './jsonc-edit.js';
import { backUp, writeWhole } from './write-whole.js';
import { parseConfig } from '../config/load-config.js';

export interface InstallOptions {
  places: ClientPlaces;
  client: ClientDialect;
  /** The mcpmux config the entry serves. */
  config: string;
  /** How mcpmux is started (its program and first arguments), before its flags. */
  launch: McpmuxLaunch;
  /** Also take out the client's entries for the servers the config has. */
  replace: boolean;
  scope: 'user' | 'project';
  dryRun: boolean;
  now: Date;
}

export interface InstallReport {
  path: string;
  /** The copy of the file as it was (none when there was no file, or with --dry-run). */
  backup?: string;
  /** mcpmux's entry was there already, and is now as given. */
  updated: boolean;
  launch: McpmuxLaunch;
  removed: string[];
  /** Entries of the client that mcpmux does not serve, left in place. */
  kept: string[];
  /**
   * Servers of the config that refer to variables not set in this environment: each waits for
   * them (needs_config) until mcpmux is started with them, the others run.
   */
  waiting: { server: string; missing: string[] }[];
  text: string;
  written: boolean;
}

/** An mcpmux config's JSON (the file must be there, and JSON). */
function readServedConfig(config: string): unknown {
  if (!existsSync(config))
    throw new ClientFileError(
      `there is no mcpmux config at ${config}: run 'mcpmux import' first, or give the one to serve with --config FILE`,
    );
  return parseJsonc(readFileSync(config, 'utf8'), config);
}

export function installClient(options: InstallOptions): InstallReport {
  const { client, places } = options;
  const file = client.files(places).find((f) => f.scope === options.scope);
  if (!file) throw new ClientFileError(`${client.label} has no ${options.scope} config file to install into`);
  const config = resolve(places.project, options.config);
  const json = readServedConfig(config);
  const served = new Set(Object.keys(objectAt(json, ['mcpServers']) ?? objectAt(json, ['servers']) ?? {}));
  const waiting = waitingServers(json, config, places.env);
  const before = existsSync(file.path) ? readFileSync(file.path, 'utf8') : '';
  const names = before.trim() === '' ? [] : client.names(before, file);
  const remove = options.replace ? names.filter((name) => name !== MCPMUX_ENTRY && served.has(name)) : [];
  const launch: McpmuxLaunch = {
    command: options.launch.command,
    args: [
      ...options.launch.args,
      '--config',
      config,
      ...(client.maxToolName === undefined ? [] : ['--max-tool-name', String(client.maxToolName)]),
    ],
  };
  const text = client.edit(before, file, { add: launch, remove });
  checkEdit(client, file, before, text, { launch, remove, names });
  const report: InstallReport = {
    path: file.path,
    updated: names.includes(MCPMUX_ENTRY),
    launch,
    removed: remove,
    kept: names.filter((name) => name !== MCPMUX_ENTRY && !remove.includes(name)),
    waiting,
    text,
    written: false,
  };
  if (options.dryRun) return report;
  if (before !== '') report.backup = backUp(file.path, options.now);
  writeWhole(file.path, text);
  report.written = true;
  return report;
}

/** The servers of the config that would wait for variables not set in `env` (the config loader's own judgement). */
function waitingServers(
  json: unknown,
  config: string,
  env: Readonly<Record<string, string | undefined>>,
): InstallReport['waiting'] {
  try {
    const servers = parseConfig(json, config, env, () => undefined);
    return servers.flatMap(({ name, spec }) =>
      spec.unconfigured ? [{ server: name, missing: [...spec.unconfigured.missing] }] : [],
    );
  } catch {
    return []; // A config mcpmux cannot read says so when mcpmux starts; install is not the place.
  }
}

/** The edited text reads back with mcpmux's entry as given, the removed ones gone, and every other one as it was. */
function checkEdit(
  client: ClientDialect,
  file: ClientFile,
  before: string,
  after: string,
  /** mcpmux's launch, the entries taken out, and the names the file held before. */
  meant: { launch: McpmuxLaunch; remove: readonly string[]; names: readonly string[] },
): void {
  const fail = (why: string) => {
    throw new ClientFileError(`editing ${file.path} went wrong (${why}); the file was left as it was`);
  };
  let names: string[];
  try {
    names = client.names(after, file);
  } catch (error) {
    return fail(`the result does not parse: ${(error as Error).message}`);
  }
  const launch = client.launchIn(after, file);
  if (
    !launch ||
    !isDeepStrictEqual(
      { ...launch, args: [...launch.args] },
      { ...meant.launch, args: [...meant.launch.args] },
    )
  )
    fail("mcpmux's entry does not read back as written");
  const expected = meant.names.filter((name) => name !== MCPMUX_ENTRY && !meant.remove.includes(name));
  if (!isDeepStrictEqual([...names].filter((n) => n !== MCPMUX_ENTRY).sort(), [...expected].sort()))
    fail(`its servers read back as ${names.join(', ')}`);
  if (before.trim() === '') return;
  const entries = (text: string) =>
    Object.fromEntries(
      client
        .read(text, file, { home: '', platform: 'linux', env: {}, project: '' })
        .filter((s) => expected.includes(s.name))
        .map((s) => [s.name, s.entry]),
    );
  if (!isDeepStrictEqual(entries(before), entries(after))) fail('another server entry changed');
}
