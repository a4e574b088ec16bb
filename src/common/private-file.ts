// A file only its owner may read (0600, in a 0700 folder), written whole to a temporary name and
// then renamed over the old one: a reader beside the writer sees the old file or the new one,
// never half of either. For tokens, keys and secrets mcpmux keeps.
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function writePrivateFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, file);
}
