// A copy of mcpmux as npm installs it from git (package.json's "files" without dist/, the
// checkout's packages beside it), and a client's first message to it.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { ROOT } from './fixtures.js';

export const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
export const NOBODY = 65534;
export const asRoot = process.getuid?.() === 0;

/** A temporary directory that everyone may read (a build run as another user reads it). */
export function tempDir(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  t.teardown(() => {
    spawnSync('chmod', ['-R', 'u+w', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** What npm installs from git: the package's files, no dist/, its dependencies beside it. */
export function sourceInstall(t: Test, { without = [] }: { without?: string[] } = {}): string {
  const dir = join(tempDir(t, 'mcpmux-source-'), 'mcpmux');
  mkdirSync(dir);
  for (const file of [...manifest.files, 'package.json'].filter((f: string) => f !== 'dist'))
    cpSync(join(ROOT, file), join(dir, file), { recursive: true });
  if (without.length === 0) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  // An install that left packages out: the others linked one by one.
  else {
    mkdirSync(join(dir, 'node_modules'));
    for (const name of readdirSync(join(ROOT, 'node_modules')))
      if (!without.includes(name))
        symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name));
  }
  return dir;
}

export interface Started {
  answer: { result?: { serverInfo?: { name: string } } };
  stderr: string;
}

/** Runs a command as a client does, sends initialize, reads the answer, then closes stdin. */
export function initialize(
  command: string,
  { env = {}, uid }: { env?: Record<string, string>; uid?: number } = {},
): Promise<Started> {
  const child = spawn(process.execPath, [command], {
    env: { ...process.env, ...env },
    ...(uid === undefined ? {} : { uid, gid: uid }),
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  child.stdin.write(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'install', version: '1' },
      },
    }) + '\n',
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (stdout.includes('\n')) child.stdin.end();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      stdout.includes('\n')
        ? resolve({ answer: JSON.parse(stdout.slice(0, stdout.indexOf('\n'))), stderr })
        : reject(new Error(`exited ${code} without answering: ${stderr}`)),
    );
  });
}
