#!/usr/bin/env node
// @ts-check
// The installed command. A checkout (after npm run compile) and a packed tarball have dist/,
// and this only loads it. Installed straight from git (npm install -g git+…, npx github:…),
// mcpmux arrives as source: npm "prepares" a git dependency that has a build, prepare or
// install script, and npm before 12 breaks a global install that it prepares (npm/cli#8440:
// the script runs without the package's dependencies; #3692, #6984: the installed folder is
// deleted after it), so mcpmux has none of those scripts and its first run bundles src/ once
// with esbuild, one of its dependencies (build-once.js).
import { existsSync } from 'node:fs';

const built = new URL('../dist/main.js', import.meta.url);
if (existsSync(built)) await import(built.href);
else {
  const { builtMain } = await import('./build-once.js');
  const main = await builtMain().catch((/** @type {Error} */ error) => {
    process.stderr.write(`mcpmux: could not build this copy of mcpmux: ${error.message}\n`);
    process.exit(1);
  });
  await import(main);
}
