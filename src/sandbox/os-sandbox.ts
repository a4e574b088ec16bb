// The OS sandbox a server's process runs in, built on Anthropic's sandbox-runtime library:
// bubblewrap on Linux (its own mount, pid and network namespaces; seccomp), sandbox-exec on
// macOS. One per mcpmux, started when the first server asks for it: the library's proxy then
// runs inside mcpmux and admits, for each server, only the hosts its profile lists (the proxy
// knows a connection's server by an unguessable id in the proxy address that server was given).
// Where the sandbox cannot be had, a server that asked for one does not start: never a silent
// run without it.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import type { SpawnSpec } from '../child/process/child-process.js';
import { ChildProcess, endWithMcpmux } from '../child/process/child-process.js';
import type { StdioServerSpec } from '../child/server-spec.js';
import type { SandboxSetting, SandboxSummary } from '../child/sandbox-setting.js';
import { PROCESS_TAGS_VARIABLE } from '../child/process/process-tags.js';
import { MuxError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { LaunchSandbox } from '../policy/spawn-policy.js';
import { sandboxProfile, type SandboxProfile } from './sandbox-profile.js';

type Runtime = typeof import('@anthropic-ai/sandbox-runtime');
type Manager = Runtime['SandboxManager'];

/** A launch turned into the sandboxed one, and what to undo when its process has ended. */
export interface SandboxedLaunch {
  readonly launch: SpawnSpec;
  readonly summary: SandboxSummary;
  release(): void;
}

export interface OsSandboxOptions {
  logger: Logger;
  /** mcpmux's config file, read by no sandboxed server (it may hold keys). */
  configPath?: string | undefined;
}

const PRELOAD = new URL(
  `./env-proxy-preload${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/** What to install where the library finds something missing (its own words follow). */
const INSTALL_HINT: Readonly<Record<string, string>> = {
  linux:
    'install bubblewrap, socat and ripgrep (Debian/Ubuntu: apt-get install bubblewrap socat ripgrep; Fedora: dnf install bubblewrap socat ripgrep)',
  darwin: 'install ripgrep (brew install ripgrep); sandbox-exec is part of macOS',
};

export class OsSandbox implements LaunchSandbox {
  readonly #logger: Logger;
  readonly #configPath: string | undefined;
  #manager: Promise<Manager> | undefined;
  /** IP literals servers list: the runtime exempts a name resolving to one only when the whole proxy allows it. */
  readonly #literals = new Map<string, number>();

  constructor(options: OsSandboxOptions) {
    this.#logger = options.logger;
    this.#configPath = options.configPath;
  }

  /**
   * `launch` (its cwd given) as it runs inside the sandbox its spec asks for: the same program,
   * environment and folder, behind bubblewrap. Rejects with SANDBOX_UNAVAILABLE, saying what to
   * install or change, when the sandbox cannot be had here.
   */
  async wrap(
    name: string,
    spec: StdioServerSpec & { sandbox: SandboxSetting },
    launch: SpawnSpec,
  ): Promise<SandboxedLaunch> {
    const profile = sandboxProfile({
      name,
      setting: spec.sandbox,
      command: spec.command,
      cwd: launch.cwd ?? process.cwd(),
      childEnv: launch.env,
      configPath: this.#configPath,
    });
    if (profile.writesHidden.length > 0)
      throw new MuxError(
        'NOT_ALLOWED',
        `server '${name}' would write ${profile.writesHidden.join(', ')}, which its sandbox hides (credentials, or ` +
          "mcpmux's own state): give it another cwd, or leave that folder out of allowWrite",
      );
    if (profile.cwdReadOnly)
      this.#logger.info(
        `sandbox: server '${name}' runs in ${launch.cwd}, which holds the home folder: it stays read-only`,
      );
    return this.#wrap(name, launch, profile, {
      profile: spec.sandbox === true ? 'default' : 'widened',
      writable: profile.allowWrite,
      domains: profile.allowedDomains,
    });
  }

  async #wrap(
    name: string,
    launch: SpawnSpec,
    profile: SandboxProfile,
    summary: SandboxSummary,
  ): Promise<SandboxedLaunch> {
    const manager = await this.#ready().catch((error: unknown) => {
      throw new MuxError(
        'SANDBOX_UNAVAILABLE',
        `server '${name}' asks for the OS sandbox, which cannot be had here: ${messageOf(error)}. ` +
          'It was not started. Give it "sandbox": false to run it without one',
        { cause: error },
      );
    });
    preparePrivateDir(profile);
    const commandId = randomBytes(16).toString('base64url');
    const literals = profile.allowedDomains.filter(isAddressLiteral);
    for (const literal of literals) this.#literals.set(literal, (this.#literals.get(literal) ?? 0) + 1);
    if (literals.length > 0) this.#applyLiterals(manager);
    manager.registerCommandNetworkLists(commandId, { allowedDomains: [...profile.allowedDomains] });
    const release = () => {
      manager.unregisterCommandNetworkLists(commandId);
      for (const literal of literals) this.#literals.set(literal, (this.#literals.get(literal) ?? 1) - 1);
      if (literals.length > 0) this.#applyLiterals(manager);
      manager.cleanupAfterCommand();
    };
    try {
      const { argv } = await manager.wrapWithSandboxArgv(
        shellCommand(launch, profile),
        undefined,
        {
          filesystem: {
            allowWrite: [...profile.allowWrite],
            denyRead: [...profile.denyRead],
            allowRead: [...profile.allowRead],
            // Only what is there: bubblewrap would leave an empty file on the host for each name that is not.
            denyWrite: profile.denyWrite.filter((path) => existsSync(path)),
          },
        },
        undefined,
        launch.cwd,
        { commandId, commandText: [launch.command, ...launch.args].join(' ') },
      );
      const [command, ...args] = argv;
      if (command === undefined) throw new Error('the sandbox gave no command to run');
      return {
        launch: {
          ...launch,
          command,
          args,
          env: { ...launch.env, ...networkEnv(launch.env, profile), ...notTopShell(launch.env) },
        },
        summary,
        release,
      };
    } catch (error) {
      release();
      if (error instanceof MuxError) throw error;
      throw new MuxError(
        'SANDBOX_UNAVAILABLE',
        `server '${name}': the sandbox could not be set up: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  /** Stops the sandbox's proxy and its helpers (the servers in it are stopped before). */
  async close(): Promise<void> {
    const manager = this.#manager;
    this.#manager = undefined;
    if (manager) await (await manager.catch(() => undefined))?.reset();
  }

  /**
   * Starts the sandbox now, where servers will ask for it (--sandbox), so that the first of
   * them does not wait for the library and its proxy (~0.5 s); where it cannot be had, the
   * operator is told now, and each server that asks is told again.
   */
  warm(): void {
    this.#ready().catch((error: unknown) =>
      this.#logger.warn(`--sandbox: the OS sandbox cannot be had here: ${messageOf(error)}`),
    );
  }

  /** The started sandbox; a failed start is tried again by the next that asks (something may have been installed). */
  #ready(): Promise<Manager> {
    this.#manager ??= this.#start();
    return this.#manager.catch((error: unknown) => {
      this.#manager = undefined;
      throw error;
    });
  }

  async #start(): Promise<Manager> {
    const platform = process.platform;
    if (platform !== 'linux' && platform !== 'darwin')
      throw new Error(
        `mcpmux sandboxes servers on Linux (bubblewrap) and macOS (sandbox-exec), not on ${platform}`,
      );
    const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
    const found = SandboxManager.checkDependencies();
    if (found.errors.length > 0) throw new Error(`${found.errors.join('; ')}; ${INSTALL_HINT[platform]}`);
    for (const warning of found.warnings) this.#logger.warn(`sandbox: ${warning}`);
    // The proxy's helpers (socat bridges) start with mcpmux's environment: a tag put there first
    // lets the reaper end them with mcpmux, SIGKILL included.
    const helperTag = randomUUID();
    const inherited = process.env[PROCESS_TAGS_VARIABLE]?.trim();
    process.env[PROCESS_TAGS_VARIABLE] = inherited ? `${inherited} ${helperTag}` : helperTag;
    endWithMcpmux(helperTag);
    // The library ends its proxy on SIGINT and SIGTERM; mcpmux drains on those first (its
    // sandboxed servers still answering) and ends the sandbox after its servers (close).
    const signalListeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
    await SandboxManager.initialize({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      for (const listener of process.listeners(signal))
        if (!signalListeners[signal].includes(listener)) process.removeListener(signal, listener);
    try {
      await probe(SandboxManager);
    } catch (error) {
      await SandboxManager.reset();
      throw error;
    }
    this.#logger.info(`sandbox: ready (${platform === 'linux' ? 'bubblewrap' : 'sandbox-exec'})`);
    return SandboxManager;
  }

  #applyLiterals(manager: Manager): void {
    const listed = [...this.#literals].filter(([, count]) => count > 0).map(([literal]) => literal);
    const config = manager.getConfig();
    if (!config) return;
    manager.updateConfig({ ...config, network: { ...config.network, allowedDomains: listed } });
  }
}

/**
 * Runs `true` in the sandbox once: where user namespaces are refused (a kernel setting, an
 * AppArmor rule, a container without the capability) bubblewrap fails here, with its reason,
 * rather than at each server's start with nothing but an exit code.
 */
async function probe(manager: Manager): Promise<void> {
  const { argv } = await manager.wrapWithSandboxArgv('true', undefined, {
    filesystem: { allowWrite: [], denyRead: [], denyWrite: [] },
  });
  const [command, ...args] = argv;
  if (command === undefined) throw new Error('the sandbox gave no command to run');
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const proc = await ChildProcess.spawn({ command, args, env: { ...env, ...notTopShell(env) } });
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  proc.stdout.resume();
  const exit = await proc.exited;
  await proc.stop({ stdinGraceMs: 0 });
  manager.cleanupAfterCommand();
  if (exit.code !== 0)
    throw new Error(
      `a test run in the sandbox failed (${stderr.trim().split('\n').slice(-3).join(' ') || `exit ${String(exit.code ?? exit.signal)}`}); ` +
        "user namespaces may be refused here (kernel.unprivileged_userns_clone=0, Ubuntu's kernel.apparmor_restrict_unprivileged_userns=1, or a container without CAP_SYS_ADMIN/CAP_SETFCAP)",
    );
}

/**
 * The command line bubblewrap's shell runs: its private TMPDIR set there (the sandbox sets its
 * own shared one after the environment), then the program itself, each word quoted.
 */
function shellCommand(launch: SpawnSpec, profile: SandboxProfile): string {
  return `TMPDIR=${quote(profile.tmpDir)} exec ${[launch.command, ...launch.args].map(quote).join(' ')}`;
}

/** Caches in its private folder, and, when it may reach a host, Node's fetch told to use the proxy. */
function networkEnv(env: Readonly<Record<string, string>>, profile: SandboxProfile): Record<string, string> {
  if (profile.allowedDomains.length === 0) return { ...profile.env };
  // Node 22 warns that the agent behind NODE_USE_ENV_PROXY is experimental, on every start: not the server's words.
  const preload = `--import=${PRELOAD.href} --disable-warning=UNDICI-EHPA`;
  return {
    ...profile.env,
    NODE_USE_ENV_PROXY: '1',
    NODE_OPTIONS: env['NODE_OPTIONS'] ? `${env['NODE_OPTIONS']} ${preload}` : preload,
  };
}

/**
 * The sandbox is entered through bash (bash -c bwrap …, and bash -c inside), whose stdin is a
 * socket (Node's pipes are socketpairs): a top-level bash takes that for rshd and runs the
 * user's ~/.bashrc (hundreds of ms with pyenv or nvm, and their words on stderr). A shell level
 * of 1 says it is not the top one.
 */
function notTopShell(env: Readonly<Record<string, string>>): Record<string, string> {
  return Number(env['SHLVL'] ?? 0) >= 1 ? {} : { SHLVL: '1' };
}

/** Its private folder, made if missing (0700), with an empty temporary folder for this start. */
function preparePrivateDir(profile: SandboxProfile): void {
  mkdirSync(profile.privateDir, { recursive: true, mode: 0o700 });
  rmSync(profile.tmpDir, { recursive: true, force: true });
  mkdirSync(profile.tmpDir, { mode: 0o700 });
}

/** A word as POSIX sh reads it back unchanged. */
const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/** 127.0.0.1, 127.0.0.1:8080, [::1], [::1]:443. */
function isAddressLiteral(entry: string): boolean {
  const host = entry.startsWith('[') ? entry.slice(1, entry.indexOf(']')) : entry.replace(/:\d+$/, '');
  return isIP(host) !== 0;
}
