// Watches a server's source files for its author: globs relative to the server's cwd, one
// recursive watcher per directory the globs start from, and one call after a burst of
// changes (an editor's save, a compiler writing many files) has settled.
import { watch, type FSWatcher } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { compileGlob, scanGlob } from '../../common/glob-matcher.js';

export interface SourceWatcherOptions {
  cwd: string;
  globs: readonly string[];
  debounceMs: number;
  /** Called with the changed paths (relative to cwd) once changes have settled. */
  onChange: (paths: string[]) => void;
  onError: (error: Error) => void;
}

export class SourceWatcher {
  readonly #watchers: FSWatcher[] = [];
  readonly #changed = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: SourceWatcherOptions) {
    const matches = compileGlob(options.globs, { dot: false });
    const bases = new Set(options.globs.map((glob) => resolve(options.cwd, scanGlob(glob).base || '.')));
    for (const base of bases) {
      try {
        const watcher = watch(base, { recursive: true }, (_event, filename) => {
          if (filename === null) return;
          const path = relative(options.cwd, join(base, filename.toString()));
          if (!matches(path)) return;
          this.#changed.add(path);
          clearTimeout(this.#timer);
          this.#timer = setTimeout(() => {
            if (this.#closed) return;
            const paths = [...this.#changed];
            this.#changed.clear();
            options.onChange(paths);
          }, options.debounceMs);
        });
        watcher.on('error', (error) => options.onError(error));
        watcher.unref();
        this.#watchers.push(watcher);
      } catch (error) {
        options.onError(new Error(`cannot watch ${base}: ${(error as Error).message}`));
      }
    }
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers) watcher.close();
  }
}
