// @ts-check
// Where the benches find what they run: the built mcpmux, and the npm servers they measure with.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The repository's root. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The built mcpmux (npm run compile). */
export const mcpmuxMain = join(root, 'dist/main.js');

/** An MCP server from npm, by package name: its dist/index.js. */
export const npmServer = (/** @type {string} */ pkg) =>
  join(dirname(require.resolve(`${pkg}/package.json`)), 'dist/index.js');
