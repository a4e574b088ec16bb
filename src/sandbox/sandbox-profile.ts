// What one server's sandbox allows, worked out from its setting: the default profile (read the
// system, write only its working folder and a private folder, never read credentials, reach no
// host) widened by what its `sandbox` object lists. Pure but for the folders it names; the
// OS sandbox (os-sandbox.ts) applies it.
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { SandboxSetting } from '../child/sandbox-setting.js';
import { cacheDir, stateDir } from '../common/state-dir.js';
import { runnerOf } from '../policy/package-launch.js';

/**
 * Read by no sandboxed server, relative to the home folder: keys and tokens of the tools that keep
 * them there, shell and REPL histories (commands carry secrets), browser profiles (cookies,
 * saved passwords), and the files where MCP clients keep servers' keys.
 */
export const CREDENTIAL_PATHS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  '.config/gh',
  '.config/hub',
  '.terraform.d',
  '.vault-token',
  '.pgpass',
  '.my.cnf',
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.sh_history',
  '.history',
  '.local/share/fish',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.mozilla',
  'snap/firefox',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Application Support/BraveSoftware',
  'Library/Application Support/Microsoft Edge',
  'Library/Safari',
  'Library/Cookies',
  'Library/Keychains',
  '.claude.json',
  '.claude/.credentials.json',
  '.config/Claude',
  'Library/Application Support/Claude',
  '.cursor',
  '.codeium',
  '.gemini',
  '.codex',
  '.config/opencode',
  '.config/Code/User',
  'Library/Application Support/Code/User',
  '.config/mcpmux',
];

/**
 * Never written in a folder a server may write: what a shell, git or an editor runs or obeys
 * later, outside the sandbox (the library protects these below mcpmux's own working folder;
 * these are its names, applied to each folder the server may write).
 */
const PROTECTED_NAMES: readonly string[] = [
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.gitconfig',
  '.gitmodules',
  '.ripgreprc',
  '.mcp.json',
  '.git/hooks',
  '.git/config',
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
  '.claude/settings.json',
  '.claude/settings.local.json',
];

/** Where a package runner fetches what it runs from: reachable by a sandboxed runner, so it can install. */
const PACKAGE_REGISTRIES: Readonly<Record<'npm' | 'pypi', readonly string[]>> = {
  npm: ['registry.npmjs.org'],
  pypi: ['pypi.org', 'files.pythonhosted.org'],
};

export interface SandboxProfile {
  /** Absolute paths it may write. */
  readonly allowWrite: readonly string[];
  /** Absolute paths it may not write inside those it may (PROTECTED_NAMES in each). */
  readonly denyWrite: readonly string[];
  /** Absolute paths it may not read. */
  readonly denyRead: readonly string[];
  /** Paths read again inside a denied one (its own private folder, inside every server's). */
  readonly allowRead: readonly string[];
  /** Hosts it may reach through the sandbox's proxy. */
  readonly allowedDomains: readonly string[];
  /** Its own folder: temporary files and package caches, kept across restarts, read by no other server. */
  readonly privateDir: string;
  /** Emptied at each start; its TMPDIR. */
  readonly tmpDir: string;
  /** Variables it starts with (caches in its private folder). */
  readonly env: Readonly<Record<string, string>>;
  /** Whether its working folder was left read-only (it is /, the home folder or above it). */
  readonly cwdReadOnly: boolean;
  /**
   * Folders it would write that lie in one it may not read (a working folder of ~/.ssh): the
   * sandbox would show them to it, so it does not start.
   */
  readonly writesHidden: readonly string[];
}

export interface ProfileInput {
  readonly name: string;
  readonly setting: SandboxSetting;
  readonly command: string;
  /** Its working folder (absolute). */
  readonly cwd: string;
  /** The environment mcpmux itself runs with: where its own state and config are. */
  readonly ownEnv?: Readonly<Record<string, string | undefined>>;
  /** The environment it starts with: its home, and a package registry other than the public one. */
  readonly childEnv?: Readonly<Record<string, string>> | undefined;
  /** mcpmux's config file, when it has one (it may hold servers' keys). */
  readonly configPath?: string | undefined;
}

/** Every server's private folder lies here; each may read only its own. */
export const sandboxesDir = (env?: Readonly<Record<string, string | undefined>>): string =>
  cacheDir('sandboxes', env);

export function sandboxProfile(input: ProfileInput): SandboxProfile {
  const setting = typeof input.setting === 'object' ? input.setting : {};
  const ownEnv = input.ownEnv ?? process.env;
  const childHome = input.childEnv?.['HOME'];
  const homes = [...new Set([ownEnv['HOME'] || homedir(), ...(childHome ? [childHome] : [])])];
  const privateDir = join(sandboxesDir(ownEnv), input.name);
  const tmpDir = join(privateDir, 'tmp');
  const cwdReadOnly = homes.some((home) => holdsHome(input.cwd, home));
  const at = (path: string) => resolve(input.cwd, expandHome(path, homes[0] ?? homedir()));
  const denyRead = [
    ...homes.flatMap((home) => CREDENTIAL_PATHS.map((path) => join(home, path))),
    // mcpmux's own state: kept secrets, OAuth tokens, pins, held records; and every server's private folder.
    stateDir('', ownEnv).replace(/\/$/, ''),
    sandboxesDir(ownEnv),
    ...(input.configPath ? [resolve(input.configPath)] : []),
    ...(setting.denyRead ?? []).map(at),
  ];
  const runner = runnerOf(input.command, input.command);
  const ecosystem =
    runner === undefined || runner === 'docker'
      ? undefined
      : runner === 'uvx' || runner === 'pipx'
        ? 'pypi'
        : 'npm';
  const registry = ecosystem === undefined ? [] : registryHosts(ecosystem, input.childEnv ?? {});
  const ownCwd = cwdReadOnly ? [] : [input.cwd];
  const extra = (setting.allowWrite ?? []).map(at);
  return {
    allowWrite: [...ownCwd, privateDir, ...extra],
    denyWrite: [...ownCwd, ...extra].flatMap((folder) => PROTECTED_NAMES.map((name) => join(folder, name))),
    denyRead,
    allowRead: [privateDir],
    allowedDomains: [...new Set([...registry, ...(setting.allowedDomains ?? [])])],
    privateDir,
    tmpDir,
    env: {
      npm_config_cache: join(privateDir, 'npm'),
      XDG_CACHE_HOME: join(privateDir, 'cache'),
    },
    cwdReadOnly,
    writesHidden: [...ownCwd, ...extra].filter((folder) =>
      denyRead.some((denied) => isWithin(folder, denied)),
    ),
  };
}

/** Whether `path` is `folder` or lies inside it. */
function isWithin(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Where a runner of `ecosystem` installs from: the registry its environment names (npm's
 * npm_config_registry, uv's and pip's index URL), else the public one.
 */
function registryHosts(ecosystem: 'npm' | 'pypi', env: Readonly<Record<string, string>>): readonly string[] {
  const named =
    ecosystem === 'npm'
      ? (env['npm_config_registry'] ?? env['NPM_CONFIG_REGISTRY'])
      : (env['UV_INDEX_URL'] ?? env['UV_DEFAULT_INDEX'] ?? env['PIP_INDEX_URL']);
  const host = named !== undefined && URL.canParse(named) ? new URL(named).host : undefined;
  return host ? [host] : PACKAGE_REGISTRIES[ecosystem];
}

/** Whether `folder` is the home folder or holds it (/ does): too much to let a server write. */
function holdsHome(folder: string, home: string): boolean {
  return isWithin(home, folder);
}

function expandHome(path: string, home: string): string {
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}
