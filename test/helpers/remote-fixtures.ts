// Fixture servers that listen on HTTP (they print `listening on <url>`), started as
// a remote server is; and testservers/http-faults.js, a remote that fails on demand, added to
// an in-process mcpmux as 'exp'.
import type { Test } from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { fixturePath, type FixtureName } from './fixtures.js';
import { startHarness, type HarnessOptions } from './mux-harness.js';
import { taggedEnv, waitFor } from './processes.js';

export interface RemoteFixture {
  process: ChildProcess;
  url: string;
  /** What it printed so far. */
  log: () => string;
  stop: () => Promise<unknown>;
}

/** Starts the fixture and resolves once it listens. */
export async function startRemoteFixture(
  name: FixtureName,
  env: Record<string, string> = {},
): Promise<RemoteFixture> {
  const proc = await ChildProcess.spawn({
    command: process.execPath,
    args: [fixturePath(name)],
    env: taggedEnv(env),
  });
  let log = '';
  // Most print it on stderr; the authorization servers (oauth-server.js, idp-server.js) on stdout.
  proc.stderr.on('data', (d) => (log += d));
  proc.stdout.on('data', (d) => (log += d));
  if (!(await waitFor(() => /listening on (\S+)/.test(log))))
    throw new Error(`testservers/${name}.js did not listen: ${log}`);
  return {
    process: proc,
    url: /listening on (\S+)/.exec(log)![1]!,
    log: () => log,
    stop: () => proc.stop({ stdinGraceMs: 0 }),
  };
}

export async function withFaultyRemote(t: Test, options: HarnessOptions = {}) {
  const remote = await startRemoteFixture('http-faults');
  const h = await startHarness(t, options);
  await h.callJson('add_server', { name: 'exp', url: remote.url });
  // The remote server first: the harness's close checks that no process is left.
  const close = async () => {
    await remote.stop();
    await h.close();
  };
  return { h, remote, close };
}
