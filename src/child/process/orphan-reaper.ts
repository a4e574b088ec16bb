// The last line of defence against leaked children: a tiny `sh` process, in its own session,
// that learns each child process group and tag as they are created and released. When its
// stdin closes — mcpmux ended in any way, SIGKILL included, which no exit hook survives — it
// SIGTERMs the groups still listed and the processes carrying a listed tag (process-tags.ts),
// SIGCONTs them (a stopped process acts on SIGTERM only once it runs), waits a second and
// SIGKILLs them. A POSIX shell is used instead of a second Node process: it costs about a
// megabyte, not forty.
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { ProcessGroupObserver } from './child-process.js';

/**
 * Reads "+PGID" and "-PGID" (a group listed and released), "tTAG" and "uTAG" (a tag listed and
 * released); ignores anything else, a pgid that is not > 1 and a tag that is not a UUID's
 * characters, at least 32 of them. At EOF signals what is left.
 * A tag's processes are the readable /proc/PID/environ files that contain it (one grep for all tags).
 */
const REAPER_SCRIPT = `
set -f
groups=
tags=
while IFS= read -r line; do
  arg=\${line#?}
  case "$line" in
    [+-]*) case "$arg" in ''|*[!0-9]*) continue ;; esac; [ "$arg" -gt 1 ] || continue ;;
    [tu]*) case "$arg" in ''|*[!0-9a-f-]*) continue ;; esac; [ \${#arg} -ge 32 ] || continue ;;
    *) continue ;;
  esac
  case "$line" in
    +*) groups="$groups $arg" ;;
    -*) kept=; for x in $groups; do [ "$x" = "$arg" ] || kept="$kept $x"; done; groups=$kept ;;
    t*) tags="$tags $arg" ;;
    u*) kept=; for x in $tags; do [ "$x" = "$arg" ] || kept="$kept $x"; done; tags=$kept ;;
  esac
done
[ -n "$groups$tags" ] || exit 0
tagged() {
  set --
  for t in $tags; do set -- "$@" -e "$t"; done
  set +f
  grep -lsF "$@" /proc/[0-9]*/environ
}
end() {
  for g in $groups; do kill -"$1" -"$g" 2>/dev/null; done
  for f in $(tagged); do p=\${f#/proc/}; p=\${p%/environ}; [ "$p" != $$ ] && kill -"$1" "$p" 2>/dev/null; done
}
end TERM
end CONT
sleep 1
end KILL
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
    added: (pgid, tag) => {
      send(`+${pgid}`);
      send(`t${tag}`);
    },
    removed: (pgid, tag) => {
      send(`-${pgid}`);
      send(`u${tag}`);
    },
    tagged: (tag) => send(`t${tag}`),
    close: () => stdin.end(),
  };
}
