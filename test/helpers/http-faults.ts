// testservers/http-faults.js (a remote streamable HTTP server that fails on demand) added
// to an in-process mcpmux as 'exp'.
import type { Test } from 'tap';
import { ChildProcess } from '../../src/child/child-process.js';
import { fixturePath } from './fixtures.js';
import { startHarness, type HarnessOptions } from './mux-harness.js';
import { taggedEnv, waitFor } from './processes.js';

async function faultyServer(
  t: Test,
): Promise<{ url: string; log: () => string; stop: () => Promise<unknown> }> {
  const proc = await ChildProcess.spawn({
    command: process.execPath,
    args: [fixturePath('http-faults')],
    env: taggedEnv(),
  });
  let log = '';
  proc.stderr.on('data', (d) => (log += d));
  t.ok(await waitFor(() => /listening on (\S+)/.test(log)), 'the remote server listens');
  return {
    url: /listening on (\S+)/.exec(log)![1]!,
    log: () => log,
    stop: () => proc.stop({ stdinGraceMs: 0 }),
  };
}

export async function withFaultyRemote(t: Test, options: HarnessOptions = {}) {
  const remote = await faultyServer(t);
  const h = await startHarness(t, options);
  await h.callJson('add_server', { name: 'exp', url: remote.url });
  // The remote server first: the harness's close checks that no process is left.
  const close = async () => {
    await remote.stop();
    await h.close();
  };
  return { h, remote, close };
}
