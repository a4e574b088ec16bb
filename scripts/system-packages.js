#!/usr/bin/env node
// @ts-check
// The system programs the tests need, installed where missing (the first step of `npm test`):
// bubblewrap, socat and ripgrep, which the OS sandbox runs servers with (test/e2e/sandbox.test.ts),
// and redis-server and haproxy, which a cluster of replicas shares and sits behind (test/cluster/).
// With apt-get, as root or through a sudo that asks no password; otherwise it names what to install.
import { execFileSync, spawnSync } from 'node:child_process';

const NEEDED = /** @type {const} */ ([
  ['bwrap', 'bubblewrap'],
  ['socat', 'socat'],
  ['rg', 'ripgrep'],
  // The cluster's shared state and its load balancer (test/cluster/); each test starts its own on 127.0.0.1 ports.
  ['redis-server', 'redis-server'],
  ['haproxy', 'haproxy'],
]);

const found = (/** @type {string} */ program) =>
  spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;

const missing = NEEDED.filter(([program]) => !found(program)).map(([, pkg]) => pkg);
if (missing.length === 0) process.exit(0);
if (process.platform !== 'linux') {
  process.stderr.write(
    `system-packages: the tests need ${missing.join(', ')} (Linux only); this is ${process.platform}\n`,
  );
  process.exit(1);
}
const root = process.getuid?.() === 0;
const sudo = !root && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
if (!found('apt-get') || (!root && !sudo)) {
  process.stderr.write(
    `system-packages: the tests need ${missing.join(', ')}: install them (Debian/Ubuntu: sudo apt-get install ${missing.join(' ')}; Fedora: sudo dnf install ${missing.join(' ')})\n`,
  );
  process.exit(1);
}
const run = (/** @type {string[]} */ args) =>
  execFileSync(root ? args[0] : 'sudo', root ? args.slice(1) : args, {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
process.stderr.write(`system-packages: installing ${missing.join(', ')}\n`);
const install = ['apt-get', 'install', '-y', '--no-install-recommends', ...missing];
try {
  run(install);
} catch {
  // A fresh machine's package lists may be empty or stale.
  run(['apt-get', 'update']);
  run(install);
}
