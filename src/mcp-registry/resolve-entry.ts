// A registry entry made into a server spec: an npm package runs as `npx -y pkg@version`, a PyPI
// one as `uvx pkg==version`, an OCI image as `docker run -i --rm … image` (its variables passed
// by name with `-e`, so that no value stands on a command line), and a remote as its URL and
// headers. Arguments and variables take the values given, else the publisher's fixed value or
// default; a required one with none is reported missing, for the person to supply.
import { MuxError } from '../common/errors.js';
import type { RemoteServerSpec, StdioServerSpec } from '../child/server-spec.js';
import type { ArgumentInput, KeyValueInput, PackageEntry, RemoteEntry, ServerEntry } from './server-entry.js';

export interface EntryChoices {
  /** Values for its environment variables (a remote's headers too), by name. */
  readonly env?: Readonly<Record<string, string>>;
  /** Values for its arguments: a positional one by its valueHint, a named one by its flag. */
  readonly arguments?: Readonly<Record<string, string>>;
  /** The package's version, when not the entry's own. */
  readonly version?: string;
}

export interface MissingInput {
  readonly kind: 'env' | 'header' | 'argument';
  readonly name: string;
  readonly description?: string;
  readonly secret: boolean;
  readonly choices?: readonly string[];
}

export interface ResolvedEntry {
  readonly spec: StdioServerSpec | RemoteServerSpec;
  /** What runs, for messages and the audit line: `npm @scope/pkg@1.2.3`, `remote https://…`. */
  readonly source: string;
  /** Required inputs with no value given, fixed or defaulted. */
  readonly missing: readonly MissingInput[];
  /** The names of its variables and headers marked secret: their values are never shown. */
  readonly secrets: readonly string[];
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

/** Collects inputs' values and what is missing, as one resolution goes. */
class Inputs {
  readonly missing: MissingInput[] = [];
  readonly secrets: string[] = [];
  readonly #choices: EntryChoices;

  constructor(choices: EntryChoices) {
    this.#choices = choices;
  }

  /** A variable's or header's value, or undefined (reported missing when required). */
  keyValue(input: KeyValueInput, kind: 'env' | 'header'): string | undefined {
    if (input.isSecret) this.secrets.push(input.name);
    const value = this.#choices.env?.[input.name] ?? this.#fixed(input) ?? input.default;
    if (value === undefined && input.isRequired) this.#miss(kind, input.name, input);
    return value;
  }

  /** An argument's command-line words: none when it has no value and is not required. */
  argument(arg: ArgumentInput): string[] {
    const key = arg.type === 'named' ? arg.name : arg.valueHint;
    const value =
      (key !== undefined ? this.#choices.arguments?.[key] : undefined) ?? this.#fixed(arg) ?? arg.default;
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

  /** The publisher's fixed value, `{name}` replaced from its variables (else left as written). */
  #fixed(input: {
    value?: string | undefined;
    variables?: Record<string, { value?: string | undefined; default?: string | undefined }> | undefined;
  }): string | undefined {
    if (input.value === undefined) return undefined;
    return input.value.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
      const variable = input.variables?.[name];
      return this.#choices.env?.[name] ?? variable?.value ?? variable?.default ?? whole;
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

function resolvePackage(
  entry: ServerEntry,
  pkg: PackageEntry & { registryType: Runnable },
  choices: EntryChoices,
): ResolvedEntry {
  const inputs = new Inputs(choices);
  const version = choices.version ?? pkg.version ?? entry.version;
  const env: Record<string, string> = {};
  for (const variable of pkg.environmentVariables ?? []) {
    const value = inputs.keyValue(variable, 'env');
    if (value !== undefined) env[variable.name] = value;
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
    secrets: inputs.secrets,
  };
}

function resolveRemote(remote: RemoteEntry, choices: EntryChoices): ResolvedEntry {
  const inputs = new Inputs(choices);
  const headers: Record<string, string> = {};
  for (const header of remote.headers ?? []) {
    const value = inputs.keyValue(header, 'header');
    if (value !== undefined) headers[header.name] = value;
  }
  // `{name}` in the URL template comes from the choices, as a variable or an argument.
  const url = remote.url.replace(
    /\{([^{}]+)\}/g,
    (whole, name: string) => choices.env?.[name] ?? choices.arguments?.[name] ?? whole,
  );
  for (const [, name] of url.matchAll(/\{([^{}]+)\}/g))
    inputs.missing.push({
      kind: 'argument',
      name: name!,
      secret: false,
      description: `{${name}} in the URL`,
    });
  return {
    spec: { transport: 'http', url, headers },
    source: `remote ${url}`,
    missing: inputs.missing,
    secrets: inputs.secrets,
  };
}
