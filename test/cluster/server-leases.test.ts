// Which replica runs a "one" server, in a real Redis: one holder at a time; a holder that gives
// it up or dies (SIGKILL) is followed by another within the lease; Redis away loses no lease (no
// replica can take it), Redis back empty is taken again by its holder, and a holder whose lease
// another took is told it lost it.
import { createClient } from '@redis/client';
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { ServerLeases } from '../../src/cluster/server-leases.js';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { ROOT } from '../helpers/fixtures.js';
import { startRedis } from '../helpers/redis-server.js';
import { assertNoLeaks, taggedEnv, waitFor } from '../helpers/processes.js';

const logger = { debug() {}, info() {}, warn() {}, error() {}, audit() {} } as never;
const TTL = 600;

async function replica(t: Test, url: string, name: string) {
  const leases = await ServerLeases.connect({ url, cluster: 'team', replica: name, logger, ttlMs: TTL });
  t.teardown(() => leases.close());
  const events: string[] = [];
  const stop = leases.hold('memory', {
    acquired: () => events.push('acquired'),
    lost: () => events.push('lost'),
  });
  return { leases, events, stop };
}

t.test('one holder at a time; one that gives it up is followed by another', async (t) => {
  const redis = await startRedis(t);
  const a = await replica(t, redis.url, 'a');
  t.ok(await waitFor(() => a.events.includes('acquired'), 5000));
  const b = await replica(t, redis.url, 'b');
  await new Promise((resolve) => setTimeout(resolve, TTL * 2));
  t.same(b.events, [], 'b does not take what a holds and renews');
  t.equal(await b.leases.owner('memory'), 'a');
  await a.stop();
  t.ok(await waitFor(() => b.events.includes('acquired'), TTL * 2), 'given up: b takes it at its next beat');
  t.equal(await a.leases.owner('memory'), 'b');
});

t.test(
  'a holder SIGKILLed is followed within the lease; Redis away loses nothing, and Redis back empty is taken again',
  async (t) => {
    const redis = await startRedis(t);
    const holder = await ChildProcess.spawn({
      command: process.execPath,
      args: [
        '--import=./test/loader/register.mjs',
        join(ROOT, 'test/helpers/lease-holder.ts'),
        redis.url,
        'team',
        'memory',
        'dying',
        String(TTL),
      ],
      env: taggedEnv(),
      cwd: ROOT,
    });
    t.teardown(() => holder.stop({ stdinGraceMs: 0 }));
    let out = '';
    holder.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    holder.stderr.resume();
    t.ok(await waitFor(() => out.includes('acquired'), 10_000), 'the other process holds it');
    const b = await replica(t, redis.url, 'b');
    process.kill(holder.pid, 'SIGKILL');
    const killedAt = Date.now();
    t.ok(await waitFor(() => b.events.includes('acquired'), TTL * 4), 'b takes it once the lease ran out');
    t.comment(`taken over ${Date.now() - killedAt} ms after the SIGKILL (lease ${TTL} ms)`);

    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, TTL * 3));
    t.notOk(b.events.includes('lost'), 'Redis away past the lease: still held (no replica could take it)');
    await redis.start();
    const observer = await ServerLeases.connect({ url: redis.url, cluster: 'team', replica: 'o', logger });
    t.teardown(() => observer.close());
    t.ok(
      await waitFor(async () => (await observer.owner('memory')) === 'b', 10_000),
      'Redis back without its data: its holder took it again',
    );
    t.same(b.events, ['acquired'], 'and was never told it lost it');
    // Cut off while another reached Redis and took it (a partition): told it lost it once back.
    const admin = createClient({ url: redis.url });
    admin.on('error', () => {});
    await admin.connect();
    t.teardown(() => admin.destroy());
    await admin.set('mcpmux:team:lease:memory', 'elsewhere', { expiration: { type: 'PX', value: 60_000 } });
    t.ok(await waitFor(() => b.events.includes('lost'), TTL * 4), 'lost to another replica');
  },
);

t.test('no redis-server or holder is left', async (t) => {
  await assertNoLeaks(t);
});
