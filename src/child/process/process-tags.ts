// Finds a child's processes wherever they went. A process group reaches what a child forks,
// but not what leaves the group: a daemon started with setsid, a `detached` spawn, a
// double fork reparented to init. Each child is spawned with a tag of its own in its
// environment, which every process it starts inherits unless it clears its environment;
// stopping the child ends whatever still carries the tag (Jenkins finds a build's processes
// the same way, and mcpmux's tests find leaks so). Linux only: elsewhere there is no /proc to
// read, and only the process group is stopped.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** The variable holding the tags; a child of a child of mcpmux carries every tag above it. */
export const PROCESS_TAGS_VARIABLE = 'MCPMUX_PROCESS_TAGS';

const hasProc = process.platform === 'linux';

export const newProcessTag = (): string => randomUUID();

/** `env` with `tag` added to the tags mcpmux itself inherited (so a nested mcpmux's children carry both). */
export function withProcessTag(env: Readonly<Record<string, string>>, tag: string): Record<string, string> {
  const inherited = process.env[PROCESS_TAGS_VARIABLE]?.trim();
  return { ...env, [PROCESS_TAGS_VARIABLE]: inherited ? `${inherited} ${tag}` : tag };
}

/** Whether an environment block (NUL-separated, as /proc/PID/environ) carries `tag`. */
export function environCarries(environ: string, tag: string): boolean {
  const prefix = `${PROCESS_TAGS_VARIABLE}=`;
  for (const entry of environ.split('\0'))
    if (entry.startsWith(prefix) && entry.slice(prefix.length).split(' ').includes(tag)) return true;
  return false;
}

/** Files read at once: a machine may run more processes than mcpmux may hold files open. */
const READS_AT_ONCE = 64;

/** Living processes (zombies have an empty environment) that carry `tag`, this one excepted. */
export async function findTagged(tag: string): Promise<number[]> {
  if (!hasProc) return [];
  const pids = (await readdir('/proc')).map(Number).filter(isOtherProcess);
  const found: number[] = [];
  for (let at = 0; at < pids.length; at += READS_AT_ONCE) {
    await Promise.all(
      pids.slice(at, at + READS_AT_ONCE).map(async (pid) => {
        try {
          if (environCarries(await readFile(`/proc/${pid}/environ`, 'latin1'), tag)) found.push(pid);
        } catch {
          // gone meanwhile, or another user's
        }
      }),
    );
  }
  return found;
}

/** findTagged for several tags at once, synchronously: for the exit hook. */
export function findTaggedSync(tags: readonly string[]): number[] {
  if (!hasProc || tags.length === 0) return [];
  const found: number[] = [];
  for (const pid of readdirSync('/proc').map(Number).filter(isOtherProcess)) {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
      if (tags.some((tag) => environCarries(environ, tag))) found.push(pid);
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return found;
}

const isOtherProcess = (pid: number): boolean => Number.isInteger(pid) && pid > 1 && pid !== process.pid;
