// Writes one server entry into the config file mcpmux was started with (add_server and
// remove_server with `persist: true`), keeping every other entry and field of the file.
// The new file is written next to the old one and renamed over it, so a reader (or a
// crash) never sees half a file. Writes are serialized.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MuxError, messageOf } from '../errors.js';

/** The fields of a config entry, as add_server was given them. */
export type ConfigEntry = Record<string, unknown>;

export class ConfigWriter {
  readonly #path: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.#path = path;
  }

  get path(): string {
    return this.#path;
  }

  /** Sets (entry) or deletes (undefined) the server `name` in the file. */
  write(name: string, entry: ConfigEntry | undefined): Promise<void> {
    const next = this.#queue.then(() => this.#write(name, entry));
    this.#queue = next.catch(() => {});
    return next;
  }

  async #write(name: string, entry: ConfigEntry | undefined): Promise<void> {
    const path = this.#path;
    let file: Record<string, unknown>;
    try {
      file = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new MuxError('PERSIST_FAILED', `cannot update config file '${path}': ${messageOf(error)}`);
    }
    // The file's own format decides where servers live ("mcpServers", or VS Code's "servers").
    const key = file['mcpServers'] === undefined && file['servers'] !== undefined ? 'servers' : 'mcpServers';
    const servers = { ...((file[key] as Record<string, unknown> | undefined) ?? {}) };
    if (entry === undefined) delete servers[name];
    else servers[name] = entry;
    const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      const mode = (await stat(path)).mode & 0o777;
      await writeFile(temp, JSON.stringify({ ...file, [key]: servers }, null, 2) + '\n', { mode });
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw new MuxError('PERSIST_FAILED', `cannot write config file '${path}': ${messageOf(error)}`);
    }
  }
}
