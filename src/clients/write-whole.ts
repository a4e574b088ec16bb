// Writing a config file whole or not at all: through a temporary file beside it, renamed over
// it, so a crash never leaves half a file. A new file is 0600 in a folder made 0700 (it may
// hold secrets); an existing one keeps its mode. A file that is a symlink (a dotfile manager's)
// is written at its target, so the link stays. A backup is 0600 whatever the file's mode: it
// keeps the secrets that an edit may have just taken out of the file. A file given secrets
// (ownerOnly) loses its group's and others' access.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';

export function writeWhole(link: string, text: string, { ownerOnly = false } = {}): void {
  const path = existsSync(link) ? realpathSync(link) : link;
  const mode = (existsSync(path) ? statSync(path).mode & 0o777 : 0o600) & (ownerOnly ? 0o700 : 0o777);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, text, { mode });
  chmodSync(temp, mode);
  renameSync(temp, path);
}

/** A copy of `path` beside it, named with the time (and a count if that is taken); its path. */
export function backUp(path: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let backup = `${path}.mcpmux-backup-${stamp}`;
  for (let n = 2; existsSync(backup); n++) backup = `${path}.mcpmux-backup-${stamp}-${n}`;
  // Made 0600 as it is created (copyFile would give it the file's mode first); never over another file.
  writeFileSync(backup, readFileSync(path), { mode: 0o600, flag: 'wx' });
  return backup;
}
