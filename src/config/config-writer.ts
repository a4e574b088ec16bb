// Writes one server entry into the config file mcpmux was started with (add_server and
// remove_server with `persist: true`), keeping every other entry and field of the file, and
// its comments and layout: the file is edited where the entry is (jsonc-parser, VS Code's own
// parser and editor of mcp.json), not printed anew. The new file is written next to the old
// one and renamed over it, so a reader (or a crash) never sees half a file; a file that is a
// link (a dotfiles checkout) is written where it points. Writes are serialized.
import { randomBytes } from 'node:crypto';
import { readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MuxError, messageOf } from '../common/errors.js';
import { readConfigJson } from './load-config.js';

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
    let target: string;
    let text: string;
    let file: unknown;
    try {
      target = await realpath(this.#path);
      text = await readFile(target, 'utf8');
      file = await readConfigJson(text, this.#path);
    } catch (error) {
      throw new MuxError('PERSIST_FAILED', `cannot update config file '${this.#path}': ${messageOf(error)}`);
    }
    const { applyEdits, modify } = await import('jsonc-parser');
    const fields = (file ?? {}) as Record<string, unknown>;
    // The file's own format decides where servers live ("mcpServers", or VS Code's "servers").
    const key =
      fields['mcpServers'] === undefined && fields['servers'] !== undefined ? 'servers' : 'mcpServers';
    let edited: string;
    try {
      edited = applyEdits(text, modify(text, [key, name], entry, { formattingOptions: layoutOf(text) }));
    } catch (error) {
      throw new MuxError('PERSIST_FAILED', `cannot update config file '${this.#path}': ${messageOf(error)}`);
    }
    const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      const mode = (await stat(target)).mode & 0o777;
      await writeFile(temp, edited, { mode });
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw new MuxError('PERSIST_FAILED', `cannot write config file '${this.#path}': ${messageOf(error)}`);
    }
  }
}

/** How the file indents and ends its lines, so that a new entry looks like its neighbours. */
function layoutOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}
