// A registry entry made into a server spec: an npm package runs as `npx -y pkg@version`, a PyPI
// one as `uvx pkg==version`, an OCI image as `docker run -i --rm … image` (its variables passed
// by name with `-e`, so that no value stands on a command line), and a remote as its URL and
// headers. Arguments and variables take the values given, else the publisher's fixed value or
// default; a required one with none is reported missing, for the person to supply. A preview
// writes what is not given (and every secret) as ${NAME}: what find_servers and the person's
// form show of the command that will run.
import { MuxError } from '../common/errors.js';
import type { RemoteServerSpec, StdioServerSpec } from '../child/server-spec.js';
import type {
  ArgumentInput,
  InputEntry,
  KeyValueInput,
  PackageEntry,
  RemoteEntry,
  ServerEntry,
} from './server-entry.js';

export interface EntryChoices {
  /** Values for its environment variables (a remote's headers and URL variables too), by name. */
  readonly env?: Readonly<Record<string, string>>;
  /** Values for its arguments: a positional one by its valueHint, a named one by its flag; a remote's URL variables. */
  readonly arguments?: Readonly<Record<string, string>>;
  /** The package's version, when not the entry's own. */
  readonly version?: string;
  /** Every value not given, and every secret, written as ${NAME}: the command as it will run, secrets named. */
  readonly preview?: boolean;
}

export interface MissingInput {
  readonly kind: 'env' | 'header' | 'argument' | 'url';
  readonly name: string;
  readonly description?: string;
  readonly secret: boolean;
  readonly choices?: readonly string[];
}

export interface ResolvedEntry {
  readonly spec: StdioServerSpec | RemoteServerSpec;
  /** What runs, for messages and the audit line: `npm @scope/pkg@1.2.3`, `remote https://…/{api_key}`. */
  readonly source: string;
  /** Required inputs with no value given, fixed or defaulted. */
  readonly missing: readonly MissingInput[];
  /** The names of its variables, headers and URL variables marked secret: their values are never shown. */
  readonly secrets: readonly string[];
  /** The values of those secrets that this resolution used, by name: what no outward text may hold. */
  readonly secretValues: Readonly<Record<string, string>>;
  /** Secrets the entry would put on the command line (an argument marked secret, or one made from a secret). */
  readonly secretsInArguments: readonly string[];
  /** Values given that are not among their input's choices, each as `NAME must be one of …`. */
  readonly outOfChoices: readonly string[];
  /** Values the publisher fixed for variables (a secret's as ${NAME}): what find_servers shows before it runs. */
  readonly fixedEnv: Readonly<Record<string, string>>;
}

/** The package kinds mcpmux runs, and the command each needs on the machine. */
export const RUNTIMES = { npm: 'npx', pypi: 'uvx', oci: 'docker' } as const;
type Runnable = keyof typeof RUNTIMES;

const runnable = (p: PackageEntry): p is PackageEntry & { registryType: Runnable } =>
  Object.hasOwn(RUNTIMES, p.registryType) && (p.transport?.type ?? 'stdio') === 'stdio';

/** What of `entry` mcpmux runs: its first package it can run over stdio, else its first remote it can reach. */
export function runnableForm(
  entry: ServerEntry,
): { package: PackageEntry & { registryType: Runnable } } | { remote: RemoteEntry } | undefined {
  const pkg = entry.packages?.find(runnable);
  if (pkg) return { package: pkg };
  const remote = entry.remotes?.find((r) => r.type === 'streamable-http' || r.type === 'sse');
  return remote && { remote };
}

/** Resolves `entry` with the caller's choices; throws NOT_SUPPORTED when nothing in it can run here. */
export function resolveEntry(entry: ServerEntry, choices: EntryChoices = {}): ResolvedEntry {
  const form = runnableForm(entry);
  if (form && 'package' in form) return resolvePackage(entry, form.package, choices);
  if (form) return resolveRemote(form.remote, choices);
  const offered = [
    ...(entry.packages ?? []).map((p) => `${p.registryType} package ${p.identifier}`),
    ...(entry.remotes ?? []).map((r) => `${r.type} remote`),
  ];
  throw new MuxError(
    'NOT_SUPPORTED',
    `registry entry '${entry.name}' offers ${offered.length ? offered.join(', ') : 'no package and no remote'}; ` +
      'mcpmux runs npm, PyPI and OCI packages over stdio, and streamable-http or SSE remotes: ' +
      'add it with command/args or url yourself',
  );
}

type Variables = Record<string, InputEntry> | undefined;

/** Collects inputs' values and what is missing, as one resolution goes. */
class Inputs {
  readonly missing: MissingInput[] = [];
  readonly secrets: string[] = [];
  readonly secretValues: Record<string, string> = {};
  readonly secretsInArguments: string[] = [];
  /** Values given that are not among the input's choices, each as `NAME must be one of …`. */
  readonly outOfChoices: string[] = [];
  readonly #choices: EntryChoices;
  /** Names of the entry's secret variables, which an argument's {name} must not take. */
  readonly #secretNames: ReadonlySet<string>;

  constructor(choices: EntryChoices, secretNames: readonly string[] = []) {
    this.#choices = choices;
    this.#secretNames = new Set(secretNames);
  }

  /** A variable's or header's value, or undefined (reported missing when required). */
  keyValue(input: KeyValueInput, kind: 'env' | 'header'): string | undefined {
    if (input.isSecret) this.secrets.push(input.name);
    const given = this.#choices.env?.[input.name];
    if (given !== undefined && !input.isSecret && input.choices && !input.choices.includes(given))
      this.outOfChoices.push(`${input.name} must be one of ${input.choices.join(', ')}`);
    if (this.#choices.preview && (input.isSecret || (given === undefined && input.value === undefined)))
      return input.default !== undefined && !input.isSecret ? input.default : placeholder(input.name);
    const value = given ?? this.#fixed(input, false) ?? input.default;
    if (value === undefined && input.isRequired) this.#miss(kind, input.name, input);
    if (value !== undefined && input.isSecret) this.secretValues[input.name] = value;
    return value;
  }

  /** An argument's command-line words: none when it has no value and is not required. */
  argument(arg: ArgumentInput): string[] {
    const key = arg.type === 'named' ? arg.name : arg.valueHint;
    if (arg.isSecret) this.secretsInArguments.push(key ?? 'a positional argument');
    const given = key !== undefined ? this.#choices.arguments?.[key] : undefined;
    if (given !== undefined && arg.choices && !arg.choices.includes(given))
      this.outOfChoices.push(`${key} must be one of ${arg.choices.join(', ')}`);
    let value = given ?? this.#fixed(arg, true) ?? arg.default;
    if (this.#choices.preview && given === undefined && arg.value === undefined && arg.default === undefined)
      value = arg.isRequired && key !== undefined ? placeholder(key) : undefined;
    if (arg.type === 'positional') {
      if (value !== undefined) return [value];
      if (arg.isRequired) this.#miss('argument', key ?? 'positional argument', arg);
      return [];
    }
    if (!arg.name) return [];
    if (value === undefined) {
      if (arg.isRequired) this.#miss('argument', arg.name, arg);
      return [];
    }
    // A flag with no value to give (`--verbose`), or `--flag=value` as the schema writes it.
    return value === '' ? [arg.name] : [`${arg.name}=${value}`];
  }

  /** `{name}` in a remote's URL: a URL variable (schema `variables`), as given or its default. */
  urlVariable(name: string, variable: InputEntry | undefined): string | undefined {
    const secret = variable?.isSecret === true;
    if (secret) this.secrets.push(name);
    const given = secret
      ? this.#choices.env?.[name]
      : (this.#choices.arguments?.[name] ?? this.#choices.env?.[name]);
    if (this.#choices.preview && (secret || given === undefined))
      return !secret && variable?.default !== undefined ? variable.default : placeholder(name);
    const value = given ?? variable?.value ?? variable?.default;
    if (given !== undefined && variable?.choices && !variable.choices.includes(given))
      this.outOfChoices.push(`${name} must be one of ${variable.choices.join(', ')}`);
    if (value === undefined)
      this.#miss('url', name, { ...variable, description: variable?.description ?? `{${name}} in the URL` });
    else if (secret) this.secretValues[name] = value;
    return value;
  }

  /**
   * The publisher's fixed value, `{name}` replaced from its variables (else left as written).
   * On a command line (`onCommandLine`), a {name} that is a secret is noted: it would show there.
   */
  #fixed(
    input: { value?: string | undefined; variables?: Variables },
    onCommandLine: boolean,
  ): string | undefined {
    if (input.value === undefined) return undefined;
    return input.value.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
      const variable = input.variables?.[name];
      const secret = variable?.isSecret === true || this.#secretNames.has(name);
      if (secret) this.secrets.push(name);
      if (secret && onCommandLine) this.secretsInArguments.push(name);
      if (this.#choices.preview && secret) return placeholder(name);
      const value = this.#choices.env?.[name] ?? variable?.value ?? variable?.default;
      if (value !== undefined && secret) this.secretValues[name] = value;
      return value ?? whole;
    });
  }

  #miss(
    kind: MissingInput['kind'],
    name: string,
    input: {
      description?: string | undefined;
      isSecret?: boolean | undefined;
      choices?: string[] | undefined;
    },
  ): void {
    this.missing.push({
      kind,
      name,
      secret: input.isSecret === true,
      ...(input.description !== undefined && { description: input.description }),
      ...(input.choices !== undefined && { choices: input.choices }),
    });
  }
}

/** How a value not given (or a secret) is written in a preview: as a config file refers to a variable. */
const placeholder = (name: string): string => `\${${name}}`;

function resolvePackage(
  entry: ServerEntry,
  pkg: PackageEntry & { registryType: Runnable },
  choices: EntryChoices,
): ResolvedEntry {
  checkIdentifier(entry, pkg.identifier);
  const inputs = new Inputs(
    choices,
    (pkg.environmentVariables ?? []).filter((v) => v.isSecret).map((v) => v.name),
  );
  const version = choices.version ?? pkg.version ?? entry.version;
  const env: Record<string, string> = {};
  const fixedEnv: Record<string, string> = {};
  for (const variable of pkg.environmentVariables ?? []) {
    const value = inputs.keyValue(variable, 'env');
    if (value !== undefined) env[variable.name] = value;
    if (variable.value !== undefined)
      fixedEnv[variable.name] = variable.isSecret ? placeholder(variable.name) : (value ?? variable.value);
  }
  const runtimeArgs = (pkg.runtimeArguments ?? []).flatMap((a) => inputs.argument(a));
  const packageArgs = (pkg.packageArguments ?? []).flatMap((a) => inputs.argument(a));
  const command = RUNTIMES[pkg.registryType];
  let args: string[];
  let source: string;
  switch (pkg.registryType) {
    case 'npm': {
      const spec = version ? `${pkg.identifier}@${version}` : pkg.identifier;
      const yes = runtimeArgs.some((a) => a === '-y' || a === '--yes') ? [] : ['-y'];
      args = [...runtimeArgs, ...yes, spec, ...packageArgs];
      source = `npm ${spec}`;
      break;
    }
    case 'pypi': {
      const spec = version ? `${pkg.identifier}==${version}` : pkg.identifier;
      args = [...runtimeArgs, spec, ...packageArgs];
      source = `PyPI ${spec}`;
      break;
    }
    case 'oci': {
      // The identifier carries its tag or digest; `-e NAME` hands docker the value from the
      // environment mcpmux gives it, so no value is visible in the process list.
      const passed = Object.keys(env).flatMap((name) => ['-e', name]);
      args = ['run', '-i', '--rm', ...runtimeArgs, ...passed, pkg.identifier, ...packageArgs];
      source = `OCI ${pkg.identifier}`;
      break;
    }
  }
  return {
    spec: { transport: 'stdio', command, args, env },
    source,
    missing: inputs.missing,
    secrets: [...new Set(inputs.secrets)],
    secretValues: inputs.secretValues,
    secretsInArguments: [...new Set(inputs.secretsInArguments)],
    outOfChoices: inputs.outOfChoices,
    fixedEnv,
  };
}

/**
 * A package identifier stands on a command line as one argument: one that starts with `-`
 * would be read as an option (npx's `--call=…` runs a shell), and whitespace or a shell's
 * characters have no place in a package's name.
 */
function checkIdentifier(entry: ServerEntry, identifier: string): void {
  if (/^-|[\s;&|\x60$<>(){}\\\x27\x22*?!#~]|[\u0000-\u001f\u007f]/u.test(identifier))
    throw new MuxError(
      'NOT_ALLOWED',
      `registry entry '${entry.name}' names its package ${JSON.stringify(identifier)}, which is not a package name ` +
        '(it begins with - or holds whitespace or a shell character): mcpmux does not run it',
    );
}

function resolveRemote(remote: RemoteEntry, choices: EntryChoices): ResolvedEntry {
  const inputs = new Inputs(choices);
  const headers: Record<string, string> = {};
  for (const header of remote.headers ?? []) {
    const value = inputs.keyValue(header, 'header');
    if (value !== undefined) headers[header.name] = value;
  }
  // `{name}` in the URL template: a variable of the remote's (schema `variables`), given as an
  // argument, or by the person when it is secret.
  const url = remote.url.replace(
    /\{([^{}]+)\}/g,
    (whole, name: string) => inputs.urlVariable(name, remote.variables?.[name]) ?? whole,
  );
  return {
    spec: { transport: 'http', url, headers },
    // The template, never the URL: a secret in it would show wherever the source is shown.
    source: `remote ${remote.url}`,
    missing: inputs.missing,
    secrets: [...new Set(inputs.secrets)],
    secretValues: inputs.secretValues,
    secretsInArguments: [],
    outOfChoices: inputs.outOfChoices,
    fixedEnv: {},
  };
}
