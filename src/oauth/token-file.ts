// A token that something else keeps fresh in a file (a platform's workload token, an SSO
// agent's ID token): read at each use, since it rotates, and never logged.
import { readFileSync } from 'node:fs';
import { MuxError, messageOf } from '../common/errors.js';

/** The token in `file`; an unreadable or empty file fails naming `field` (the config field that gave it). */
export function tokenInFile(file: string, field: string, what: string): string {
  let token: string;
  try {
    token = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new MuxError(
      'AUTH_FAILED',
      `cannot read ${what} in ${field} ${file}: ${(error as NodeJS.ErrnoException).code ?? messageOf(error)}`,
    );
  }
  if (token === '') throw new MuxError('AUTH_FAILED', `${field} ${file} is empty`);
  return token;
}
