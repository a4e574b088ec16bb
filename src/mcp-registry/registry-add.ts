// add_server from a registry entry, up to the spec that starts it: the entry found, resolved
// with the model's choices; the model kept from secrets (a value it passes for a variable the
// entry marks secret is refused unless the operator allows it); the runtime and the operator's
// policy checked before the person is asked anything; then the secrets still missing taken
// from the kept store or asked of the person in one form, and kept if they agree.
import type { CommandLookup } from '../policy/command-resolver.js';
import { commandLineText } from '../common/command-line-text.js';
import { MuxError } from '../common/errors.js';
import { specFromWire, type ServerSpec, type WireServerFields } from '../child/server-spec.js';
import { secretReference } from '../secrets/secret-reference.js';
import { holdSecrets } from '../secrets/secret-scrubber.js';
import type { KeptSecrets } from '../secrets/kept-secrets.js';
import type { McpRegistries } from './mcp-registries.js';
import { resolveEntry, type EntryChoices, type MissingInput, type ResolvedEntry } from './resolve-entry.js';
import { missingRuntime } from './runtime-check.js';
import { FORM_TIMEOUT_MS, secretAnswers, secretForm, type SecretFormSubject } from './secret-form.js';
import type { ServerEntry } from './server-entry.js';

export interface RegistryAddRequest {
  /** The server's name here. */
  readonly name: string;
  /** The registry entry's name: io.github.owner/server. */
  readonly entry: string;
  readonly version?: string | undefined;
  readonly env?: Readonly<Record<string, string>> | undefined;
  readonly arguments?: Readonly<Record<string, string>> | undefined;
  /** add_server's fields besides the entry's (cwd, tools, prefix, era, restart), as the wire gives them. */
  readonly fields?: Omit<WireServerFields, 'command' | 'args' | 'env' | 'url' | 'headers'> | undefined;
}

export interface RegistryAddContext {
  readonly registries: McpRegistries;
  readonly kept: KeptSecrets;
  /** Where kept secrets are, for the form to say. */
  readonly keptIn: string;
  /** --allow-model-secrets: a secret the model passes in env is used rather than refused. */
  readonly allowModelSecrets: boolean;
  /** Where a spawn finds programs: the runtime must be there. */
  readonly lookup: CommandLookup;
  /** The operator's judgement of the spec (--allow-command, --no-runtime-add); what it returns runs. */
  readonly admit: (spec: ServerSpec) => ServerSpec;
  /** Asks the person with a form (elicitation/create params); undefined when the client cannot. */
  readonly askPerson:
    ((params: Record<string, unknown>, timeoutMs: number) => Promise<Record<string, unknown>>) | undefined;
  /** The config file's path, for messages that say where to set a variable. */
  readonly configPath?: string | undefined;
}

export interface RegistryAdd {
  /** What starts it: the admitted spec, with its secrets, naming its entry. */
  readonly spec: ServerSpec;
  /** The same as the config would load it (command as written, no entry name): what persist adopts. */
  readonly configuredSpec: ServerSpec;
  /** The entry as persist writes it: kept secrets as ${secret:ENTRY/NAME}, others as ${NAME}. */
  readonly configEntry: Record<string, unknown>;
  /** The entry as a cluster's replicas run it (add_server's fields, secrets' values in it: Redis holds it sealed). */
  readonly clusterEntry: Record<string, unknown>;
  readonly registry: string;
  readonly entry: ServerEntry;
  /** What runs: `npm pkg@1.2.3`, `remote https://…`. */
  readonly source: string;
  /** The secrets' values it starts with, by name: what no text mcpmux shows may hold. */
  readonly secretValues: Readonly<Record<string, string>>;
  /** Secrets the person agreed to keep with this add. */
  readonly keptNow: readonly string[];
  /** Secrets of the entry not kept: persist writes them as ${NAME}, to be set in mcpmux's environment. */
  readonly unkept: readonly string[];
}

export async function prepareRegistryAdd(
  request: RegistryAddRequest,
  ctx: RegistryAddContext,
): Promise<RegistryAdd> {
  const { registry, server } = await ctx.registries.entry(request.entry, request.version);
  const entry = server.entry;
  const choices = {
    ...(request.arguments && { arguments: request.arguments }),
    ...(request.version !== undefined && { version: request.version }),
  };
  const modelEnv = request.env ?? {};
  checkBeforeAsking(request, ctx, entry, choices);
  const keptBefore = ctx.kept.values(registry, entry.name);
  const given = { ...keptBefore, ...modelEnv };
  const asked = await askForSecrets(request, ctx, { registry, entry, choices, given });
  const resolved = resolveEntry(entry, { ...choices, env: { ...given, ...asked.values } });
  // From here on, no text mcpmux shows may hold them: a URL in an error, a value a child echoes into its stderr.
  holdSecrets(resolved.secretValues);
  const kept = new Set([...Object.keys(keptBefore), ...asked.keptNow]);
  const spec = asSpec(resolved, request.fields);
  // As a config holds it: each secret a reference to where it is, in the env, a header or the URL.
  const references = resolved.secrets.map((name) => [
    name,
    kept.has(name) ? secretReference(entry.name, name) : `\${${name}}`,
  ]);
  const referenced = resolveEntry(entry, {
    ...choices,
    env: { ...given, ...asked.values, ...Object.fromEntries(references) },
  });
  return {
    spec: ctx.admit(withEntry(spec, entry.name)),
    configuredSpec: spec,
    configEntry: { ...configEntry(referenced), ...request.fields },
    clusterEntry: { ...configEntry(resolved), ...request.fields },
    secretValues: resolved.secretValues,
    registry,
    entry,
    source: resolved.source,
    keptNow: asked.keptNow,
    unkept: resolved.secrets.filter(
      (name) => !kept.has(name) && !(ctx.allowModelSecrets && name in modelEnv),
    ),
  };
}

/**
 * Everything judged before the person is asked anything: no secret from the model, the
 * runtime there, the model's choices valid and complete, no secret on a command line, and
 * the operator's policy (secrets change only env and headers, never what runs).
 */
function checkBeforeAsking(
  request: RegistryAddRequest,
  ctx: RegistryAddContext,
  entry: ServerEntry,
  choices: EntryChoices,
): void {
  const modelEnv = request.env ?? {};
  const probe = resolveEntry(entry, { ...choices, env: modelEnv });
  const what = `registry entry '${entry.name}' (${probe.source})`;
  const fromModel = Object.keys({ ...modelEnv, ...request.arguments }).filter((name) =>
    probe.secrets.includes(name),
  );
  if (fromModel.length > 0 && !ctx.allowModelSecrets)
    throw new MuxError(
      'SECRET_REQUIRED',
      `${fromModel.join(', ')} of ${what} ${fromModel.length === 1 ? 'is a secret' : 'are secrets'}, which only the person gives, never the model ` +
        `(mcpmux runs without --allow-model-secrets): leave ${fromModel.length === 1 ? 'it' : 'them'} out of env and arguments, and mcpmux asks the person. ` +
        configAdvice(request.name, entry, { ...choices, env: modelEnv }, probe, ctx.configPath),
    );
  if (probe.spec.transport === 'stdio') {
    const missing = missingRuntime(probe.spec.command, what, ctx.lookup);
    if (missing) throw new MuxError('NOT_SUPPORTED', missing);
  }
  if (probe.outOfChoices.length > 0)
    throw new MuxError('INVALID_ARGUMENTS', `${what}: ${probe.outOfChoices.join('; ')}`);
  const notSecret = probe.missing.filter((m) => !m.secret);
  if (notSecret.length > 0)
    throw new MuxError(
      'INVALID_ARGUMENTS',
      `${what} needs ${notSecret.map(describeMissing).join('; ')}: give ${notSecret.map(whereToGive).join(', ')}`,
    );
  if (probe.secretsInArguments.length > 0)
    throw new MuxError(
      'NOT_ALLOWED',
      `${what} would put its secret ${probe.secretsInArguments.join(', ')} on the command line, where every process on ` +
        'the machine, list_servers and the audit log can read it: mcpmux passes secrets only in the environment or in ' +
        "headers. The entry's publisher should read it from an environment variable marked isSecret instead; until then, " +
        'the person can add the server to the config with command and args',
    );
  ctx.admit(withEntry(asSpec(probe, request.fields), entry.name));
}

/** The secrets still missing, asked of the person in one form (and kept if they agree); none missing: none asked. */
async function askForSecrets(
  request: RegistryAddRequest,
  ctx: RegistryAddContext,
  found: { registry: string; entry: ServerEntry; choices: EntryChoices; given: Record<string, string> },
): Promise<{ values: Record<string, string>; keptNow: string[] }> {
  const { registry, entry, choices, given } = found;
  const resolved = resolveEntry(entry, { ...choices, env: given });
  if (resolved.missing.length === 0) return { values: {}, keptNow: [] };
  const subject: SecretFormSubject = {
    what: `${entry.name} (${resolved.source})`,
    title: entry.title,
    commandLine: commandLine(resolveEntry(entry, { ...choices, env: given, preview: true })),
    secrets: resolved.missing,
    keptIn: ctx.keptIn,
  };
  if (!ctx.askPerson)
    throw new MuxError(
      'SECRET_REQUIRED',
      `registry entry '${entry.name}' (${resolved.source}) needs ${resolved.missing.map((m) => m.name).join(', ')}, which only the person may give, and this client cannot ask them ` +
        `(it has no form elicitation). ${configAdvice(request.name, entry, { ...choices, env: given }, resolved, ctx.configPath)}`,
    );
  const answers = secretAnswers(await ctx.askPerson(secretForm(subject), FORM_TIMEOUT_MS), subject);
  if (!answers.keep) return { values: answers.values, keptNow: [] };
  ctx.kept.keep(registry, entry.name, answers.values);
  return { values: answers.values, keptNow: Object.keys(answers.values) };
}

const withEntry = (spec: ServerSpec, entry: string): ServerSpec => ({ ...spec, registryEntry: entry });

/** The resolved entry with the caller's own fields, checked as any add_server's are. */
function asSpec(resolved: ResolvedEntry, fields: RegistryAddRequest['fields']): ServerSpec {
  const wire =
    resolved.spec.transport === 'http'
      ? { url: resolved.spec.url, headers: { ...resolved.spec.headers } }
      : { command: resolved.spec.command, args: [...resolved.spec.args], env: { ...resolved.spec.env } };
  const spec = specFromWire({ ...fields, ...wire });
  if (typeof spec === 'string') throw new MuxError('INVALID_ARGUMENTS', `add_server: ${spec}`);
  return spec;
}

/** The entry as a config file holds it, resolved with references in place of its secrets. */
function configEntry(referenced: ResolvedEntry): Record<string, unknown> {
  const spec = referenced.spec;
  if (spec.transport === 'http')
    return {
      url: spec.url,
      ...(Object.keys(spec.headers).length > 0 && { headers: { ...spec.headers } }),
    };
  return {
    command: spec.command,
    args: [...spec.args],
    ...(Object.keys(spec.env).length > 0 && { env: { ...spec.env } }),
  };
}

/** What to write in the config when the person cannot be asked: the entry, with ${NAME} for each secret. */
function configAdvice(
  name: string,
  entry: ServerEntry,
  choices: EntryChoices,
  resolved: ResolvedEntry,
  configPath: string | undefined,
): string {
  const secrets = [
    ...new Set([...resolved.secrets, ...resolved.missing.filter((m) => m.secret).map((m) => m.name)]),
  ];
  // Every secret's value, given or kept, is replaced by its reference: none may reach a message.
  const references = Object.fromEntries(secrets.map((s) => [s, `\${${s}}`]));
  const referenced = resolveEntry(entry, { ...choices, env: { ...choices.env, ...references } });
  return (
    `The person can add it to mcpmux's config${configPath ? ` (${configPath})` : ''} as ` +
    `${JSON.stringify({ [name]: configEntry(referenced) })} and set ${secrets.join(', ')} in mcpmux's environment`
  );
}

/** What runs, for the person to read: the command line (or URL), then each variable set, secrets as ${NAME}. */
function commandLine(preview: ResolvedEntry): string {
  const spec = preview.spec;
  if (spec.transport === 'http') return spec.url;
  const env = Object.entries(spec.env).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return commandLineText([spec.command, ...spec.args]) + (env.length > 0 ? `, with ${env.join(' ')}` : '');
}

function describeMissing(m: MissingInput): string {
  const about = [m.description, m.choices && `one of ${m.choices.join(', ')}`].filter(Boolean).join('; ');
  return `${m.name}${about ? ` (${about})` : ''}`;
}

const whereToGive = (m: MissingInput): string =>
  m.kind === 'argument' || m.kind === 'url' ? `arguments["${m.name}"]` : `env["${m.name}"]`;
