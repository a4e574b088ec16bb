// The opt-in restart policy: "restart": {"on": "failure"} starts a crashed server again after
// a backoff. Its tools stay listed meanwhile (calls wait; no notification when nothing
// changed); a server that keeps dying is given up after its attempts, crashed as without a
// policy; remove_server during the backoff cancels it; a remote server that went away is
// reached again when it is back. Without a policy nothing restarts behind the agent's back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { fixture, fixturePath } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { isAlive, taggedEnv, waitFor } from '../helpers/processes.js';

const statusOf = async (h: Awaited<ReturnType<typeof startHarness>>, name: string) =>
  ((await h.callJson('list_servers')).servers as any[]).find((s) => s.name === name);

const quick = { on: 'failure', backoff_seconds: [0.1] };

t.test(
  'a crash is restarted after the backoff; its tools stay listed, and the client hears nothing',
  async (t) => {
    const h = await startHarness(t);
    const added = await h.callJson('add_server', {
      name: 'flaky',
      ...fixture('crash-on-call'),
      restart: quick,
    });
    const firstPid = added.server.pid;
    t.ok(await waitFor(() => h.listChanged() === 1));
    const crashed = await h.call('flaky__crash', {});
    t.ok(crashed.isError, 'the call in flight fails with the crash');
    t.match(
      textOf(crashed),
      /server 'flaky' crashed \(exit 1\); its restart policy may start it again \(list_servers shows whether it is restarting\), or call reload_server/,
      'saying what follows, not only to reload it',
    );
    t.notOk(
      h.logs.some((l) => /'flaky'.*withdrawn until reload_server/.test(l)),
      'nor is it logged as withdrawn',
    );
    t.ok((await h.toolNames()).includes('flaky__ok'), 'its tools are still listed');
    // A call made while it restarts waits for it.
    t.equal(
      textOf(await h.call('flaky__ok', {})),
      'ok',
      'a call after the crash is answered by the new process',
    );
    const status = await statusOf(h, 'flaky');
    t.equal(status.status, 'running');
    t.not(status.pid, firstPid, 'a new process');
    t.notOk(isAlive(firstPid), 'the old one is gone');
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.equal(h.listChanged(), 1, 'no list_changed: the tools did not change');
    t.ok(
      h.logs.some((l) => /restarting it in 0.1 s \(attempt 1 of 5\)/.test(l)),
      'the restart is logged',
    );
    await h.close();
  },
);

t.test(
  'a server that dies at every start is given up after its attempts, with nothing left running',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpmux-restart-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const marker = join(dir, 'crashed');
    const h = await startHarness(t);
    await h.callJson('add_server', {
      name: 'doomed',
      ...fixture('crash-on-call'),
      env: { CRASH_MARKER: marker },
      restart: { on: 'failure', max_attempts: 3, backoff_seconds: [0.05, 0.1] },
    });
    await h.call('doomed__crash', {});
    t.ok(
      await waitFor(async () => (await statusOf(h, 'doomed')).restart?.attempt >= 1),
      'list_servers shows the attempt while it restarts',
    );
    t.ok(
      await waitFor(async () => (await statusOf(h, 'doomed')).restart?.gave_up === true, 10_000),
      'it gives up',
    );
    const status = await statusOf(h, 'doomed');
    t.equal(status.status, 'crashed');
    t.same(status.restart, { attempt: 3, max_attempts: 3, gave_up: true });
    t.match(status.stderr_tail.join('\n'), /refusing to start/, 'with its last stderr lines');
    t.ok(
      await waitFor(async () => !(await h.toolNames()).includes('doomed__ok')),
      'its tools are withdrawn once it gives up',
    );
    t.match(textOf(await h.call('doomed__ok', {})), /TOOL_NOT_FOUND|crashed/);
    t.equal(
      h.logs.filter((l) => /restart attempt \d failed/.test(l)).length,
      3,
      'three attempts, then no more',
    );
    rmSync(marker);
    await h.callJson('reload_server', { name: 'doomed' });
    t.equal(textOf(await h.call('doomed__ok', {})), 'ok', 'reload_server brings it back');
    await h.close();
  },
);

t.test('remove_server during the backoff cancels the restart', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', {
    name: 'slowback',
    ...fixture('crash-on-call'),
    restart: { on: 'failure', backoff_seconds: [2] },
  });
  await h.call('slowback__crash', {});
  t.ok(await waitFor(async () => (await statusOf(h, 'slowback')).status === 'restarting'));
  t.ok((await statusOf(h, 'slowback')).restart.next_try_in_seconds > 0, 'it says when it tries next');
  await h.callJson('remove_server', { name: 'slowback' });
  await new Promise((resolve) => setTimeout(resolve, 2500));
  t.same((await h.callJson('list_servers')).servers, [], 'nothing came back');
  t.notOk(h.logs.some((l) => /server 'slowback' restarted/.test(l)));
  await h.close();
});

t.test('without a policy, a crash stays crashed', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'plain', ...fixture('crash-on-call') });
  await h.call('plain__crash', {});
  t.ok(await waitFor(async () => (await statusOf(h, 'plain')).status === 'crashed'));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.equal((await statusOf(h, 'plain')).status, 'crashed', 'still crashed');
  await h.close();
});

t.test('a remote server that went away is reached again when it is back', async (t) => {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const serve = () =>
    ChildProcess.spawn({
      command: process.execPath,
      args: [fixturePath('modern-http')],
      env: taggedEnv({ PORT: String(port) }),
    });
  let remote = await serve();
  const listening = async (proc: ChildProcess) => {
    let log = '';
    proc.stderr.on('data', (d) => (log += d));
    return waitFor(() => log.includes('listening on'));
  };
  t.ok(await listening(remote));
  const h = await startHarness(t);
  await h.callJson('add_server', {
    name: 'far',
    url: `http://127.0.0.1:${port}/mcp`,
    restart: { on: 'failure', max_attempts: 20, backoff_seconds: [0.2] },
  });
  t.equal(textOf(await h.call('far__echo', { message: 'before' })), 'before');
  await remote.stop();
  // The next call finds it gone: a lost connection is a failure, and the policy takes over.
  await h.call('far__echo', { message: 'lost' });
  t.ok(await waitFor(async () => (await statusOf(h, 'far')).status === 'restarting'), 'restarting');
  remote = await serve();
  t.ok(await listening(remote));
  t.ok(
    await waitFor(async () => (await statusOf(h, 'far')).status === 'running', 10_000),
    'running again once the server is back',
  );
  t.equal(textOf(await h.call('far__echo', { message: 'after' })), 'after');
  await remote.stop();
  await h.close();
});

t.test(
  'a server that crashes again soon after each restart is a crash loop: its attempts add up',
  async (t) => {
    const h = await startHarness(t);
    await h.callJson('add_server', {
      name: 'loop',
      ...fixture('crash-on-call'),
      restart: { on: 'failure', max_attempts: 2, backoff_seconds: [0.05] },
    });
    for (let crash = 1; crash <= 2; crash++) {
      await h.call('loop__crash', {});
      t.equal(textOf(await h.call('loop__ok', {})), 'ok', `restarted after crash ${crash}`);
    }
    await h.call('loop__crash', {});
    t.ok(
      await waitFor(async () => (await statusOf(h, 'loop')).restart?.gave_up === true),
      'the third crash within 10 s of a restart: given up',
    );
    t.equal((await statusOf(h, 'loop')).status, 'crashed');
    await h.close();
  },
);

t.test(
  'chaos with restarts on: children killed under load, every answer is its own, nothing leaks',
  async (t) => {
    const h = await startHarness(t);
    const names = ['c1', 'c2', 'c3'];
    for (const name of names)
      await h.callJson('add_server', {
        name,
        ...fixture('echo-v1'),
        restart: { on: 'failure', max_attempts: 50, backoff_seconds: [0.05] },
      });
    let answered = 0;
    let failed = 0;
    for (let wave = 0; wave < 6; wave++) {
      const calls = Array.from({ length: 30 }, (_, i) => {
        const server = names[i % names.length]!;
        const message = `${server}-${wave}-${i}`;
        return h.call(`${server}__echo`, { message }).then((result) => ({ message, result }));
      });
      // Kill one child in the middle of the wave.
      const victim = await statusOf(h, names[wave % names.length]!);
      if (victim.pid) process.kill(victim.pid, 'SIGKILL');
      for (const { message, result } of await Promise.all(calls)) {
        if (result.isError) {
          failed++;
          t.match(textOf(result), /crashed|restart|exited/, 'a failed call says why');
        } else {
          answered++;
          if (textOf(result) !== message) t.fail(`crossed answer: sent ${message}, got ${textOf(result)}`);
        }
      }
    }
    t.ok(answered > failed, `most calls answered (${answered} answered, ${failed} failed)`);
    for (const name of names)
      t.ok(await waitFor(async () => (await statusOf(h, name)).status === 'running'), `${name} runs again`);
    await h.close();
  },
);
