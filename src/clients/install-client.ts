// mcpmux install --client: mcpmux registered in a client's config, serving the servers of an
// mcpmux config with the client's tool-name budget; with replace, the client's own entries
// for those servers taken out. The file is backed up first, edited in place (comments, other
// keys and layout kept), and parsed back before it is written: an edit that does not read
// back as meant writes nothing. The variables the config's servers need and this environment
// lacks are found first; their values, where the clients' files held them, go into mcpmux's
// entry when the person says so (planInstall, then applyInstall).
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
import type { PortableEntry } from './portable-entry.js';
import { valuesFromClients, type FoundValue } from './secret-values.js';
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
  /** The clients whose files may hold the values of the config's variables (import's). */
  sources: readonly ClientDialect[];
  /** A project's shared files may be read for values (the person named the project). */
  trustProject: boolean;
  now: Date;
}

/** What install would do, read from the files before anything is written. */
export interface InstallPlan {
  options: InstallOptions;
  file: ClientFile;
  config: string;
  before: string;
  /** The servers the client's file holds now. */
  names: string[];
  remove: string[];
  /** mcpmux's entry as it will be (the variables an entry there set already kept). */
  launch: McpmuxLaunch;
  /** Values of the variables servers wait for, found in the clients' files: what --with-secrets writes. */
  offer: FoundValue[];
  /** Variables two clients' files give different values: left for the person. */
  differing: string[];
  /** The served config, parsed: read again for the waiting servers once secrets are written. */
  json: unknown;
  /** The servers that wait where the client starts mcpmux, with the entry as it is. */
  waiting: InstallReport['waiting'];
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
   * Servers of the config that refer to variables not set where the client starts mcpmux
   * (this environment and the entry's env): each waits for them (needs_config), the others run.
   */
  waiting: { server: string; missing: string[] }[];
  /** Variables whose values were written into the entry's env, and where each was read. */
  wroteSecrets: FoundValue[];
  /** Values found but not written (no --with-secrets, or the person said no), with where each is. */
  offered: FoundValue[];
  differing: string[];
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

export function planInstall(options: InstallOptions): InstallPlan {
  const { client, places } = options;
  const file = client.files(places).find((f) => f.scope === options.scope);
  if (!file) throw new ClientFileError(`${client.label} has no ${options.scope} config file to install into`);
  const config = resolve(places.project, options.config);
  const json = readServedConfig(config);
  const served = (objectAt(json, ['mcpServers']) ?? objectAt(json, ['servers']) ?? {}) as Record<
    string,
    PortableEntry
  >;
  const before = existsSync(file.path) ? readFileSync(file.path, 'utf8') : '';
  const names = before.trim() === '' ? [] : client.names(before, file);
  const remove = options.replace
    ? names.filter((name) => name !== MCPMUX_ENTRY && Object.hasOwn(served, name))
    : [];
  // Variables set in mcpmux's entry already (by hand, or an earlier install) stay set.
  const kept = before.trim() === '' ? undefined : client.launchIn(before, file)?.env;
  const launch: McpmuxLaunch = {
    command: options.launch.command,
    args: [
      ...options.launch.args,
      '--config',
      config,
      ...(client.maxToolName === undefined ? [] : ['--max-tool-name', String(client.maxToolName)]),
    ],
    ...(kept && { env: kept }),
  };
  const waiting = waitingServers(json, config, { ...places.env, ...launch.env });
  const { found, differing } = valuesFromClients(
    served,
    waiting,
    options.sources,
    places,
    options.trustProject,
  );
  return { options, file, config, before, names, remove, launch, offer: found, differing, json, waiting };
}

/**
 * Writes the plan (unless `dryRun`), with the values offered in mcpmux's entry when
 * `withSecrets`; a file that then holds secrets is made readable by its owner only.
 */
export function applyInstall(
  plan: InstallPlan,
  { withSecrets, dryRun }: { withSecrets: boolean; dryRun: boolean },
): InstallReport {
  const { options, file, before, names, remove } = plan;
  const { client, places } = options;
  if (withSecrets && plan.offer.length > 0 && file.scope === 'project')
    throw new ClientFileError(
      `--with-secrets would write secret values into ${file.path}, a project's file shared with whoever has the project; install with --scope user`,
    );
  const secrets = withSecrets ? plan.offer : [];
  const env = { ...plan.launch.env, ...Object.fromEntries(secrets.map((s) => [s.variable, s.value])) };
  const launch: McpmuxLaunch = { ...plan.launch, ...(Object.keys(env).length > 0 && { env }) };
  const text = client.edit(before, file, { add: launch, remove });
  checkEdit(client, file, before, text, { launch, remove, names });
  const report: InstallReport = {
    path: file.path,
    updated: names.includes(MCPMUX_ENTRY),
    launch,
    removed: remove,
    kept: names.filter((name) => name !== MCPMUX_ENTRY && !remove.includes(name)),
    // Only values written change what waits.
    waiting:
      secrets.length > 0
        ? waitingServers(plan.json, plan.config, { ...places.env, ...launch.env })
        : plan.waiting,
    wroteSecrets: secrets,
    offered: withSecrets ? [] : plan.offer,
    differing: plan.differing,
    text,
    written: false,
  };
  if (dryRun) return report;
  if (before !== '') report.backup = backUp(file.path, options.now);
  writeWhole(file.path, text, { ownerOnly: secrets.length > 0 });
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
      { ...launch, args: [...launch.args], env: launch.env ?? {} },
      { ...meant.launch, args: [...meant.launch.args], env: meant.launch.env ?? {} },
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
