// Three replicas of the built mcpmux on one real Redis: a server added through one runs on every
// replica whose spawn policy admits it (its clients are told list_changed), a replica that
// refuses it says so in list_servers, remove_server through another stops it everywhere, and
// Redis gone keeps what runs, refuses changes naming Redis, and comes back without losing the set.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { StateKey } from '../../src/cluster/state-key.js';
import t from 'tap';
import { STATE_KEY, startReplica } from '../helpers/cluster-replicas.js';
import { DIST_MAIN, fixture, fixturePath } from '../helpers/fixtures.js';
import { assertNoLeaks, killTaggedProcesses, taggedProcesses, waitFor } from '../helpers/processes.js';
import { startRedis } from '../helpers/redis-server.js';

t.teardown(() => killTaggedProcesses());

t.test(
  'an add through one replica runs on every replica that admits it; a remove through another stops it everywhere',
  async (t) => {
    const redis = await startRedis(t);
    const [a, b, c] = [
      await startReplica(t, redis.url, 'r1'),
      await startReplica(t, redis.url, 'r2'),
      // This replica's operator allows npx alone: the echo fixture (node) is refused here.
      await startReplica(t, redis.url, 'r3', ['--allow-command', 'npx']),
    ];
    const echo = fixture('echo-v1');
    const added = await a.json('add_server', { name: 'echo', ...echo, placement: 'every' });
    t.equal(added.server?.status, 'running', JSON.stringify(added));
    t.same(added.cluster, { replica: 'r1' });

    // add_server answers once every live replica has applied the change: no waiting here.
    t.ok((await b.tools()).includes('echo__echo'), 'r2 lists its tools as soon as add_server has answered');
    t.ok(await waitFor(() => b.listChanged > 0, 5000), "r2's client was told the list changed");
    const called = (await b.client.callTool({ name: 'echo__echo', arguments: { message: 'via r2' } })) as any;
    t.match(called.content[0].text, /via r2/, 'and calls it there');

    t.equal(
      (await c.json('list_servers')).cluster.not_running_here.length,
      1,
      'r3 reports what it does not run',
    );
    const refused = (await c.json('list_servers')).cluster.not_running_here[0];
    t.equal(refused.name, 'echo');
    t.equal(refused.added_by, 'r1');
    t.match(refused.reason, /this replica's spawn policy refuses it/);
    t.notOk((await c.tools()).includes('echo__echo'), 'nor lists it');

    // Each replica runs its own copy: three processes would be two here (r3 refused it).
    const echoes = () =>
      taggedProcesses().filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(fixturePath('echo-v1'));
        } catch {
          return false;
        }
      });
    t.equal(echoes().length, 2, 'one echo process on r1, one on r2');

    // reload_server through r2 restarts r1's copy too (the dev loop of a server every replica runs).
    const pidOnA = async () =>
      (await a.json('list_servers')).servers.find((s: { name: string }) => s.name === 'echo').pid;
    const before = await pidOnA();
    const reloaded = await b.json('reload_server', { name: 'echo' });
    t.same(reloaded.cluster, { replica: 'r2' }, JSON.stringify(reloaded));
    t.not(await pidOnA(), before, "r1's copy is a new process once reload_server has answered");
    t.equal(echoes().length, 2, 'and the old ones are gone');

    const removed = await b.json('remove_server', { name: 'echo' });
    t.equal(removed.removed, 'echo', JSON.stringify(removed));
    t.equal(echoes().length, 0, 'no process of it on any replica once remove_server has answered');
    t.ok(await waitFor(async () => !(await a.tools()).includes('echo__echo'), 5000), 'r1 withdrew its tools');
    t.same((await c.json('list_servers')).cluster.not_running_here, [], 'nor is it reported by r3 any more');

    t.match((await a.json('remove_server', { name: 'echo' })).error, /no server 'echo'|NOT_FOUND/i);
  },
);

t.test(
  'Redis gone: what runs keeps running, changes are refused naming Redis; back empty, nothing is lost',
  async (t) => {
    const redis = await startRedis(t);
    const a = await startReplica(t, redis.url, 'r1');
    const b = await startReplica(t, redis.url, 'r2');
    const echo = fixture('echo-v1');
    await a.json('add_server', { name: 'kept', ...echo });
    t.ok(await waitFor(async () => (await b.tools()).includes('kept__echo'), 5000));

    await redis.stop();
    const refused = await a.json('add_server', { name: 'later', ...echo });
    t.match(
      refused.error,
      /the cluster's Redis at redis:\/\/127\.0\.0\.1:\d+\/? cannot be reached.*\[CLUSTER_UNAVAILABLE\]/s,
    );
    t.notOk((await a.tools()).includes('later__echo'), 'nothing was started for it');
    const removal = await b.json('remove_server', { name: 'kept' });
    t.match(
      removal.error,
      /CLUSTER_UNAVAILABLE/,
      'a remove is refused too: it would leave the replicas apart',
    );
    const stillThere = (await b.client.callTool({
      name: 'kept__echo',
      arguments: { message: 'still' },
    })) as any;
    t.match(stillThere.content[0].text, /still/, 'calls go on');

    // Redis comes back without its data (no persistence): the replicas publish what they run again.
    await redis.start();
    t.ok(
      await waitFor(async () => !(await a.json('add_server', { name: 'later', ...echo })).error, 15_000),
      'changes are taken again',
    );
    t.ok(await waitFor(async () => (await b.tools()).includes('later__echo'), 5000), 'and reach the others');
    t.ok((await b.tools()).includes('kept__echo'), 'what ran before the outage still runs');
    await b.json('remove_server', { name: 'kept' });
    t.ok(
      await waitFor(async () => !(await a.tools()).includes('kept__echo'), 5000),
      'the set came back whole: a remove of what was added before the outage reaches every replica',
    );
  },
);

t.test('a replica refuses to start without the state key, or with --redis and no --http', async (t) => {
  const run = async (args: string[], env: Record<string, string>) => {
    return new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [DIST_MAIN, ...args],
        { env: { ...process.env, ...env } },
        (error, _out, stderr) => resolve({ code: error ? (error as any).code : 0, stderr }),
      );
    });
  };
  const noKey = await run(['--http', '0', '--redis', 'redis://127.0.0.1:1'], { MCPMUX_STATE_KEY: '' });
  t.equal(noKey.code, 2);
  t.match(noKey.stderr, /a cluster needs MCPMUX_STATE_KEY.*openssl rand -base64 32/);
  const noHttp = await run(['--redis', 'redis://127.0.0.1:1'], { MCPMUX_STATE_KEY: STATE_KEY });
  t.equal(noHttp.code, 2);
  t.match(noHttp.stderr, /give --http PORT too/);
  const badUrl = await run(['--http', '0', '--redis', 'http://redis:6379'], { MCPMUX_STATE_KEY: STATE_KEY });
  t.match(badUrl.stderr, /--redis must be a redis:\/\/ or rediss:\/\/ URL/);
});

t.test('an entry written into Redis without the state key is reported, never run', async (t) => {
  const redis = await startRedis(t);
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-forged-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const planted = join(dir, 'planted');
  const forger = StateKey.from('a-key-the-replicas-do-not-have-0123456789');
  const entry = {
    command: process.execPath,
    args: ['-e', `require('fs').writeFileSync(${JSON.stringify(planted)}, 'x')`],
  };
  const admin = createClient({ url: redis.url });
  admin.on('error', () => {});
  await admin.connect();
  t.teardown(() => admin.destroy());
  await admin.hSet('mcpmux:team:servers', {
    forged: JSON.stringify({
      sealed: forger.seal('registry', 'team/forged', JSON.stringify(entry)),
      by: 'r1',
      at: 'now',
    }),
    plain: JSON.stringify({ sealed: JSON.stringify(entry), by: 'r1', at: 'now' }),
  });
  const replica = await startReplica(t, redis.url, 'r9');
  const refused = (await replica.json('list_servers')).cluster.not_running_here;
  t.same(refused.map((r: { name: string }) => r.name).sort(), ['forged', 'plain']);
  for (const r of refused) t.match(r.reason, /does not open with this replica's MCPMUX_STATE_KEY/);
  t.notOk(existsSync(planted), 'nothing of it ran');
});

t.test('no process is left', async (t) => {
  await assertNoLeaks(t);
});
