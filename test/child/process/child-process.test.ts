// The stop ladder against real processes: a polite child ends at stdin EOF, a stubborn one
// at SIGKILL, and death (of the whole group) is confirmed before stop() resolves.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import {
  ChildProcess,
  killAllProcessGroupsSync,
  liveProcessGroups,
} from '../../../src/child/process/child-process.js';
import { isGroupAlive, isProcessAlive, listProcesses } from '../../../src/child/process/process-table.js';
import { findTagged } from '../../../src/child/process/process-tags.js';
import { fixtureSpec } from '../../helpers/fixtures.js';
import { assertNoLeaks, spawnDaemonizing, taggedEnv, waitFor } from '../../helpers/processes.js';

const spawnFixture = (name: Parameters<typeof fixtureSpec>[0]) => {
  const spec = fixtureSpec(name);
  return ChildProcess.spawn({ command: spec.command, args: spec.args, env: taggedEnv() });
};

t.test('a child that exits on stdin EOF stops at the first step', async (t) => {
  const child = await spawnFixture('echo-v1');
  t.ok(liveProcessGroups().includes(child.pid), 'its group is tracked');
  // Stopped as it starts: on a loaded machine its Node start alone took more than 3 s once
  // (a CI run beside a build), so the grace is long; it ends as soon as the child exits.
  const exit = await child.stop({ stdinGraceMs: 15_000, termGraceMs: 100 });
  t.same(exit, { code: 0, signal: null }, 'exited by itself with code 0');
  t.notOk(isGroupAlive(child.pid));
  t.notOk(liveProcessGroups().includes(child.pid), 'no longer tracked');
  await assertNoLeaks(t);
});

t.test('a child that ignores stdin EOF and SIGTERM is SIGKILLed within the grace periods', async (t) => {
  const child = await spawnFixture('hang-on-shutdown');
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  t.ok(await waitFor(() => stderr.includes('ready')), 'its handlers are installed');
  const first = child.stop({ stdinGraceMs: 200, termGraceMs: 300, killWaitMs: 3000 });
  t.equal(child.stop(), first, 'a second stop joins the first');
  const exit = await first;
  t.equal(exit.signal, 'SIGKILL');
  t.notOk(isProcessAlive(child.pid));
  await assertNoLeaks(t);
});

t.test('a stopped child (SIGSTOP) ends at SIGTERM, not only at SIGKILL', async (t) => {
  // Stopped, it reads no EOF and holds SIGTERM: the SIGCONT sent with it lets it act on it.
  const child = await spawnFixture('echo-v1');
  process.kill(child.pid, 'SIGSTOP');
  const exit = await child.stop({ stdinGraceMs: 100, termGraceMs: 5000 });
  t.same(exit, { code: null, signal: 'SIGTERM' });
  t.notOk(isGroupAlive(child.pid));
  await assertNoLeaks(t);
});

t.test('killAllProcessGroupsSync kills every tracked group at once', async (t) => {
  const a = await spawnFixture('hang-on-shutdown');
  const b = await spawnFixture('echo-v1');
  t.ok(killAllProcessGroupsSync() >= 2);
  t.same(await a.exited, { code: null, signal: 'SIGKILL' });
  t.same(await b.exited, { code: null, signal: 'SIGKILL' });
  await assertNoLeaks(t);
});

t.test('what a child started outside its group is found by its tag and ended with it', async (t) => {
  const { child, daemon } = await spawnDaemonizing(t);
  t.not(listProcesses().find((p) => p.pid === daemon)?.pgid, child.pid, 'the daemon has left the group');
  const exit = await child.stop({ stdinGraceMs: 1000, termGraceMs: 300 });
  t.same(exit, { code: 0, signal: null }, 'the child itself exited at stdin EOF');
  t.notOk(isProcessAlive(daemon), 'the daemon, which ignores SIGTERM, is dead when stop() resolves');
  t.equal(child.escaped.length, 2, 'the daemon and its own child are reported as ended');
  t.ok(child.escaped.includes(daemon));
  t.same(await findTagged(child.tag), [], 'nothing carries the tag any more');
  await assertNoLeaks(t);
});

t.test('killAllProcessGroupsSync also kills what left the groups', async (t) => {
  const { child, daemon } = await spawnDaemonizing(t);
  killAllProcessGroupsSync();
  t.same(await child.exited, { code: null, signal: 'SIGKILL' });
  t.ok(await waitFor(() => !isProcessAlive(daemon)), 'the daemon is killed too');
  await assertNoLeaks(t);
});

t.test('spawn failures are SPAWN_FAILED errors that say what to fix', async (t) => {
  await t.rejects(ChildProcess.spawn({ command: '/nonexistent/cmd', args: [], env: {} }), {
    code: 'SPAWN_FAILED',
    message: /command not found \(ENOENT\)/,
  });
  await t.rejects(
    ChildProcess.spawn({ command: 'npx -y @modelcontextprotocol/server-memory', args: ['/data'], env: {} }),
    {
      code: 'SPAWN_FAILED',
      message:
        'command not found (ENOENT): the command is one program, its arguments go in args: {"command": "npx", "args": ["-y","@modelcontextprotocol/server-memory","/data"]}',
    },
    'a whole command line given as the command is split for the caller',
  );
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-spawn-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'not-executable'), '#!/bin/sh\n', { mode: 0o644 });
  await t.rejects(ChildProcess.spawn({ command: join(dir, 'not-executable'), args: [], env: {} }), {
    code: 'SPAWN_FAILED',
    message: /EACCES/,
  });
  await t.rejects(ChildProcess.spawn({ command: 'node', args: [], env: {}, cwd: '/nonexistent' }), {
    message: /cwd '\/nonexistent' is not an existing directory/,
  });
});
