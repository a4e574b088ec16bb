// The cluster's set of servers in a real Redis: what one replica changes every other sees, in
// order and soon; one whose connection dropped catches up; Redis gone refuses changes, saying
// so; Redis back empty makes the followers read the whole set again.
import t, { type Test } from 'tap';
import {
  ClusterRegistry,
  type RegistryChange,
  type RegistrySnapshot,
} from '../../src/cluster/cluster-registry.js';
import { createClient } from '@redis/client';
import { startRedis } from '../helpers/redis-server.js';
import { assertNoLeaks, waitFor } from '../helpers/processes.js';
import { StateKey } from '../../src/cluster/state-key.js';

const logger = { debug() {}, info() {}, warn() {}, error() {}, audit() {} } as never;
const memory = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] };
const key = StateKey.from('a-test-key-of-the-cluster-0123456789');

async function replica(t: Test, url: string, name: string, cluster = 'team', stateKey = key) {
  const registry = await ClusterRegistry.connect({ url, cluster, replica: name, logger, key: stateKey });
  t.teardown(() => registry.close());
  const changes: RegistryChange[] = [];
  const resyncs: RegistrySnapshot[] = [];
  const from = await registry.snapshot();
  const stop = registry.follow(from, { change: (c) => changes.push(c), resync: (s) => resyncs.push(s) });
  t.teardown(stop);
  return { registry, changes, resyncs };
}

t.test('a change through one replica reaches the others, in order, with its version', async (t) => {
  const redis = await startRedis(t);
  const a = await replica(t, redis.url, 'a');
  const b = await replica(t, redis.url, 'b');
  const other = await replica(t, redis.url, 'c', 'another-team');
  t.equal(await a.registry.put('memory', memory), 1);
  t.equal(await b.registry.put('echo', { command: 'node', args: ['echo.js'] }), 2);
  t.equal(await a.registry.remove('memory'), 3);
  t.equal(await a.registry.remove('memory'), undefined, 'removing what is not there changes nothing');
  t.ok(await waitFor(() => a.changes.length === 3 && b.changes.length === 3, 5000));
  t.same(
    b.changes.map((c) => [c.version, c.op, c.name]),
    [
      [1, 'put', 'memory'],
      [2, 'put', 'echo'],
      [3, 'remove', 'memory'],
    ],
  );
  const put = b.changes[0]!;
  t.same(put.op === 'put' && put.entry.entry, memory);
  t.equal(put.op === 'put' && put.entry.by, 'a', 'names the replica that made it');
  const snapshot = await b.registry.snapshot();
  t.equal(snapshot.version, 3);
  t.same([...snapshot.servers.keys()], ['echo']);
  t.same(other.changes, [], 'another cluster sees none of it');
});

t.test(
  'a follower whose connection dropped catches up; a stream that lost what it missed resyncs',
  async (t) => {
    const redis = await startRedis(t);
    const a = await replica(t, redis.url, 'a');
    const b = await replica(t, redis.url, 'b');
    await a.registry.put('one', memory);
    t.ok(await waitFor(() => b.changes.length === 1, 5000));
    // Drop b's follower connection while a makes two changes.
    const admin = createClient({ url: redis.url });
    admin.on('error', () => {});
    await admin.connect();
    const list = String(await admin.sendCommand(['CLIENT', 'LIST']));
    const id = /id=(\d+) [^\n]*name=mcpmux-b-follower/.exec(list)?.[1];
    t.ok(id, "b's follower connection is named");
    await admin.sendCommand(['CLIENT', 'KILL', 'ID', id!]);
    await a.registry.put('two', memory);
    await a.registry.put('three', memory);
    t.ok(await waitFor(() => b.changes.length === 3, 10_000), 'b caught up');
    t.same(
      b.changes.map((c) => c.name),
      ['one', 'two', 'three'],
    );
    admin.destroy();
    // Redis restarted empty (nothing kept on disk): the followers read the whole set again.
    await redis.stop();
    await t.rejects(
      a.registry.put('four', memory),
      { code: 'CLUSTER_UNAVAILABLE' },
      'Redis gone: a change is refused at once',
    );
    const refused = await a.registry.put('four', memory).catch((error: Error) => error.message);
    t.match(refused, /the cluster's Redis at redis:\/\/127\.0\.0\.1:\d+\/? cannot be reached/);
    await redis.start();
    t.ok(
      await waitFor(
        async () =>
          await a.registry.put('five', memory).then(
            () => true,
            () => false,
          ),
        10_000,
      ),
    );
    t.ok(await waitFor(() => b.resyncs.length > 0, 10_000), 'b read the whole set again');
    t.same([...b.resyncs.at(-1)!.servers.keys()], ['five']);
  },
);

t.test(
  'Redis alone reads no entry; one sealed with another key, or moved to another name, is reported, not run',
  async (t) => {
    const redis = await startRedis(t);
    const a = await replica(t, redis.url, 'a');
    const secret = { command: 'node', args: ['server.js'], env: { API_KEY: 'sk-live-0042' } };
    await a.registry.put('withKey', secret);
    const admin = createClient({ url: redis.url });
    admin.on('error', () => {});
    await admin.connect();
    t.teardown(() => admin.destroy());
    const dump =
      JSON.stringify(await admin.hGetAll('mcpmux:team:servers')) +
      JSON.stringify(await admin.xRange('mcpmux:team:changes', '-', '+'));
    t.notMatch(
      dump,
      /sk-live-0042|server\.js|API_KEY/,
      'neither the command nor the env is readable in Redis',
    );
    t.match(dump, /"by\\?":\\?"a/, 'who set it is');

    const stranger = await replica(
      t,
      redis.url,
      'z',
      'team',
      StateKey.from('another-key-of-another-cluster-98765'),
    );
    const seen = (await stranger.registry.snapshot()).servers.get('withKey')!;
    t.equal(seen.entry, undefined, 'another key opens nothing');
    t.match(seen.problem, /does not open with this replica's MCPMUX_STATE_KEY/);

    // A value copied under another name does not open there either.
    await admin.hSet('mcpmux:team:servers', 'moved', (await admin.hGet('mcpmux:team:servers', 'withKey'))!);
    const moved = (await a.registry.snapshot()).servers.get('moved')!;
    t.equal(moved.entry, undefined);
    t.same((await a.registry.snapshot()).servers.get('withKey')!.entry, secret);
  },
);

t.test('a replica that leaves is no longer live, and is known to have left of its own accord', async (t) => {
  const redis = await startRedis(t);
  const a = await replica(t, redis.url, 'a');
  const b = await replica(t, redis.url, 'b');
  await a.registry.announce(1);
  t.ok((await b.registry.liveReplicas()).has('a'));
  t.notOk(await b.registry.hasLeft('a'), 'alive: it has not left');
  await a.registry.leave();
  t.notOk((await b.registry.liveReplicas()).has('a'), 'gone from the live ones at once');
  t.ok(
    await b.registry.hasLeft('a'),
    'and said so (a drain), unlike a replica that died or a Redis that lost the list',
  );
  t.notOk(await b.registry.hasLeft('c'), 'one never seen has not left');
});

t.test('a key is required, and long enough', async (t) => {
  t.throws(() => StateKey.from(undefined), { code: 'INVALID_ARGUMENTS', message: /openssl rand -base64 32/ });
  t.throws(() => StateKey.from('short'), { message: /has 5 characters; it needs at least 32/ });
  const sealed = key.seal('registry', 'x', 'hello');
  t.equal(key.open('registry', 'x', sealed), 'hello');
  t.throws(
    () => key.open('results', 'x', sealed),
    'a value sealed for one purpose does not open for another',
  );
  t.throws(() => key.open('registry', 'x', sealed.slice(0, -2) + (sealed.endsWith('AA') ? 'BB' : 'AA')));
  t.ok(key.isHopToken(key.hopToken()));
  t.notOk(key.isHopToken(StateKey.from('another-key-of-another-cluster-98765').hopToken()));
});

t.test('no redis-server or connection is left', async (t) => {
  await assertNoLeaks(t);
});
