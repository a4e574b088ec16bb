// What a package runner's command line asks it to fetch and how: `npx`/`bunx` (npm specs, read
// by npm's own parser, npm-package-arg), `uvx`/`pipx run` (PyPI requirements), `docker run`
// (an image, and the flags that widen a container's reach). The spawn policy judges these
// parts as what they are rather than as text: a package's name against the pattern, its
// version part a registry version, range or tag, and everything that would fetch code from
// elsewhere (a folder, a tarball, git, a URL, an alias, another index) or give a container
// the host refused unless the pattern names that form itself.
import { createRequire } from 'node:module';
import type npaType from 'npm-package-arg';

// Loaded when an npm spec is first read: most runs judge none (and its graph is ~6 ms of a start).
let loadedNpa: typeof npaType | undefined;
const npa = (): typeof npaType =>
  (loadedNpa ??= createRequire(import.meta.url)('npm-package-arg') as typeof npaType);

/** One part of a launch that the policy judges: a package to fetch, or an option that changes what runs. */
export type LaunchPart =
  | {
      readonly kind: 'package';
      /** Where the argument stands in args. */
      readonly index: number;
      /** `registry` for a name with a registry version, range or tag; else where the code comes from. */
      readonly form: PackageForm;
      readonly name: string | undefined;
      /** The version part as written (`1.2.3`, `^1`, `latest`); '' when none. */
      readonly version: string;
    }
  | {
      readonly kind: 'option';
      readonly index: number;
      /** The option as written, without its value: `--registry`, `--privileged`, `-v`. */
      readonly option: string;
      /** What it does, for the refusal. */
      readonly why: string;
    };

export type PackageForm = 'registry' | 'local' | 'git' | 'url' | 'alias' | 'unreadable';

export type Runner = 'npx' | 'bunx' | 'uvx' | 'pipx' | 'docker';

/** The runner a program is, by the name it was found by or the file it really is (npx is npx-cli.js). */
export function runnerOf(path: string, realPath: string): Runner | undefined {
  for (const file of [path, realPath]) {
    const base = file.slice(file.lastIndexOf('/') + 1).replace(/\.(c|m)?js$/, '');
    if (base === 'npx' || base === 'npx-cli') return 'npx';
    if (base === 'bunx') return 'bunx';
    if (base === 'uvx') return 'uvx';
    if (base === 'pipx') return 'pipx';
    if (base === 'docker' || base === 'podman') return 'docker';
  }
  return undefined;
}

/** The parts of `args` the policy judges, for `runner`. */
export function launchParts(runner: Runner, args: readonly string[]): LaunchPart[] {
  switch (runner) {
    case 'npx':
    case 'bunx':
      return runnerParts(args, 0, NPX_OPTIONS, npmPackage);
    case 'uvx':
      return runnerParts(args, 0, UVX_OPTIONS, pypiPackage);
    case 'pipx':
      return args[0] === 'run' ? runnerParts(args, 1, PIPX_OPTIONS, pypiPackage) : [];
    case 'docker':
      return args[0] === 'run' ? dockerParts(args) : [];
  }
}

interface RunnerOptions {
  /** Options that change nothing of what is fetched or run. */
  readonly harmless: ReadonlySet<string>;
  /** Options whose value is a package spec to fetch. */
  readonly packages: ReadonlySet<string>;
  /** Options that take a value (the next argument, when not given with =). */
  readonly valued: ReadonlySet<string>;
  /** Why an option that is neither harmless nor a package is refused. */
  readonly why: (option: string) => string;
}

const NPX_OPTIONS: RunnerOptions = {
  harmless: new Set([
    '-y',
    '--yes',
    '--no',
    '-q',
    '--quiet',
    '--silent',
    '--bun',
    '--prefer-offline',
    '--prefer-online',
    '--offline',
  ]),
  packages: new Set(['-p', '--package']),
  valued: new Set(['-p', '--package', '-c', '--call', '-w', '--workspace']),
  why: (option) =>
    option === '-c' || option === '--call'
      ? 'it runs a shell command'
      : "it is one of npm's settings, which can change where packages come from or what runs them",
};

const UVX_OPTIONS: RunnerOptions = {
  harmless: new Set([
    '-q',
    '--quiet',
    '-v',
    '--verbose',
    '--offline',
    '--isolated',
    '--no-cache',
    '-n',
    '--refresh',
    '--no-progress',
    '--no-config',
  ]),
  packages: new Set(['--from', '--with', '-w']),
  valued: new Set([
    '--from',
    '--with',
    '-w',
    '--with-editable',
    '--with-requirements',
    '--index',
    '--index-url',
    '-i',
    '--extra-index-url',
    '--default-index',
    '--find-links',
    '-f',
    '--python',
    '-p',
    '--config-file',
    '--cache-dir',
  ]),
  why: () => 'it changes where the package comes from or which Python runs it',
};

const PIPX_OPTIONS: RunnerOptions = {
  harmless: new Set(['-q', '--quiet', '-v', '--verbose', '--no-cache']),
  packages: new Set(['--spec']),
  valued: new Set(['--spec', '--index-url', '-i', '--pip-args', '--python', '--path']),
  why: () => 'it changes where the package comes from or which Python runs it',
};

/**
 * A runner's options up to the first argument that is not one (the package, or with a
 * package option the program's name), which is the last judged: what follows goes to the
 * package.
 */
function runnerParts(
  args: readonly string[],
  from: number,
  options: RunnerOptions,
  readPackage: (spec: string, index: number) => LaunchPart,
): LaunchPart[] {
  const parts: LaunchPart[] = [];
  let packageGiven = false;
  for (let i = from; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      if (!packageGiven && args[i + 1] !== undefined) parts.push(readPackage(args[i + 1]!, i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      if (!packageGiven) parts.push(readPackage(arg, i));
      break;
    }
    const eq = arg.indexOf('=');
    const option = eq === -1 ? arg : arg.slice(0, eq);
    const valueAt = eq === -1 && options.valued.has(option) ? ++i : undefined;
    const value = eq === -1 ? (valueAt === undefined ? undefined : args[valueAt]) : arg.slice(eq + 1);
    if (options.packages.has(option) && value !== undefined) {
      parts.push(readPackage(value, valueAt ?? i));
      packageGiven = true;
    } else if (!options.harmless.has(option)) {
      parts.push({
        kind: 'option',
        index: valueAt === undefined ? i : valueAt - 1,
        option,
        why: options.why(option),
      });
    }
  }
  return parts;
}

/** An npm spec, as npm itself reads it. */
function npmPackage(spec: string, index: number): LaunchPart {
  let parsed: npaType.Result;
  try {
    parsed = npa()(spec);
  } catch {
    return { kind: 'package', index, form: 'unreadable', name: undefined, version: '' };
  }
  const forms: Record<string, PackageForm> = {
    version: 'registry',
    range: 'registry',
    tag: 'registry',
    file: 'local',
    directory: 'local',
    git: 'git',
    remote: 'url',
    alias: 'alias',
  };
  const form = forms[parsed.type] ?? 'unreadable';
  const version = form === 'registry' && /@[^/]*$/.test(spec.slice(1)) ? (parsed.rawSpec ?? '') : '';
  return { kind: 'package', index, form, name: parsed.name ?? undefined, version };
}

/**
 * A PyPI requirement as uvx and pipx take it: `name`, `name[extra]`, `name==1.0` (or another
 * version specifier), `name@1.0`; anything else (a path, a wheel, `name @ URL`, git+…) is not
 * from the index.
 */
function pypiPackage(spec: string, index: number): LaunchPart {
  const match =
    /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(\[[A-Za-z0-9._,-]+\])?((?:===?|~=|!=|<=?|>=?|@)[A-Za-z0-9.*+!,<>=~_-]*)?$/.exec(
      spec,
    );
  if (match)
    return {
      kind: 'package',
      index,
      form: 'registry',
      name: match[1],
      version: (match[3] ?? '').replace(/^(===?|@)/, ''),
    };
  return { kind: 'package', index, form: formOfText(spec), name: undefined, version: '' };
}

/** Where a spec that is not a registry one fetches from, read from its text. */
export function formOfText(spec: string): PackageForm {
  if (/^(git\+|git:|github:|gitlab:|bitbucket:|gist:)|\.git(#|$)/.test(spec)) return 'git';
  if (/(^|@|\s)https?:/.test(spec)) return 'url';
  if (/(^|@)npm:/.test(spec)) return 'alias';
  if (/(^|@)(file|link):|^[./~]|\.(tgz|tar|tar\.gz|whl|zip)$/.test(spec)) return 'local';
  return 'registry';
}

/** docker run's options that take no value. */
const DOCKER_FLAGS = new Set([
  '-i',
  '--interactive',
  '-t',
  '--tty',
  '-d',
  '--detach',
  '--rm',
  '--init',
  '--read-only',
  '-P',
  '--publish-all',
  '-q',
  '--quiet',
  '--no-healthcheck',
  '--oom-kill-disable',
  '--privileged',
]);

/** docker run's options that give a container more of the host than its image and its own namespaces. */
const DOCKER_REACH: Record<string, string | ((value: string) => string | undefined)> = {
  '--privileged': 'it gives the container every device and capability of the host',
  '-v': 'it mounts a host path or volume into the container',
  '--volume': 'it mounts a host path or volume into the container',
  '--mount': 'it mounts a host path or volume into the container',
  '--volumes-from': "it mounts another container's volumes",
  '--env-file': "it reads a file of the host's into the container's environment",
  '--cap-add': 'it gives the container a capability of the host',
  '--device': 'it gives the container a device of the host',
  '--device-cgroup-rule': 'it gives the container devices of the host',
  '--gpus': 'it gives the container devices of the host',
  '--security-opt': "it changes the container's confinement",
  '--sysctl': "it changes the kernel's settings for the container",
  '--runtime': 'it chooses another container runtime',
  '--group-add': 'it adds the container to groups of the host',
  '--network': sharedNamespace('network'),
  '--net': sharedNamespace('network'),
  '--pid': sharedNamespace('process table'),
  '--ipc': sharedNamespace('IPC namespace'),
  '--uts': sharedNamespace('host name'),
  '--userns': sharedNamespace('user namespace'),
  '--cgroupns': sharedNamespace('cgroup namespace'),
};

function sharedNamespace(what: string): (value: string) => string | undefined {
  return (value) =>
    value === 'host' || value.startsWith('container:')
      ? `it shares the ${value === 'host' ? 'host' : 'other container'}'s ${what} with the container`
      : undefined;
}

/** `docker run`'s options up to the image, and the image. */
function dockerParts(args: readonly string[]): LaunchPart[] {
  const parts: LaunchPart[] = [];
  const judge = (option: string, value: string, index: number) => {
    const reach = DOCKER_REACH[option];
    const why = typeof reach === 'function' ? reach(value) : reach;
    if (why !== undefined) parts.push({ kind: 'option', index, option, why });
  };
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      parts.push({ kind: 'package', index: i, form: 'registry', name: arg, version: '' });
      break;
    }
    if (arg === '--') continue;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const option = eq === -1 ? arg : arg.slice(0, eq);
      const takesNext = eq === -1 && !DOCKER_FLAGS.has(option);
      judge(option, eq !== -1 ? arg.slice(eq + 1) : takesNext ? (args[i + 1] ?? '') : '', i);
      if (takesNext) i++;
      continue;
    }
    // Short options as docker's flag parser reads them: flags together (-it), and the first that
    // takes a value takes the rest of the word (-v/:/host, -itv/:/host, -e=X) or the next word.
    for (let at = 1; at < arg.length; at++) {
      const option = `-${arg[at]}`;
      if (DOCKER_FLAGS.has(option)) continue;
      const rest = arg.slice(at + 1).replace(/^=/, '');
      judge(option, rest !== '' ? rest : (args[i + 1] ?? ''), i);
      if (rest === '') i++;
      break;
    }
  }
  return parts;
}
