// A registry entry as find_servers shows it to the model: enough to choose it and to add it
// (its registry, name, title, description, version; how it runs, down to the exact command
// line and every variable the publisher fixed, secrets written as ${NAME}; the variables,
// headers and arguments it takes, each required or not, secret or not, with its default and
// description; whether a server here runs it already), and nothing that is not in the entry.
import type { FoundServer } from './server-search.js';
import { resolveEntry, runnableForm, type ResolvedEntry } from './resolve-entry.js';
import type { ArgumentInput, KeyValueInput } from './server-entry.js';

export interface FoundInput {
  name: string;
  description?: string;
  required: boolean;
  secret: boolean;
  default?: string;
  choices?: string[];
}

export interface FoundServerSummary {
  registry: string;
  name: string;
  title?: string;
  description?: string;
  version?: string;
  /** The registry's status for it, when not active (deprecated). */
  status?: string;
  /** How it runs here: `npm @scope/pkg@1.2.3`, `PyPI pkg==1.0`, `OCI image:tag`, `remote https://…`; or why it cannot. */
  runs: string;
  /** The exact command line it runs (a remote: its URL), values still to give and secrets as ${NAME}. */
  command?: string[];
  /** Variables the publisher fixed, with their values (a secret's as ${NAME}). */
  fixed_env?: Record<string, string>;
  env?: FoundInput[];
  headers?: FoundInput[];
  arguments?: FoundInput[];
  /** Servers here that run it already. */
  running_as?: string[];
}

export function foundServerSummary(found: FoundServer, runningAs: readonly string[]): FoundServerSummary {
  const { entry, status } = found.server;
  const form = runnableForm(entry);
  let runs: string;
  let preview: ResolvedEntry | undefined;
  try {
    preview = resolveEntry(entry, { preview: true });
    runs = preview.source;
  } catch (error) {
    runs = `not by mcpmux: ${(error as Error).message.replace(/^registry entry '[^']*' /, '')}`;
  }
  const spec = preview?.spec;
  const command = spec && (spec.transport === 'stdio' ? [spec.command, ...spec.args] : [spec.url]);
  const pkg = form && 'package' in form ? form.package : undefined;
  const remote = form && 'remote' in form ? form.remote : undefined;
  const env = (pkg?.environmentVariables ?? []).filter(asked).map(keyValue);
  const headers = (remote?.headers ?? []).filter(asked).map(keyValue);
  const args = [...(pkg?.runtimeArguments ?? []), ...(pkg?.packageArguments ?? [])]
    .filter((a) => a.value === undefined && (a.type === 'named' ? a.name : a.valueHint) !== undefined)
    .map(argument);
  return {
    registry: found.registry,
    name: entry.name,
    ...(entry.title !== undefined && { title: entry.title }),
    ...(entry.description !== undefined && { description: entry.description }),
    ...(entry.version !== undefined && { version: entry.version }),
    ...(status !== undefined && status !== 'active' && { status }),
    runs,
    ...(command && { command }),
    ...(preview && Object.keys(preview.fixedEnv).length > 0 && { fixed_env: { ...preview.fixedEnv } }),
    ...(env.length > 0 && { env }),
    ...(headers.length > 0 && { headers }),
    ...(args.length > 0 && { arguments: args }),
    ...(runningAs.length > 0 && { running_as: [...runningAs] }),
  };
}

/** An input the person or the model may give: one the publisher fixed is not shown. */
const asked = (input: KeyValueInput): boolean => input.value === undefined;

function keyValue(input: KeyValueInput): FoundInput {
  return described(input.name, input);
}

function argument(arg: ArgumentInput): FoundInput {
  return described((arg.type === 'named' ? arg.name : arg.valueHint)!, arg);
}

function described(
  name: string,
  input: {
    description?: string | undefined;
    isRequired?: boolean | undefined;
    isSecret?: boolean | undefined;
    default?: string | undefined;
    choices?: string[] | undefined;
  },
): FoundInput {
  return {
    name,
    ...(input.description !== undefined && { description: input.description }),
    required: input.isRequired === true,
    secret: input.isSecret === true,
    // A secret's default is not shown: a publisher may have put a sample key there.
    ...(input.default !== undefined && input.isSecret !== true && { default: input.default }),
    ...(input.choices !== undefined && { choices: input.choices }),
  };
}
