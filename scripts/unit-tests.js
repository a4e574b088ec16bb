#!/usr/bin/env node
// @ts-check
// npm run test:unit: the tests that start no process, for a contributor's loop (npm test runs
// them too, with the rest). A test file is one of them when it imports nothing that spawns a
// process or a fixture server: node:child_process, the process module, the test helpers that
// start servers or mcpmux, the built dist/. Found by reading the imports, so a new test that
// spawns nothing joins by itself. Extra arguments go to tap.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printFailures } from './tap-failures.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SPAWNS =
  /from '(node:child_process|[./]*helpers\/(fixtures|mcpmux-process|mux-harness|remote-fixtures|processes|installed-copy|programs|raw-stdio-client)\.js|[^']*\/child\/process\/child-process\.js)'/;

/** Every *.test.ts below `dir`. */
function testFiles(/** @type {string} */ dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const unit = testFiles(join(ROOT, 'test'))
  .filter((file) => !SPAWNS.test(readFileSync(file, 'utf8')))
  .map((file) => relative(ROOT, file))
  .sort();
if (process.argv.includes('--list')) {
  process.stdout.write(unit.join('\n') + '\n');
  process.exit(0);
}
process.stderr.write(`test:unit: ${unit.length} files that start no process\n`);
const started = Math.floor(Date.now() / 1000) * 1000;
const tap = spawnSync(
  process.execPath,
  [
    join(ROOT, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'),
    '--disable-coverage',
    ...process.argv.slice(2),
    ...unit,
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
if (tap.status !== 0) printFailures(started);
process.exitCode = tap.status ?? 1;
