// The orphan reaper against real process groups: when its input ends (mcpmux died), it
// kills the groups still listed, spares the released ones, ignores anything that is not a
// process group id, and exits.
import t from 'tap';
import { ChildProcess } from '../../../src/child/process/child-process.js';
import { startOrphanReaper } from '../../../src/child/process/orphan-reaper.js';
import { isGroupAlive, isProcessAlive } from '../../../src/child/process/process-table.js';
import { fixtureSpec } from '../../helpers/fixtures.js';
import { assertNoLeaks, spawnDaemonizing, taggedEnv, waitFor } from '../../helpers/processes.js';

const spawnFixture = (name: Parameters<typeof fixtureSpec>[0]) => {
  const spec = fixtureSpec(name);
  return ChildProcess.spawn({ command: spec.command, args: spec.args, env: taggedEnv() });
};

t.test(
  'at the end of its input the reaper kills listed groups, spares released ones, and exits',
  async (t) => {
    const errors: Error[] = [];
    const reaper = startOrphanReaper((error) => errors.push(error));
    if (!reaper) throw new Error('the reaper did not start');
    const stubborn = await spawnFixture('hang-on-shutdown'); // ignores EOF and SIGTERM: only SIGKILL ends it
    const released = await spawnFixture('echo-v1');
    reaper.added(stubborn.pid, stubborn.tag);
    reaper.added(released.pid, released.tag);
    reaper.removed(released.pid, released.tag);
    // Not process group ids, nor tags: must be ignored (a -0 would be the reaper's own group,
    // and a tag that matched anything would end every process it can read).
    reaper.added(0, '');
    reaper.added(Number.NaN, '*');
    reaper.added(-5, 'x y');
    reaper.added(-6, 'a'); // hex, but short enough to be in many an environment
    reaper.close();
    t.ok(await waitFor(() => !isGroupAlive(stubborn.pid), 10_000), 'the listed group is killed');
    t.ok(await waitFor(() => !isProcessAlive(reaper.pid), 5_000), 'the reaper exits');
    t.ok(isGroupAlive(released.pid), 'the released group is spared');
    t.same(errors, []);
    await stubborn.stop({ stdinGraceMs: 10, termGraceMs: 10 });
    await released.stop();
    await assertNoLeaks(t);
  },
);

t.test('the reaper ends a stopped child with SIGTERM, continuing it so that it can act on it', async (t) => {
  const reaper = startOrphanReaper((error) => t.fail(error.message));
  if (!reaper) throw new Error('the reaper did not start');
  const stopped = await spawnFixture('echo-v1');
  process.kill(stopped.pid, 'SIGSTOP');
  reaper.added(stopped.pid, stopped.tag);
  reaper.close();
  t.same(await stopped.exited, { code: null, signal: 'SIGTERM' });
  t.ok(await waitFor(() => !isProcessAlive(reaper.pid), 5_000), 'the reaper exits');
  await stopped.stop();
  await assertNoLeaks(t);
});

t.test('with nothing left to kill, the reaper just exits', async (t) => {
  const reaper = startOrphanReaper((error) => t.fail(error.message));
  if (!reaper) throw new Error('the reaper did not start');
  const child = await spawnFixture('echo-v1');
  reaper.added(child.pid, child.tag);
  await child.stop();
  reaper.removed(child.pid, child.tag);
  reaper.close();
  t.ok(await waitFor(() => !isProcessAlive(reaper.pid), 2_000), 'the reaper exits');
  await assertNoLeaks(t);
});

t.test('the reaper also ends what a listed child started outside its group', async (t) => {
  const reaper = startOrphanReaper((error) => t.fail(error.message));
  if (!reaper) throw new Error('the reaper did not start');
  const { child, daemon } = await spawnDaemonizing(t);
  reaper.added(child.pid, child.tag);
  reaper.close();
  t.ok(await waitFor(() => !isProcessAlive(daemon), 10_000), 'the daemon, which ignores SIGTERM, is killed');
  t.ok(await waitFor(() => !isGroupAlive(child.pid), 10_000), 'and the child');
  await child.stop({ stdinGraceMs: 10, termGraceMs: 10 });
  await assertNoLeaks(t);
});
