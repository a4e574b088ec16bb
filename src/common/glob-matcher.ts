// Globs, with picomatch loaded the first time one is compiled rather than with the modules
// that use them: --allow-command patterns are compiled before mcpmux spawns its configured
// servers, and most runs give none, no tool filter and no watch (loading picomatch was ~7 ms
// of that start). A plain require, as the package is CommonJS and its users are synchronous.
import { createRequire } from 'node:module';
import type { PicomatchOptions } from 'picomatch';

type Picomatch = typeof import('picomatch');

let loaded: Picomatch | undefined;
const picomatch = (): Picomatch => (loaded ??= createRequire(import.meta.url)('picomatch') as Picomatch);

/** A test of a path (or name) against one glob or any of several. */
export function compileGlob(
  glob: string | readonly string[],
  options?: PicomatchOptions,
): (path: string) => boolean {
  return picomatch()(typeof glob === 'string' ? glob : [...glob], options);
}

/** A glob's parts: whether it has magic at all, and the fixed directory before it. */
export function scanGlob(glob: string): { isGlob: boolean; base: string; glob: string } {
  return picomatch().scan(glob);
}
