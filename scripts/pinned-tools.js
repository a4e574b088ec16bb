// @ts-check
// Tools the test scripts pin outside the project's dependencies (the conformance suites, the
// other Node lines): installed into a folder of their own on the first run, and again only
// when the pins change (a stamp in the folder records them).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Installs `packages` (alias → npm spec; each lands in node_modules/<alias>) into `dir`
 * unless it holds them already; `after` finishes the folder before the stamp is written.
 */
export function installPinned(
  /** @type {string} */ dir,
  /** @type {Record<string, string>} */ packages,
  /** @type {{ label: string, after?: () => void }} */ { label, after },
) {
  const stamp = join(dir, 'pinned.json');
  const wanted = JSON.stringify(packages);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  process.stderr.write(
    `${label}: installing ${Object.values(packages).join(', ')} into ${relative(process.cwd(), dir) || dir}/\n`,
  );
  rmSync(dir, { recursive: true, force: true });
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--loglevel',
      'error',
      ...Object.entries(packages).map(([alias, spec]) => `${alias}@npm:${spec}`),
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  after?.();
  writeFileSync(stamp, wanted);
}
