// Where mcpmux keeps what it must remember across runs (tokens, secrets) and what it may
// read again but need not keep (registry listings): the XDG base directories for state and cache.
import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** `$XDG_STATE_HOME/mcpmux/<name>`, else `~/.local/state/mcpmux/<name>`. */
export function stateDir(name: string, env: Env = process.env): string {
  const base = env['XDG_STATE_HOME'] || join(env['HOME'] || homedir(), '.local', 'state');
  return join(base, 'mcpmux', name);
}

/** `$XDG_CACHE_HOME/mcpmux/<name>`, else `~/.cache/mcpmux/<name>`. */
export function cacheDir(name: string, env: Env = process.env): string {
  const base = env['XDG_CACHE_HOME'] || join(env['HOME'] || homedir(), '.cache');
  return join(base, 'mcpmux', name);
}
