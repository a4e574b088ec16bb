// @ts-check
// `prepare`: build dist/ (it is not committed), for installs from a git URL (`npm install -g
// github:…`, `npx github:…`) as well as a checkout. npm installs a git package's dependencies
// before its prepare, except when installing globally (npm/cli#8440): then they are installed
// here first, into this checkout, without scripts.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(tsc)) {
  // The global flags npm passes down would install this package into the global prefix again.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_config_(global|prefix|location)$/i.test(key)),
  );
  execFileSync('npm', ['install', '--no-save', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
