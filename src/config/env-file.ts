// VS Code's and Cursor's `envFile` in a config entry: a dotenv file whose variables a local
// server gets, under those of its `env`. Read when the config is (a change of the file alone
// is seen at the next reading of the config), with Node's own dotenv parser.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
// A namespace import: a named one of a function this Node lacks would fail to link, taking mcpmux down.
import * as util from 'node:util';

/** The file's variables, or what is wrong with it. A relative path is from mcpmux's working directory. */
export function readEnvFile(path: string): Record<string, string> | string {
  // Node's parser came in 20.12; mcpmux runs on any Node 20.
  if (typeof util.parseEnv !== 'function')
    return `envFile needs Node 20.12 or later (this is ${process.version})`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = isAbsolute(path) ? `'${path}'` : `'${path}' (${resolve(path)})`;
    return `envFile ${where} cannot be read: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`;
  }
  return util.parseEnv(text) as Record<string, string>;
}
