// What the operator allows mcpmux to run. add_server runs a command a model chose, so a
// harness can narrow it: only commands matching --allow-command, or nothing at run time
// (--no-runtime-add); every child starts from a minimal environment (the variables the
// SDK deems safe, plus --pass-env names) unless --inherit-env; its cwd stays under --root;
// and each spawn leaves one audit line on stderr (never an env value).
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/sdk/client/stdio.js';
import picomatch from 'picomatch';
import { MuxError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ServerSpec, StdioServerSpec } from '../server-spec.js';

export interface SpawnPolicyOptions {
  /** Globs a command given to add_server must match (as given, or its base name). Empty: any command. */
  allowCommands?: readonly string[];
  /** False: servers come only from the config and the command line. Default true. */
  runtimeAdd?: boolean;
  /** True: children get mcpmux's whole environment. Default false. */
  inheritEnv?: boolean;
  /** Names of variables passed on besides the SDK's safe list. */
  passEnv?: readonly string[];
  /** When set, a child's cwd must lie under it (and defaults to it). */
  root?: string;
  /** The environment children draw from. Default process.env. */
  environment?: Readonly<Record<string, string | undefined>>;
  logger: Logger;
}

export class SpawnPolicy {
  readonly #options: SpawnPolicyOptions;
  readonly #matchers: ReadonlyArray<(command: string) => boolean>;
  readonly #baseEnv: Readonly<Record<string, string>>;
  readonly #root: string | undefined;

  constructor(options: SpawnPolicyOptions) {
    this.#options = options;
    this.#matchers = (options.allowCommands ?? []).map((pattern) => picomatch(pattern, { dot: true }));
    this.#baseEnv = baseEnvironment(options);
    this.#root = options.root === undefined ? undefined : realpathOrResolved(options.root);
  }

  /** Refuses an add_server the operator did not allow; config servers are not checked. */
  admitRuntimeAdd(name: string, spec: ServerSpec): void {
    if (this.#options.runtimeAdd === false) {
      throw new MuxError('NOT_ALLOWED', `add_server is turned off (mcpmux runs with --no-runtime-add): '${name}' can only come from mcpmux's config`);
    }
    if (this.#matchers.length === 0) return;
    const allowed = (this.#options.allowCommands ?? []).join(', ');
    if (spec.transport !== 'stdio') {
      throw new MuxError('NOT_ALLOWED', `remote server '${name}' refused: mcpmux only runs commands matching --allow-command (${allowed})`);
    }
    const base = spec.command.split('/').pop() ?? spec.command;
    if (!this.#matchers.some((matches) => matches(spec.command) || matches(base))) {
      throw new MuxError('NOT_ALLOWED', `command '${spec.command}' is not allowed by --allow-command (allowed: ${allowed})`);
    }
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
    const cwd = realpathOrResolved(resolve(root, spec.cwd));
    const rel = relative(root, cwd);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      throw new MuxError('NOT_ALLOWED', `server '${name}': cwd '${spec.cwd}' is outside --root ${root}`);
    }
    return cwd;
  }

  /** One line per spawn for the operator's audit: who, what, where; never env values. */
  audit(name: string, spec: StdioServerSpec, cwd: string | undefined, pid: number): void {
    const envNames = Object.keys(spec.env);
    this.#options.logger.audit(
      `spawn server=${name} pid=${pid} command=${JSON.stringify(spec.command)} args=${JSON.stringify(spec.args)}` +
        (cwd !== undefined ? ` cwd=${JSON.stringify(cwd)}` : '') +
        (envNames.length > 0 ? ` env=${envNames.join(',')}` : ''),
    );
  }
}

function baseEnvironment(options: SpawnPolicyOptions): Record<string, string> {
  const source = options.environment ?? process.env;
  const defined = Object.entries(source).filter((e): e is [string, string] => e[1] !== undefined);
  if (options.inheritEnv) return Object.fromEntries(defined);
  const names = new Set([...DEFAULT_INHERITED_ENV_VARS, ...(options.passEnv ?? [])]);
  // Values that look like shell functions are what the SDK's own default leaves out too.
  return Object.fromEntries(defined.filter(([name, value]) => names.has(name) && !value.startsWith('()')));
}

function realpathOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
