// Where mcpmux keeps what it must remember across runs (tokens, secrets): the XDG base
// directory for state.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_STATE_HOME/mcpmux/<name>`, else `~/.local/state/mcpmux/<name>`. */
export function stateDir(
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const base = env['XDG_STATE_HOME'] || join(env['HOME'] || homedir(), '.local', 'state');
  return join(base, 'mcpmux', name);
}
