// mcpmux import and mcpmux install: their flags, and what they print. The work is
// clients/import-servers.ts and clients/install-client.ts; this reads the command line for
// them and tells the person what was done, what differed and what to do next.
import { parseArgs } from 'node:util';
import {
  CLIENT_IDS,
  ClientFileError,
  type ClientPlaces,
  type McpmuxLaunch,
} from '../clients/client-dialect.js';
import { CLIENTS, clientNamed } from '../clients/clients.js';
import { defaultConfigPath, importServers, type ImportReport } from '../clients/import-servers.js';
import {
  applyInstall,
  planInstall,
  type InstallPlan,
  type InstallReport,
} from '../clients/install-client.js';
import { nearest } from './cli-flags.js';
import { CliError } from './cli-options.js';

export type ClientCommand = 'import' | 'install';

export const CLIENT_COMMAND_HELP = `mcpmux import [--from CLIENT]… [--out FILE] [--dry-run] [--keep-secrets] [--project DIR]
  Read the MCP servers your clients already have into one mcpmux config (default
  $XDG_CONFIG_HOME/mcpmux/servers.json). CLIENT: ${CLIENT_IDS.join(', ')} (default: each one found).
  Secrets in env and headers become \${VAR} references, listed to set; --keep-secrets copies them.
  A project's shared files (.mcp.json, .cursor/mcp.json, .vscode/mcp.json) are read only with
  --project DIR, leaving out servers you declined in Claude Code.
mcpmux install --client CLIENT [--config FILE] [--replace] [--scope user|project] [--dry-run]
               [--with-secrets] [--project DIR]
  Register mcpmux in CLIENT's config, serving FILE (default: what import wrote), after a backup;
  --replace also takes out CLIENT's entries for the servers mcpmux now serves. Variables the
  servers need that are not set are listed; --with-secrets writes their values, read from the
  client files they came from, into mcpmux's entry there (on a terminal, install asks).`;

const OPTIONS = {
  from: { type: 'string', multiple: true },
  out: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'keep-secrets': { type: 'boolean' },
  'with-secrets': { type: 'boolean' },
  project: { type: 'string' },
  client: { type: 'string' },
  config: { type: 'string', short: 'c' },
  replace: { type: 'boolean' },
  scope: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface ClientCommandContext {
  places: Omit<ClientPlaces, 'project'> & { cwd: string };
  /** How mcpmux is started, for the entry install writes. */
  launch: McpmuxLaunch;
  /** How the person typed mcpmux (`mcpmux` when that is on their PATH, else `node …/bin/mcpmux.js`), for hints. */
  invokedAs: string;
  /** Asks the person a yes/no question (undefined when there is no terminal to ask on). */
  ask?: (question: string) => Promise<boolean>;
  now: Date;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs `mcpmux import|install ARGS`; resolves with the exit status (2 for a bad command line). */
export async function runClientCommand(
  command: ClientCommand,
  argv: readonly string[],
  ctx: ClientCommandContext,
): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }));
    if (values.help) {
      ctx.out(CLIENT_COMMAND_HELP);
      return 0;
    }
    checkFlags(command, values);
  } catch (error) {
    ctx.err(
      `mcpmux ${command}: ${withSuggestion(command, (error as Error).message)}\n${CLIENT_COMMAND_HELP}`,
    );
    return 2;
  }
  const { cwd, ...rest } = ctx.places;
  const places: ClientPlaces = { ...rest, project: values.project ?? cwd };
  try {
    if (command === 'import') {
      const clients = (values.from ?? []).flatMap((v) => v.split(',')).map((id) => clientNamed(id.trim())!);
      const report = importServers({
        places,
        clients: clients.length > 0 ? clients : [...CLIENTS.values()],
        out: values.out ?? defaultConfigPath(places),
        dryRun: values['dry-run'] === true,
        keepSecrets: values['keep-secrets'] === true,
        trustProject: values.project !== undefined,
      });
      ctx.out(
        describeImport(
          report,
          values.out ?? defaultConfigPath(places),
          values['dry-run'] === true,
          ctx.invokedAs,
        ),
      );
      return report.files.some((f) => f.error !== undefined) ? 1 : 0;
    }
    const client = clientNamed(values.client!)!;
    const dryRun = values['dry-run'] === true;
    const plan = planInstall({
      places,
      client,
      config: values.config ?? defaultConfigPath(places),
      launch: ctx.launch,
      replace: values.replace === true,
      scope: values.scope === 'project' ? 'project' : 'user',
      sources: [...CLIENTS.values()],
      trustProject: values.project !== undefined,
      now: ctx.now,
    });
    const withSecrets = values['with-secrets'] === true || (!dryRun && (await agreesToSecrets(plan, ctx)));
    const report = applyInstall(plan, { withSecrets, dryRun });
    ctx.out(describeInstall(report, client.label, dryRun));
    return 0;
  } catch (error) {
    if (!(error instanceof ClientFileError)) throw error;
    ctx.err(`mcpmux ${command}: ${error.message}`);
    return 1;
  }
}

/** On a terminal, whether the person wants the values found written into a user's file. */
async function agreesToSecrets(plan: InstallPlan, ctx: ClientCommandContext): Promise<boolean> {
  if (!ctx.ask || plan.offer.length === 0 || plan.file.scope === 'project') return false;
  ctx.err(
    [
      `The servers mcpmux will serve need variables that are not set here. Their values are in your clients' files:`,
      ...plan.offer.map((v) => `  ${v.variable}: from ${v.from}`),
    ].join('\n'),
  );
  return ctx.ask(`Write them into the "env" of mcpmux's entry in ${plan.file.path}? [y/N] `);
}

/** parseArgs' "Unknown option '--with-secret'" with the flag of this command it most likely meant. */
function withSuggestion(command: ClientCommand, message: string): string {
  const typed = /^Unknown option '--([^']+)'/.exec(message)?.[1];
  if (typed === undefined) return message;
  const own = Object.keys(OPTIONS).filter(
    (flag) => !ONLY_FOR[command === 'import' ? 'install' : 'import'].includes(flag),
  );
  const meant = nearest(typed, own);
  return meant ? `${message}; did you mean '--${meant}'?` : message;
}

/** The flags that belong to one of the two commands only. */
const ONLY_FOR: Record<ClientCommand, readonly string[]> = {
  install: ['client', 'config', 'replace', 'scope', 'with-secrets'],
  import: ['from', 'out', 'keep-secrets'],
};

function checkFlags(command: ClientCommand, values: Record<string, unknown>): void {
  const only = ONLY_FOR[command === 'import' ? 'install' : 'import'];
  const stray = only.filter((flag) => values[flag] !== undefined);
  if (stray.length > 0)
    throw new CliError(`${stray.map((f) => `--${f}`).join(', ')} do not go with ${command}`);
  const known = `one of ${CLIENT_IDS.join(', ')}`;
  for (const id of ((values['from'] as string[] | undefined) ?? []).flatMap((v) => v.split(',')))
    if (!clientNamed(id.trim()))
      throw new CliError(`--from '${id}' is not a client mcpmux reads; give ${known}`);
  if (command === 'install') {
    const client = values['client'];
    if (typeof client !== 'string') throw new CliError(`install needs --client CLIENT, ${known}`);
    if (!clientNamed(client))
      throw new CliError(`--client '${client}' is not a client mcpmux installs into; give ${known}`);
    const scope = values['scope'];
    if (scope !== undefined && scope !== 'user' && scope !== 'project')
      throw new CliError(`--scope must be user or project, not '${String(scope)}'`);
  }
}

function describeImport(report: ImportReport, out: string, dryRun: boolean, invokedAs: string): string {
  const lines: string[] = [];
  const where = (o: { client: string; scope: string; path: string }) => `${o.client} (${o.scope}, ${o.path})`;
  if (report.files.length === 0) lines.push('No MCP servers found in any client config.');
  else
    lines.push(
      'Read:',
      ...report.files.map(
        (f) => `  ${where(f)}: ${f.error ?? `${f.servers} server${f.servers === 1 ? '' : 's'}`}`,
      ),
    );
  if (report.added.length > 0) {
    lines.push(
      `${dryRun ? 'Would add' : 'Added'} ${report.added.length} server${report.added.length === 1 ? '' : 's'} to ${out}:`,
    );
    lines.push(
      ...report.added.map(
        (a) => `  ${a.name}: from ${a.client} (${a.scope})${a.runs !== undefined ? `, runs: ${a.runs}` : ''}`,
      ),
    );
  } else lines.push(`Nothing new to add to ${out}.`);
  if (report.present.length > 0) lines.push(`Already in it: ${report.present.join(', ')}`);
  if (report.untrusted.length > 0)
    lines.push(
      "Not read, as they are a project's and came with it rather than from you (name the project with --project DIR to import them):",
      ...report.untrusted.map((o) => `  ${where(o)}`),
    );
  for (const d of report.declined) lines.push(`Left out: '${d.name}' of ${where(d)}: ${d.why}`);
  for (const m of report.merged)
    lines.push(
      `The same in ${m.origins.map((o) => `${o.client} (${o.scope})`).join(' and ')}, added once: ${m.name}`,
    );
  for (const c of report.conflicts)
    lines.push(
      `Differs, not added: '${c.name}' of ${where(c.other)} differs in ${c.differ.join(', ')} from the one kept, ${c.kept}`,
    );
  for (const r of report.renamed)
    lines.push(
      `Renamed: '${r.from}' of ${r.origin.client} is '${r.to}' (a server name is letters, digits, "_" and "-")`,
    );
  if (report.variables.length > 0) {
    lines.push(
      "Set these variables in mcpmux's environment before it starts (secrets were written as references to them):",
    );
    lines.push(...report.variables.map((v) => `  ${v.variable}: ${v.server} ${v.field}`));
  }
  if (report.notes.length > 0) {
    lines.push('Not kept, or changed:');
    lines.push(...report.notes.map((n) => `  ${n.name} (${n.origin.client}): ${n.note}`));
  }
  if (dryRun) lines.push(`${out} would read:`, report.text);
  else if (report.added.length > 0) {
    const first = report.files.find((f) => !f.error);
    const id = [...CLIENTS.values()].find((c) => c.label === first?.client)?.id ?? 'CLIENT';
    lines.push(
      `Next: ${invokedAs} install --client ${id} --replace  (registers mcpmux there and takes out the entries it now serves)`,
    );
  }
  return lines.join('\n');
}

function describeInstall(report: InstallReport, label: string, dryRun: boolean): string {
  const lines: string[] = [];
  if (report.backup) lines.push(`Backed up ${report.path} to ${report.backup}`);
  const verb = dryRun ? 'Would register' : report.updated ? 'Updated' : 'Registered';
  lines.push(
    `${verb} mcpmux in ${label} (${report.path}): ${[report.launch.command, ...report.launch.args].join(' ')}`,
  );
  const waits = new Map(report.waiting.map((w) => [w.server, w.missing]));
  if (report.removed.length > 0)
    lines.push(
      `${dryRun ? 'Would take' : 'Took'} out (mcpmux serves them now): ${report.removed
        .map((name) =>
          waits.has(name) ? `${name} (waits behind mcpmux for ${waits.get(name)!.join(', ')})` : name,
        )
        .join(', ')}`,
    );
  if (report.kept.length > 0) lines.push(`Left in place: ${report.kept.join(', ')}`);
  if (report.wroteSecrets.length > 0)
    lines.push(
      `${dryRun ? 'Would write' : 'Wrote'} into the "env" of mcpmux's entry (${report.path}, readable by you only):`,
      ...report.wroteSecrets.map((v) => `  ${v.variable}: from ${v.from}`),
    );
  if (report.waiting.length > 0) {
    const offered = new Set(report.offered.map((v) => v.variable));
    lines.push(
      'These servers need variables that are not set where mcpmux starts; they wait for them (list_servers: needs_config) while the others run:',
      ...report.waiting.map(
        (w) =>
          `  ${w.server}: ${w.missing.map((v) => (offered.has(v) ? `${v} (value found)` : v)).join(', ')}`,
      ),
    );
    if (report.offered.length > 0)
      lines.push(
        `Values found are in your clients' files: install with --with-secrets writes them into mcpmux's entry.`,
      );
    if (report.differing.length > 0)
      lines.push(`Your clients' files give different values for ${report.differing.join(', ')}.`);
    lines.push(
      `Set ${report.offered.length > 0 ? 'the others' : 'them'} in the "env" of mcpmux's entry in ${report.path} (the environment ${label} starts mcpmux with), ` +
        "or write the values into mcpmux's config.",
    );
  }
  if (dryRun)
    lines.push(
      `${report.path} would read${report.wroteSecrets.length > 0 ? ' (each secret shown as <value of NAME>)' : ''}:`,
      withoutSecretValues(report.text, report.wroteSecrets),
    );
  else lines.push(`Restart ${label} (or reload its MCP servers) to use mcpmux.`);
  return lines.join('\n');
}

/** A dry run's text with each secret it would write replaced by a mark that names it: a preview is no place for the key. */
function withoutSecretValues(text: string, secrets: InstallReport['wroteSecrets']): string {
  let shown = text;
  for (const { variable, value } of secrets)
    for (const form of new Set([value, JSON.stringify(value).slice(1, -1)]))
      if (form !== '') shown = shown.split(form).join(`<value of ${variable}>`);
  return shown;
}
