// One --allow-command pattern: a program, then optionally its arguments, split on spaces
// (`npx -y @modelcontextprotocol/*`, `node /opt/mcp/** ...`). The program is judged by the
// real file that will run: a path pattern is matched against it after every symlink is
// followed; a bare name stands for the file(s) that name finds on mcpmux's own PATH when
// the pattern is compiled, never for any file that happens to carry the name. Where the program
// is a package runner (npx, uvx, docker run…), an argument that names a package from the
// registry is matched by its name and version, as package-launch.ts reads them.
import { readdirSync } from 'node:fs';
import { delimiter, resolve } from 'node:path';
import { compileGlob, scanGlob } from '../common/glob-matcher.js';
import { realPathOf, resolveCommand, type CommandLookup, type ResolvedCommand } from './command-resolver.js';
import type { LaunchPart } from './package-launch.js';

/** A final argument token that allows any further arguments. */
export const MORE_ARGUMENTS = '...';

export interface CommandPattern {
  readonly source: string;
  /** Why the pattern can match nothing on this machine (reported at start), if it cannot. */
  readonly problem: string | undefined;
  /** The argument tokens, `...` left out: what names an option or a package's form explicitly. */
  readonly argumentTokens: readonly string[];
  /**
   * Whether this program, run with these arguments from `cwd`, is allowed. `packages` are the
   * registry packages among the arguments (by index): their token matches name and version.
   */
  matches(
    program: ResolvedCommand,
    args: readonly string[],
    cwd: string,
    packages?: ReadonlyMap<number, RegistryPackage>,
  ): boolean;
}

/** A package from a registry, as a runner's argument names it. */
export type RegistryPackage = Extract<LaunchPart, { kind: 'package' }> & {
  readonly ecosystem: 'npm' | 'pypi';
};

/** `lookup` is mcpmux's own PATH and cwd, where bare names and relative patterns are found. */
export function compileCommandPattern(source: string, lookup: CommandLookup): CommandPattern {
  const [program = '', ...argTokens] = source.trim().split(/\s+/);
  const rest = argTokens.at(-1) === MORE_ARGUMENTS;
  if (rest) argTokens.pop();
  const programMatches = program.includes('/')
    ? pathMatcher(program, lookup.cwd)
    : nameMatcher(program, lookup);
  const argMatchers = argTokens.map((token) => argumentMatcher(token));
  const packageMatchers = argTokens.map((token) => ({
    npm: packageMatcher(token, 'npm'),
    pypi: packageMatcher(token, 'pypi'),
  }));
  // No argument tokens: any arguments (an interpreter allowed so runs any code; docs/security.md says so).
  const exactArity = argTokens.length > 0 && !rest;
  return {
    source,
    problem: programMatches.problem,
    argumentTokens: argTokens,
    matches(resolved, args, cwd, packages) {
      if (!programMatches.test(resolved.realPath)) return false;
      if (exactArity ? args.length !== argMatchers.length : args.length < argMatchers.length) return false;
      return argMatchers.every((matches, i) => {
        const pkg = packages?.get(i);
        return pkg ? packageMatchers[i]![pkg.ecosystem](pkg) : matches(args[i]!, cwd);
      });
    },
  };
}

interface ProgramMatcher {
  test: (realPath: string) => boolean;
  problem: string | undefined;
}

/** A path or a path glob, its fixed part resolved to the real directory. */
function pathMatcher(pattern: string, cwd: string): ProgramMatcher {
  return { test: realPathGlob(pattern, cwd), problem: undefined };
}

/** A bare name (or name glob): the files it finds on mcpmux's PATH now. */
function nameMatcher(pattern: string, lookup: CommandLookup): ProgramMatcher {
  const found = new Set<string>();
  if (scanGlob(pattern).isGlob) {
    const matchesName = compileGlob(pattern, { dot: true });
    for (const dir of (lookup.path ?? '').split(delimiter)) {
      for (const name of listDirectory(resolve(lookup.cwd, dir || '.'))) {
        const resolved = matchesName(name)
          ? resolveCommand(resolve(lookup.cwd, dir || '.', name), lookup)
          : undefined;
        if (resolved) found.add(resolved.realPath);
      }
    }
  } else {
    const resolved = resolveCommand(pattern, lookup);
    if (resolved) found.add(resolved.realPath);
  }
  return {
    test: (realPath) => found.has(realPath),
    problem:
      found.size === 0 ? `'${pattern}' is not on mcpmux's PATH, so this pattern allows nothing` : undefined,
  };
}

/** An argument token: a path pattern (leading /) is matched against the argument's real path; anything else as text. */
function argumentMatcher(token: string): (arg: string, cwd: string) => boolean {
  if (token.startsWith('/')) {
    const test = realPathGlob(token, '/');
    return (arg, cwd) => test(realPathOf(resolve(cwd, arg)));
  }
  // No dot option: `*` never matches `..` or a hidden name, so `@scope/*` cannot climb out.
  const test = compileGlob(token);
  return (arg) => test(arg);
}

/**
 * A token where a package stands: its name part a glob on the package's name, its version
 * part (after the name's last @, or a PyPI specifier) on the version as written; no version
 * part takes any version the registry has. `@modelcontextprotocol/server-memory` so admits
 * `@modelcontextprotocol/server-memory@1.2.3`, never `…/server-memory-evil`.
 */
function packageMatcher(token: string, ecosystem: 'npm' | 'pypi'): (pkg: RegistryPackage) => boolean {
  let name = token;
  let version: string | undefined;
  if (ecosystem === 'npm') {
    const at = token.lastIndexOf('@');
    if (at > 0) [name, version] = [token.slice(0, at), token.slice(at + 1)];
  } else {
    const specifier = /(===?|~=|!=|<=?|>=?|@)/.exec(token);
    if (specifier)
      [name, version] = [token.slice(0, specifier.index), token.slice(specifier.index + specifier[0].length)];
  }
  if (name === '') return () => false;
  // Compiled when first asked: most tokens never stand where a package does.
  let test: ((pkg: RegistryPackage) => boolean) | undefined;
  return (pkg) => {
    if (!test) {
      const nameMatches = compileGlob(name, { nocase: ecosystem === 'pypi' });
      const versionMatches = version === undefined ? () => true : compileGlob(version, { dot: true });
      test = (p) => p.name !== undefined && nameMatches(p.name) && versionMatches(p.version);
    }
    return test(pkg);
  };
}

function realPathGlob(pattern: string, cwd: string): (path: string) => boolean {
  const scan = scanGlob(pattern);
  if (!scan.isGlob) {
    const real = realPathOf(resolve(cwd, pattern));
    return (path) => path === real;
  }
  const base = realPathOf(resolve(cwd, scan.base || '.'));
  return compileGlob(`${base === '/' ? '' : base}/${scan.glob}`, { dot: true });
}

function listDirectory(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
