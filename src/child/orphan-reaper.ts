// The last line of defence against leaked children: a tiny `sh` process, in its own session,
// that learns each child process group as it is created and released. When its stdin
// closes — mcpmux ended in any way, SIGKILL included, which no exit hook survives — it
// SIGTERMs the groups still listed, waits a second and SIGKILLs them. A POSIX shell is used
// instead of a second Node process: it costs about a megabyte, not forty.
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { ProcessGroupObserver } from './child-process.js';

/** Reads "+PGID" and "-PGID" lines; at EOF signals the groups left. Ignores anything not a pgid > 1. */
const REAPER_SCRIPT = `
groups=
while IFS= read -r line; do
  g=\${line#?}
  case "$g" in ''|*[!0-9]*) continue ;; esac
  [ "$g" -gt 1 ] || continue
  case "$line" in
    +*) groups="$groups $g" ;;
    -*) kept=; for x in $groups; do [ "$x" = "$g" ] || kept="$kept $x"; done; groups=$kept ;;
  esac
done
[ -n "$groups" ] || exit 0
for g in $groups; do kill -TERM -"$g" 2>/dev/null; done
sleep 1
for g in $groups; do kill -KILL -"$g" 2>/dev/null; done
exit 0
`;

export interface OrphanReaper extends ProcessGroupObserver {
  readonly pid: number;
  /** Ends the reaper's input, as mcpmux's death would: the groups still listed are killed. */
  close(): void;
}

/**
 * Starts the reaper. It does not keep mcpmux's event loop alive, and it exits by itself
 * once mcpmux is gone (at once when no group is left).
 */
export function startOrphanReaper(onError: (error: Error) => void): OrphanReaper | undefined {
  const reaper = spawn('/bin/sh', ['-c', REAPER_SCRIPT], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  if (reaper.pid === undefined) {
    reaper.once('error', onError);
    return undefined;
  }
  const stdin = reaper.stdin as Writable & { unref?: () => void };
  stdin.on('error', onError);
  stdin.unref?.();
  reaper.unref();
  const send = (line: string) => {
    if (!stdin.destroyed) stdin.write(line + '\n');
  };
  return {
    pid: reaper.pid,
    added: (pgid) => send(`+${pgid}`),
    removed: (pgid) => send(`-${pgid}`),
    close: () => stdin.end(),
  };
}
