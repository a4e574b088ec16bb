#!/usr/bin/env node
// @ts-check
// The failures of a tap run, gathered at the end of its output. tap prints each file's TAP as
// the file ends, so on a long run a failure sits thousands of lines above the summary, and a CI
// log that keeps only its tail shows "fail: 1" and nothing else. tap keeps every file's TAP in
// .tap/test-results/; this reads the ones written since the run began and prints each failing
// assertion with the subtests around it and its diagnostic block.
//
//   node scripts/tap-failures.js [tap arguments...]   runs tap, then prints what failed
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, '.tap', 'test-results');
/** Lines of a failure's diagnostic block printed (the rest is in .tap/test-results). */
const DIAGNOSTIC_LINES = 40;

/**
 * Each failing assertion in one file's TAP, as the path of subtests leading to it and its
 * diagnostic block. A subtest that fails because an assertion in it failed is not repeated.
 * @param {string} tap
 */
export function failuresIn(tap) {
  /** @type {{ path: string[], diagnostic: string[] }[]} */
  const failures = [];
  /** @type {string[]} names of the subtests open at each depth */
  const open = [];
  const lines = tap.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const depth = (line.length - line.trimStart().length) / 4;
    const subtest = /^\s*# Subtest: (.*)$/.exec(line);
    if (subtest) {
      open.length = depth;
      open[depth] = subtest[1] ?? '';
      continue;
    }
    const notOk = /^\s*not ok \d+ - (.*?)(?: # time=.*)?$/.exec(line);
    if (!notOk) continue;
    const diagnostic = [];
    if (/^\s*---$/.test(lines[i + 1] ?? '')) {
      for (i += 2; i < lines.length && !/^\s*\.\.\.$/.test(lines[i] ?? ''); i++) {
        diagnostic.push((lines[i] ?? '').slice((depth + 1) * 4 - 2));
      }
    }
    const path = [...open.slice(0, depth), notOk[1] ?? ''];
    // A failed subtest's own "not ok" follows the assertions that failed inside it.
    const inner = failures.some((f) => f.path.length > path.length && path.every((p, k) => f.path[k] === p));
    if (!inner) failures.push({ path, diagnostic });
  }
  return failures;
}

/** The result files tap wrote at or after `sinceMs`. */
function resultsSince(/** @type {number} */ sinceMs) {
  let files;
  try {
    files = readdirSync(RESULTS, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return files
    .filter((file) => file.endsWith('.tap'))
    .map((file) => join(RESULTS, file))
    .filter((file) => statSync(file).mtimeMs >= sinceMs)
    .sort();
}

/**
 * Prints to stdout, after the run's own output, every failure in files written since `sinceMs`,
 * and each file the run reported failed (`failedFiles`) in whose results none shows: it timed out
 * or exited before it could say.
 * @param {number} sinceMs
 * @param {string[]} [failedFiles]
 */
export function printFailures(sinceMs, failedFiles = []) {
  const out = [];
  const explained = new Set();
  for (const file of resultsSince(sinceMs)) {
    const name = relative(RESULTS, file).replace(/\.tap$/, '');
    for (const failure of failuresIn(readFileSync(file, 'utf8'))) {
      explained.add(name);
      out.push(`\nFAILED ${name}\n  ${failure.path.join('\n  > ')}`);
      const shown = failure.diagnostic.slice(0, DIAGNOSTIC_LINES);
      if (shown.length) out.push(shown.map((line) => `    ${line}`).join('\n'));
      if (failure.diagnostic.length > shown.length) out.push(`    … (${relative(ROOT, file)})`);
    }
  }
  for (const name of failedFiles.filter((file) => !explained.has(file))) {
    out.push(`\nFAILED ${name}\n  no assertion failed in it: it timed out or exited (its output is above)`);
  }
  if (out.length) process.stdout.write(`\n# what failed${out.join('\n')}\n`);
}

/** Runs tap with `args`, passing its output through and noting the files it reports failed. */
function runTap(/** @type {string[]} */ args) {
  const started = Math.floor(Date.now() / 1000) * 1000; // a file system may keep whole seconds
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs'), ...args],
    {
      cwd: ROOT,
      stdio: ['inherit', 'pipe', 'inherit'],
    },
  );
  /** @type {string[]} */
  const failedFiles = [];
  let partial = '';
  child.stdout.on('data', (/** @type {Buffer} */ chunk) => {
    process.stdout.write(chunk);
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const failed = /^not ok \d+ - (\S+\.[cm]?[jt]sx?)(?: #|$)/.exec(line);
      if (failed?.[1]) failedFiles.push(failed[1]);
    }
  });
  child.on('close', (code, signal) => {
    if (code !== 0) printFailures(started, failedFiles);
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) runTap(process.argv.slice(2));
