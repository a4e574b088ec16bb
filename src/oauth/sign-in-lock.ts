// One sign-in at a time per server across mcpmux processes: two clients that each run mcpmux
// share a server's credential file. Without this, both refresh with the same refresh token
// when it nears its end, and an authorization server that rotates refresh tokens refuses the
// second (one that detects reuse revokes both), so the person is asked to sign in again; and
// two processes that need the person each send them to a browser. With it, the second waits
// for the first and then reads what the first kept. Replicas of a cluster, whose credential
// files are shared, take the same lock across machines too (LockAcrossMachines).
//
// The lock is a file beside the credentials, made with O_EXCL and holding its holder's pid,
// then also the URL the holder sent the person to: a waiting process shows it (the person
// may be at its client), rather than say only that it is starting. One whose holder is gone,
// or that is older than the longest sign-in, is taken over.
// (proper-lockfile was not taken: its signal-exit handlers would sit beside mcpmux's own
// signal handling, where SIGHUP re-reads the config.)
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MuxError, messageOf } from '../common/errors.js';

/** How often a waiting process looks at the lock again. */
const POLL_MS = 100;

/**
 * The same lock across machines (a cluster's replicas, whose credential files are shared):
 * taken after this machine's, it resolves once no other replica holds it and this replica's
 * copy of the credentials is the cluster's latest; what it returns lets go, after sharing what
 * the work wrote.
 */
export interface LockAcrossMachines {
  take(lockPath: string, signal: AbortSignal | undefined): Promise<() => Promise<void>>;
}

/** By the folder of the files they lock: set by a cluster's replica for its shared folders. */
const acrossMachines = new Map<string, LockAcrossMachines>();

/** Locks the files in `dir` across machines too (undefined: this machine only again). */
export function lockAcrossMachines(dir: string, lock: LockAcrossMachines | undefined): void {
  if (lock) acrossMachines.set(dir, lock);
  else acrossMachines.delete(dir);
}

/** The lock, held: says where the person was sent, for the processes that wait. */
export interface HeldSignInLock {
  sentTo(url: URL): void;
}

export interface SignInLockOptions {
  /** Past it, a holder is taken to be stuck and its lock is taken over. */
  maxHoldMs: number;
  signal?: AbortSignal | undefined;
  /** While waiting: the holder (pid) sent the person to `url` (once per URL). */
  onOthersSignIn?: (url: URL, pid: number) => void;
}

/**
 * Runs `work` holding the lock at `path` (waiting for another process's first); the lock is
 * taken over past `maxHoldMs` or once its holder has died.
 */
export async function withSignInLock<T>(
  path: string,
  work: (lock: HeldSignInLock) => Promise<T>,
  { maxHoldMs, signal, onOthersSignIn }: SignInLockOptions,
): Promise<T> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 }); // the credentials' folder, before any sign-in
  let shown: string | undefined;
  while (!take(path)) {
    if (abandoned(path, maxHoldMs)) {
      rmSync(path, { force: true });
      continue;
    }
    await sleep(POLL_MS, undefined, signal ? { signal } : {}).catch((error: unknown) => {
      throw new MuxError(
        'AUTH_REQUIRED',
        `another mcpmux process (pid ${read(path).pid ?? 'unknown'}) is signing in to the same place; this one stopped waiting for it (${messageOf(signal?.reason ?? error)})`,
        { cause: error },
      );
    });
    // Looked at after a wait, never within this call: its caller has not yet kept what it returns.
    const { pid, url } = read(path);
    if (url !== undefined && url !== shown && pid !== undefined && URL.canParse(url)) {
      shown = url;
      onOthersSignIn?.(new URL(url), pid);
    }
  }
  try {
    const letGo = await acrossMachines.get(dirname(path))?.take(path, signal);
    try {
      return await work({ sentTo: (url) => announce(path, url) });
    } finally {
      await letGo?.();
    }
  } finally {
    if (read(path).pid === process.pid) rmSync(path, { force: true });
  }
}

/** Writes the holder's pid and `url` whole (a rename), so that a waiting process never reads half. */
function announce(path: string, url: URL): void {
  if (read(path).pid !== process.pid) return; // taken over meanwhile
  const written = `${path}.${process.pid}`;
  writeFileSync(written, `${process.pid}\n${url.href}\n`, { mode: 0o600 });
  renameSync(written, path);
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

/** The holder's pid (none while the file is half written), and where it sent the person. */
function read(path: string): { pid?: number | undefined; url?: string | undefined } {
  let lines: string[];
  try {
    lines = readFileSync(path, 'utf8').split('\n');
  } catch {
    return {};
  }
  return { pid: Number(lines[0]) || undefined, url: lines[1] || undefined };
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
  const { pid } = read(path);
  if (pid === undefined) return age > 1000;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
