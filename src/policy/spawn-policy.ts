// What the operator allows mcpmux to run. add_server runs a command a model chose, so a
// harness can narrow it: only programs (and arguments) matching --allow-command, judged by
// the file that will really run, or nothing at run time (--no-runtime-add); every child
// starts from a minimal environment (the variables the SDK deems safe, plus --pass-env
// names) unless --inherit-env; its cwd stays under --root; under --allow-command a runtime
// add may set no variable that changes what a program loads (loader-variables.ts) unless
// --allow-env admits it; and each spawn leaves one audit line on stderr with the real path
// it ran (never an env value).
import { isAbsolute, relative, resolve } from 'node:path';
import { ChildProcess, type SpawnSpec } from '../child/process/child-process.js';
import {
  wantsSandbox,
  type SandboxMode,
  type SandboxSetting,
  type SandboxSummary,
} from '../child/sandbox-setting.js';
import { MuxError } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { ServerSpec, StdioServerSpec } from '../child/server-spec.js';
import { compileGlob } from '../common/glob-matcher.js';
import { compileCommandPattern, type CommandPattern, type RegistryPackage } from './command-pattern.js';
import { launchRefusal } from './launch-check.js';
import { launchParts, runnerOf } from './package-launch.js';
import { runnerSettingsIn } from './runner-config.js';
import { loaderVariable } from './loader-variables.js';
import { realPathOf, resolveCommand, type ResolvedCommand } from './command-resolver.js';

/** A local server's spec, with what every spec may carry (the registry entry it came from). */
type LocalSpec = Extract<ServerSpec, { transport: 'stdio' }>;

/**
 * Puts a launch inside the OS sandbox (sandbox/os-sandbox.ts is the one), declared here so
 * that policy/ needs nothing of sandbox/. Rejects with SANDBOX_UNAVAILABLE where there is none.
 */
export interface LaunchSandbox {
  wrap(
    name: string,
    spec: LocalSpec & { sandbox: SandboxSetting },
    launch: SpawnSpec,
  ): Promise<{ launch: SpawnSpec; summary: SandboxSummary; release(): void }>;
  /** Ends what the sandbox runs for its servers (its proxy), once they are stopped. */
  close(): Promise<void>;
}

export interface SpawnPolicyOptions {
  /**
   * Patterns the program of an add_server (and its build command) must match: a path glob
   * or a name found on mcpmux's PATH, optionally followed by argument patterns. Empty: any command.
   */
  allowCommands?: readonly string[];
  /**
   * Names (globs) of loader variables (loader-variables.ts) a runtime add may set under
   * --allow-command all the same. Default none.
   */
  allowEnv?: readonly string[];
  /** False: servers come only from the config and the command line. Default true. */
  runtimeAdd?: boolean;
  /** True: children get mcpmux's whole environment. Default false. */
  inheritEnv?: boolean;
  /** Names of variables passed on besides the SDK's safe list. */
  passEnv?: readonly string[];
  /** When set, a child's cwd must lie under it (and defaults to it). */
  root?: string;
  /** The environment children draw from (its PATH finds the programs that patterns name). Default process.env. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** mcpmux's own cwd: where relative paths resolve when a child has no cwd. Default process.cwd(). */
  cwd?: string;
  /** Which servers run sandboxed when their spec says nothing (--sandbox). Default off. */
  sandboxMode?: SandboxMode;
  /** The OS sandbox, for the servers that run in it. */
  sandbox?: LaunchSandbox;
  logger: Logger;
}

export class SpawnPolicy {
  readonly #options: SpawnPolicyOptions;
  readonly #patterns: readonly CommandPattern[];
  readonly #envAllowed: (name: string) => boolean;
  /** Every argument token of --allow-command: what a registry entry's launch may use when one names it. */
  readonly #operatorTokens: ReadonlySet<string>;
  readonly #baseEnv: Readonly<Record<string, string>>;
  readonly #root: string | undefined;
  readonly #cwd: string;

  constructor(options: SpawnPolicyOptions) {
    this.#options = options;
    this.#cwd = options.cwd ?? process.cwd();
    const ownPath = (options.environment ?? process.env)['PATH'];
    this.#patterns = (options.allowCommands ?? []).map((pattern) =>
      compileCommandPattern(pattern, { path: ownPath, cwd: this.#cwd }),
    );
    this.#operatorTokens = new Set(this.#patterns.flatMap((pattern) => pattern.argumentTokens));
    for (const pattern of this.#patterns) {
      if (pattern.problem)
        options.logger.warn(`--allow-command ${JSON.stringify(pattern.source)}: ${pattern.problem}`);
    }
    const allowEnv = options.allowEnv ?? [];
    this.#envAllowed = allowEnv.length > 0 ? compileGlob(allowEnv, { nocase: true, dot: true }) : () => false;
    this.#baseEnv = baseEnvironment(options);
    this.#root = options.root === undefined ? undefined : realPathOf(options.root);
  }

  /**
   * Refuses an add_server the operator did not allow; config servers are not checked. The
   * spec that comes back runs the program that was judged: its command (and build command)
   * is the absolute path found, so a later change of PATH or cwd cannot swap it.
   */
  admitRuntimeAdd<S extends ServerSpec>(name: string, spec: S): S {
    if (this.#options.runtimeAdd === false) {
      throw new MuxError(
        'NOT_ALLOWED',
        `add_server is turned off (mcpmux runs with --no-runtime-add): '${name}' can only come from mcpmux's config`,
      );
    }
    if (spec.registryEntry !== undefined && spec.transport === 'stdio') this.#admitRegistryLaunch(name, spec);
    // --sandbox: what the agent adds runs in the sandbox, at least the default profile.
    if (spec.transport === 'stdio' && (this.#options.sandboxMode ?? 'off') !== 'off') {
      if (spec.sandbox === false)
        throw new MuxError(
          'NOT_ALLOWED',
          `server '${name}' is not allowed without the OS sandbox: mcpmux runs every server added at run time in it ` +
            '(--sandbox). Leave "sandbox" out, or the operator runs it unsandboxed from the config ("sandbox": false)',
        );
      if (spec.watch?.build)
        throw new MuxError(
          'NOT_ALLOWED',
          `server '${name}' is not allowed a watch.build: a build runs outside the OS sandbox, in which mcpmux runs ` +
            'every server added at run time (--sandbox). Leave build out (watch.paths still restart it), or the operator ' +
            "gives it in mcpmux's config",
        );
      if (spec.sandbox === undefined) spec = { ...spec, sandbox: true };
    }
    if (this.#patterns.length === 0) return spec;
    if (spec.transport !== 'stdio') {
      throw new MuxError(
        'NOT_ALLOWED',
        `remote server '${name}' refused: mcpmux only runs commands matching --allow-command (${this.#allowedList()})`,
      );
    }
    this.#admitEnvironment(name, spec);
    const cwd = this.workingDirectory(name, spec) ?? this.#cwd;
    const command = this.#admitProgram(spec, spec.command, spec.args, cwd, 'command');
    const build = spec.watch?.build;
    const admittedBuild = build && {
      ...build,
      command: this.#admitProgram(spec, build.command, build.args, cwd, 'build command').path,
    };
    return {
      ...spec,
      command: command.path,
      ...(admittedBuild && { watch: { ...spec.watch, build: admittedBuild } }),
    };
  }

  /**
   * A registry entry's command is its publisher's, whatever the policy: options that widen a
   * container's reach or change where code comes from, and packages from anywhere but the
   * registry, run only where the operator's --allow-command names them.
   */
  #admitRegistryLaunch(name: string, spec: LocalSpec): void {
    const runner = runnerOf(spec.command, spec.command);
    if (!runner) return;
    const refusal = launchRefusal(launchParts(runner, spec.args), spec.args, this.#operatorTokens);
    if (refusal === undefined) return;
    throw new MuxError(
      'NOT_ALLOWED',
      `server '${name}' is not allowed: registry entry '${spec.registryEntry}' runs '${[spec.command, ...spec.args].join(' ')}', ` +
        `which gives ${refusal}. mcpmux runs that from a registry entry only where an --allow-command pattern names it ` +
        '(for example --allow-command "docker run -i --rm --network=host ...")',
    );
  }

  /** Refuses a variable that would change what the allowed program loads (its values are never shown). */
  #admitEnvironment(name: string, spec: LocalSpec): void {
    const refused = Object.keys(spec.env).flatMap((variable) => {
      const why = this.#envAllowed(variable) ? undefined : loaderVariable(variable);
      return why === undefined ? [] : [`${variable} (${why})`];
    });
    if (refused.length === 0) return;
    const from = spec.registryEntry === undefined ? 'its env' : `registry entry '${spec.registryEntry}'`;
    throw new MuxError(
      'NOT_ALLOWED',
      `server '${name}' is not allowed: ${from} sets ${refused.join('; ')}, which would let it run other code than the ` +
        `command --allow-command admits. Leave ${refused.length === 1 ? 'it' : 'them'} out, or the operator admits ` +
        `${refused.length === 1 ? 'it' : 'them'} by name with --allow-env NAME`,
    );
  }

  #admitProgram(
    spec: StdioServerSpec,
    command: string,
    args: readonly string[],
    cwd: string,
    what: string,
  ): ResolvedCommand {
    const path = this.#childPath(spec);
    const resolved = resolveCommand(command, { path, cwd });
    const line = [command, ...args].join(' ');
    if (!resolved) {
      const where = command.includes('/') ? `relative to ${cwd}` : "on the server's PATH";
      throw new MuxError(
        'NOT_ALLOWED',
        `${what} '${command}' is not allowed: no executable file '${command}' ${where} (allowed: ${this.#allowedList()})`,
      );
    }
    const runner = runnerOf(resolved.path, resolved.realPath);
    const settings = runner && runnerSettingsIn(runner, cwd, spec.env['HOME'] ?? this.#baseEnv['HOME']);
    if (settings)
      throw new MuxError(
        'NOT_ALLOWED',
        `${what} '${line}' is not allowed: it would start in ${cwd}, where ${runner} reads ${settings}, whose settings ` +
          `can change what it fetches and runs as the variables refused in env would. Under --allow-command a package ` +
          'runner starts only from a folder without one: remove it, or give another cwd',
      );
    const parts = runner ? launchParts(runner, args) : [];
    const ecosystem =
      runner === 'uvx' || runner === 'pipx' ? 'pypi' : runner === 'docker' ? undefined : 'npm';
    const packages = new Map<number, RegistryPackage>(
      parts.flatMap((part) =>
        part.kind === 'package' && part.form === 'registry' && ecosystem
          ? [[part.index, { ...part, ecosystem }]]
          : [],
      ),
    );
    let refusal: string | undefined;
    for (const pattern of this.#patterns) {
      if (!pattern.matches(resolved, args, cwd, packages)) continue;
      refusal = launchRefusal(parts, args, pattern.argumentTokens);
      if (refusal === undefined) return resolved;
    }
    const runs = resolved.realPath === command ? '' : ` (it runs ${resolved.realPath})`;
    // No pattern matched: still name a form or option that no pattern could have admitted as a glob.
    refusal ??= launchRefusal(parts, args, []);
    if (refusal !== undefined)
      throw new MuxError(
        'NOT_ALLOWED',
        `${what} '${line}'${runs} is not allowed: it gives ${refusal}, which --allow-command admits only where a ` +
          `pattern names that form or option itself (allowed: ${this.#allowedList()})`,
      );
    throw new MuxError(
      'NOT_ALLOWED',
      `${what} '${line}'${runs} is not allowed by --allow-command (allowed: ${this.#allowedList()})`,
    );
  }

  #allowedList(): string {
    return this.#patterns.map((p) => p.source).join(', ');
  }

  /** The PATH a child will search: its own env's, else the one it inherits. */
  #childPath(spec: StdioServerSpec): string | undefined {
    return spec.env['PATH'] ?? this.#baseEnv['PATH'];
  }

  /** The environment a child starts from; the spec's own env is added on top. */
  get baseEnv(): Readonly<Record<string, string>> {
    return this.#baseEnv;
  }

  /** The cwd a child runs in: under --root when it is set (and --root itself by default). */
  workingDirectory(name: string, spec: StdioServerSpec): string | undefined {
    const root = this.#root;
    if (root === undefined) return spec.cwd;
    if (spec.cwd === undefined) return root;
    const cwd = realPathOf(resolve(root, spec.cwd));
    const rel = relative(root, cwd);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      throw new MuxError('NOT_ALLOWED', `server '${name}': cwd '${spec.cwd}' is outside --root ${root}`);
    }
    return cwd;
  }

  /** Ends the OS sandbox's proxy, once every child is stopped. */
  async close(): Promise<void> {
    await this.#options.sandbox?.close();
  }

  /**
   * What an added server's own `sandbox` widens of the profile --sandbox imposes (writable
   * paths, reachable hosts): only the person may allow that. Undefined when it widens nothing,
   * or when no sandbox is imposed (one the agent asks for of its own accord only narrows).
   */
  sandboxWidening(spec: ServerSpec): { allowWrite: string[]; allowedDomains: string[] } | undefined {
    if ((this.#options.sandboxMode ?? 'off') === 'off' || spec.transport !== 'stdio') return undefined;
    const setting = spec.sandbox;
    if (typeof setting !== 'object') return undefined;
    const allowWrite = [...(setting.allowWrite ?? [])];
    const allowedDomains = [...(setting.allowedDomains ?? [])];
    return allowWrite.length + allowedDomains.length > 0 ? { allowWrite, allowedDomains } : undefined;
  }

  /** Whether a server runs in the OS sandbox, and how: its spec's `sandbox`, else --sandbox all's default. */
  sandboxOf(spec: ServerSpec): SandboxSetting | undefined {
    if (spec.transport !== 'stdio') return undefined;
    return spec.sandbox ?? (this.#options.sandboxMode === 'all' ? true : undefined);
  }

  /** Spawns a local server as this policy says (its cwd, its environment, its sandbox) and audits it. */
  async spawn(name: string, spec: LocalSpec): Promise<ChildProcess> {
    const cwd = this.workingDirectory(name, spec);
    const launch: SpawnSpec = {
      command: spec.command,
      args: spec.args,
      env: { ...this.#baseEnv, ...spec.env },
      ...(cwd !== undefined && { cwd }),
    };
    const setting = this.sandboxOf(spec);
    if (setting === undefined || !wantsSandbox(setting)) {
      const proc = await ChildProcess.spawn(launch);
      this.audit(name, spec, cwd, proc.pid);
      return proc;
    }
    if (!this.#options.sandbox)
      throw new MuxError(
        'SANDBOX_UNAVAILABLE',
        `server '${name}' asks for the OS sandbox, which this mcpmux has none of`,
      );
    // Its working folder is named, as the sandbox makes it writable.
    const sandboxed = await this.#options.sandbox.wrap(
      name,
      { ...spec, sandbox: setting },
      { ...launch, cwd: cwd ?? this.#cwd },
    );
    let proc: ChildProcess;
    try {
      proc = await ChildProcess.spawn(sandboxed.launch);
    } catch (error) {
      sandboxed.release();
      throw error;
    }
    proc.sandbox = sandboxed.summary;
    void proc.exited.then(() => sandboxed.release());
    this.audit(name, spec, cwd, proc.pid, sandboxed.summary);
    return proc;
  }

  /**
   * One line per spawn for the operator's audit: who, what (the real file too), where, in which
   * sandbox; never env values. The program named is the one inside the sandbox.
   */
  audit(name: string, spec: LocalSpec, cwd: string | undefined, pid: number, sandbox?: SandboxSummary): void {
    const envNames = Object.keys(spec.env);
    const real = resolveCommand(spec.command, {
      path: this.#childPath(spec),
      cwd: cwd ?? this.#cwd,
    })?.realPath;
    this.#options.logger.audit(
      `spawn server=${name} pid=${pid} command=${JSON.stringify(spec.command)}` +
        (real !== undefined ? ` path=${JSON.stringify(real)}` : '') +
        ` args=${JSON.stringify(spec.args)}` +
        (cwd !== undefined ? ` cwd=${JSON.stringify(cwd)}` : '') +
        (envNames.length > 0 ? ` env=${envNames.join(',')}` : '') +
        (spec.registryEntry !== undefined ? ` registry_entry=${JSON.stringify(spec.registryEntry)}` : '') +
        (sandbox
          ? ` sandbox=${sandbox.profile} writable=${JSON.stringify(sandbox.writable)} domains=${JSON.stringify(sandbox.domains)}`
          : ''),
    );
  }
}

/**
 * The variables a child inherits by default: the SDK's DEFAULT_INHERITED_ENV_VARS, written
 * out because importing them loads the SDK's client before the first child can be spawned
 * (test/policy/spawn-policy.test.ts checks that the two lists agree).
 */
export const INHERITED_ENV_VARS: readonly string[] =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'COMSPEC',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMDATA',
        'PROGRAMFILES',
        'PROGRAMFILES(X86)',
        'PROGRAMW6432',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'WINDIR',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

function baseEnvironment(options: SpawnPolicyOptions): Record<string, string> {
  const source = options.environment ?? process.env;
  const defined = Object.entries(source).filter((e): e is [string, string] => e[1] !== undefined);
  if (options.inheritEnv) return Object.fromEntries(defined);
  const names = new Set([...INHERITED_ENV_VARS, ...(options.passEnv ?? [])]);
  // Values that look like shell functions are what the SDK's own default leaves out too.
  return Object.fromEntries(defined.filter(([name, value]) => names.has(name) && !value.startsWith('()')));
}
