// A package runner reads settings from the folder it starts in, not only from its environment:
// npm (npx) the project's .npmrc (node-options, registry, script-shell…), bun (bunx) its
// bunfig.toml, uv (uvx) the nearest uv.toml or pyproject.toml with [tool.uv] (index-url,
// python…). A model that can write a folder and start a server there would so set what the
// loader-variable rule keeps out of env. Under a spawn policy, a runner starts only from a
// folder without such a file (the user's own, in their home folder, is theirs).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Runner } from './package-launch.js';

/** The settings file `runner` would read from `cwd` that is not the user's own; undefined when none. */
export function runnerSettingsIn(runner: Runner, cwd: string, home: string | undefined): string | undefined {
  const found = settingsFile(runner, cwd);
  return found !== undefined && home !== undefined && dirname(found) === home ? undefined : found;
}

function settingsFile(runner: Runner, cwd: string): string | undefined {
  switch (runner) {
    case 'npx':
    case 'bunx': {
      // npm's project folder: the nearest one up with a package.json or node_modules, else cwd.
      const project =
        upFrom(
          cwd,
          (dir) => existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'node_modules')),
        ) ?? cwd;
      const files = runner === 'npx' ? ['.npmrc'] : ['.npmrc', 'bunfig.toml'];
      return files.map((name) => join(project, name)).find((file) => existsSync(file));
    }
    case 'uvx': {
      const dir = upFrom(cwd, (d) => existsSync(join(d, 'uv.toml')) || usesUv(join(d, 'pyproject.toml')));
      if (dir === undefined) return undefined;
      return existsSync(join(dir, 'uv.toml')) ? join(dir, 'uv.toml') : join(dir, 'pyproject.toml');
    }
    default:
      return undefined;
  }
}

/** The first folder from `dir` up to the root that `test` accepts. */
function upFrom(dir: string, test: (dir: string) => boolean): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (test(at)) return at;
    if (dirname(at) === at) return undefined;
  }
}

function usesUv(pyproject: string): boolean {
  try {
    return /^\s*\[tool\.uv[\].]/m.test(readFileSync(pyproject, 'utf8'));
  } catch {
    return false;
  }
}
