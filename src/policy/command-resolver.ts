// Which file a command will actually run: the lookup execvp does (a name is searched
// along PATH, a path with a slash is taken relative to the cwd), then every symlink
// followed. The spawn policy judges that file, never the name a model typed. Written by
// hand rather than with `which` because PATH entries that are relative (or empty, which
// means ".") must resolve against the child's cwd, not mcpmux's.
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, resolve } from 'node:path';

export interface CommandLookup {
  /** The PATH the child will have (its own env's PATH, else the one it inherits). */
  path: string | undefined;
  /** The directory the child starts in; relative paths resolve against it. */
  cwd: string;
}

export interface ResolvedCommand {
  /** The absolute path the spawn will use (symlinks kept, so argv[0]-dispatching programs still work). */
  path: string;
  /** The same file with every symlink followed: what really runs, and what patterns match. */
  realPath: string;
}

/** The file `command` runs for a child, or undefined when there is none (no such file, not executable). */
export function resolveCommand(command: string, lookup: CommandLookup): ResolvedCommand | undefined {
  if (command.includes('/')) return executable(resolve(lookup.cwd, command));
  for (const dir of (lookup.path ?? '').split(delimiter)) {
    // An empty PATH entry means the current directory, as for execvp.
    const found = executable(resolve(lookup.cwd, dir === '' ? '.' : dir, command));
    if (found) return found;
  }
  return undefined;
}

/** Every symlink in `path` followed; the path itself when it does not exist (yet). */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return isAbsolute(path) ? path : resolve(path);
  }
}

function executable(path: string): ResolvedCommand | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    accessSync(path, constants.X_OK);
    return { path, realPath: realpathSync(path) };
  } catch {
    return undefined;
  }
}
