// A registry entry's runtime looked up on PATH as a spawn would find it: present, it passes;
// missing, the message names what to install.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { missingRuntime } from '../../src/mcp-registry/runtime-check.js';

t.test('a runtime on PATH passes; one that is not says what to install', async (t) => {
  const bin = mkdtempSync(join(tmpdir(), 'mcpmux-runtimes-'));
  t.teardown(() => rmSync(bin, { recursive: true, force: true }));
  writeFileSync(join(bin, 'uvx'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'uvx'), 0o755);
  writeFileSync(join(bin, 'docker'), 'not executable');
  const lookup = { path: bin, cwd: bin };
  t.equal(
    missingRuntime('uvx', "registry entry 'io.github.a/time' (PyPI mcp-server-time==0.6.2)", lookup),
    undefined,
  );
  t.equal(
    missingRuntime('docker', "registry entry 'io.github.a/weather' (OCI ghcr.io/a/weather:1)", lookup),
    "registry entry 'io.github.a/weather' (OCI ghcr.io/a/weather:1) runs through docker, which is not on mcpmux's PATH: install Docker (https://docs.docker.com/get-started/get-docker/), or Podman with its docker command, then add it again",
    'a file that is not executable is not a runtime',
  );
  t.match(
    missingRuntime('npx', 'it', { path: join(bin, 'nothing-here'), cwd: bin }),
    /install Node\.js with npm/,
  );
  t.equal(
    missingRuntime('node', 'it', { path: '', cwd: bin }),
    undefined,
    'only registry runtimes are judged here',
  );
});
