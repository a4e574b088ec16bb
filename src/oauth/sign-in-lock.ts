// One sign-in at a time per server across mcpmux processes: two clients that each run mcpmux
// share a server's credential file. Without this, both refresh with the same refresh token
// when it nears its end, and an authorization server that rotates refresh tokens refuses the
// second (one that detects reuse revokes both), so the person is asked to sign in again; and
// two processes that need the person each send them to a browser. With it, the second waits
// for the first and then reads what the first kept.
//
// The lock is a file beside the credentials, made with O_EXCL and holding its holder's pid;
// one whose holder is gone, or that is older than the longest sign-in, is taken over.
// (proper-lockfile was not taken: its signal-exit handlers would sit beside mcpmux's own
// signal handling, where SIGHUP re-reads the config.)
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MuxError, messageOf } from '../errors.js';

/** How often a waiting process looks at the lock again. */
const POLL_MS = 100;

/**
 * Runs `work` holding the lock at `path` (waiting for another process's first); the lock is
 * taken over past `maxHoldMs` or once its holder has died.
 */
export async function withSignInLock<T>(
  path: string,
  work: () => Promise<T>,
  { maxHoldMs, signal }: { maxHoldMs: number; signal?: AbortSignal | undefined },
): Promise<T> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 }); // the credentials' folder, before any sign-in
  while (!take(path)) {
    if (abandoned(path, maxHoldMs)) rmSync(path, { force: true });
    else
      await sleep(POLL_MS, undefined, signal ? { signal } : {}).catch((error: unknown) => {
        throw new MuxError(
          'AUTH_REQUIRED',
          `another mcpmux process (pid ${holder(path) ?? 'unknown'}) is signing in to the same place; this one stopped waiting for it (${messageOf(signal?.reason ?? error)})`,
          { cause: error },
        );
      });
  }
  try {
    return await work();
  } finally {
    if (holder(path) === process.pid) rmSync(path, { force: true });
  }
}

/** Makes the lock file if there is none: true when this process now holds it. */
function take(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

function holder(path: string): number | undefined {
  try {
    return Number(readFileSync(path, 'utf8')) || undefined;
  } catch {
    return undefined;
  }
}

/** The holder is gone (or the file is half written and old), or it has held it too long. */
function abandoned(path: string, maxHoldMs: number): boolean {
  let age: number;
  try {
    age = Date.now() - statSync(path).mtimeMs;
  } catch {
    return false; // released meanwhile: take it on the next turn
  }
  if (age > maxHoldMs) return true;
  const pid = holder(path);
  if (pid === undefined) return age > 1000;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
