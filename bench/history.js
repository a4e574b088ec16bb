#!/usr/bin/env node
// @ts-check
// The past sets of `npm run bench:ranges`, as data: each version of bench/results/core-ranges.json
// that git holds, with the commit that recorded it, the date it was measured and each figure's
// median and range. Run with `npm run bench:history`; writes bench/results/core-ranges-history.json.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FILE = 'bench/results/core-ranges.json';
const git = (/** @type {string[]} */ args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

const commits = git(['log', '--format=%H %cI', '--', FILE])
  .trim()
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    const [commit, committed] = line.split(' ');
    return { commit: /** @type {string} */ (commit), committed: /** @type {string} */ (committed) };
  });

/** @type {Map<string, object>} */
const sets = new Map();
for (const { commit, committed } of commits) {
  /** @type {any} */
  let set;
  try {
    set = JSON.parse(git(['show', `${commit}:${FILE}`]));
  } catch {
    continue; // a version that is not the ranges' shape
  }
  if (!set?.figures || sets.has(set.date)) continue;
  sets.set(set.date, {
    measured: set.date,
    recorded_in: commit.slice(0, 12),
    committed,
    node: set.node,
    runs: set.runs,
    figures: Object.fromEntries(
      Object.entries(set.figures).map(([name, f]) => [
        name,
        {
          median: /** @type {any} */ (f).median,
          min: /** @type {any} */ (f).min,
          max: /** @type {any} */ (f).max,
        },
      ]),
    ),
  });
}
const history = [...sets.values()];
writeFileSync(join(root, 'bench/results/core-ranges-history.json'), JSON.stringify(history, null, 2) + '\n');
process.stdout.write(`${history.length} sets, ${commits.length} versions read\n`);
