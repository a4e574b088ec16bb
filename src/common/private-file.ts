// Files only their owner may read, for the tokens, keys and secrets mcpmux keeps: 0600 in a
// 0700 folder, written whole to a temporary name and then renamed over the old one (a reader
// beside the writer sees the old file or the new one, never half of either). The folder and
// its parent (mcpmux's own) are used only as they should be: real folders, not symlinks,
// owned by this user and writable by no one else; a file in them that others may read is
// refused, naming the fix. Else another local user could swap the folder for one they read,
// or read what mcpmux keeps.
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { MuxError } from './errors.js';

/** Writes `text` to `file` as a private file, after checking its folder. */
export function writePrivateFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  checkPrivateFolder(dirname(file));
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, file);
}

/** The text of a private file; undefined when there is none. Throws UNSAFE_FILE when it or its folder is not private. */
export function readPrivateFile(file: string): string | undefined {
  checkPrivateFolder(dirname(file));
  const stats = statsOf(file);
  if (!stats) return undefined;
  if (stats.isSymbolicLink())
    throw unsafe(
      `${file} is a symbolic link`,
      `remove it (rm ${file}); mcpmux writes a new one when it needs to`,
    );
  if (!ownedByMe(stats))
    throw unsafe(`${file} belongs to user ${stats.uid}, not to you`, `remove it (rm ${file})`);
  if ((stats.mode & 0o077) !== 0)
    throw unsafe(
      `${file} may be read by others (mode ${(stats.mode & 0o777).toString(8)})`,
      `make it yours alone: chmod 600 ${file}`,
    );
  return readFileSync(file, 'utf8');
}

/** Throws UNSAFE_FILE unless `dir` (and mcpmux's folder above it) is a real folder of this user's that no one else may write. */
export function checkPrivateFolder(dir: string): void {
  for (const folder of [dirname(dir), dir]) {
    const stats = statsOf(folder);
    if (!stats) continue;
    if (stats.isSymbolicLink())
      throw unsafe(
        `${folder} is a symbolic link (to a folder others may control)`,
        `replace it with a folder of your own: rm ${folder} && mkdir -m 700 ${folder}`,
      );
    if (!stats.isDirectory())
      throw unsafe(`${folder} is not a folder`, `move it away (mv ${folder} ${folder}.old)`);
    if (!ownedByMe(stats))
      throw unsafe(
        `${folder} belongs to user ${stats.uid}, not to you`,
        `move it away, or set XDG_STATE_HOME to a folder of yours`,
      );
    // The folder above may be one like /tmp, whose sticky bit keeps others from replacing what is ours in it.
    const sticky = folder !== dir && (stats.mode & 0o1000) !== 0;
    if ((stats.mode & 0o022) !== 0 && !sticky)
      throw unsafe(
        `${folder} may be written by others (mode ${(stats.mode & 0o777).toString(8)})`,
        `make it yours alone: chmod 700 ${folder}`,
      );
  }
}

function statsOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const ownedByMe = (stats: Stats): boolean => process.getuid === undefined || stats.uid === process.getuid();

const unsafe = (what: string, fix: string): MuxError =>
  new MuxError('UNSAFE_FILE', `${what}, and it holds secrets or tokens: mcpmux does not use it; ${fix}`);
