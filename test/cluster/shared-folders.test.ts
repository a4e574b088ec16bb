// Kept secrets, OAuth sign-ins and pins shared through a real Redis: what a person gave through
// one replica (or `mcpmux secrets` on its machine) every replica uses; Redis holds it sealed; a
// forgotten secret stays forgotten for a replica that was away; Redis gone and back, what
// changed meanwhile is shared.
import { mkdtempSync, readdirSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import t, { type Test } from 'tap';
import { SharedFolders, type SharedFolder } from '../../src/cluster/shared-folders.js';
import { StateKey } from '../../src/cluster/state-key.js';
import { CredentialStore } from '../../src/oauth/credential-store.js';
import { KeptSecrets } from '../../src/secrets/kept-secrets.js';
import { startReplica } from '../helpers/cluster-replicas.js';
import { mcpmuxCommand } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, waitFor } from '../helpers/processes.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const warnings: string[] = [];
const logger = {
  debug() {},
  info() {},
  warn: (line: string) => warnings.push(line),
  error() {},
  audit() {},
} as never;
const key = StateKey.from('a-test-key-of-the-cluster-0123456789');

/** A replica's state folder (as $XDG_STATE_HOME/mcpmux is) and its share of the cluster's. */
async function replica(t: Test, redis: RedisServer, name: string, state = stateFolder(t)) {
  const folders: SharedFolder[] = [
    { name: 'secrets', dir: join(state, 'secrets'), purpose: 'secrets' },
    { name: 'oauth', dir: join(state, 'oauth'), purpose: 'tokens' },
  ];
  const shared = await SharedFolders.connect({
    url: redis.url,
    cluster: 'team',
    replica: name,
    logger,
    key,
    folders,
  });
  t.teardown(() => shared.close());
  return {
    state,
    shared,
    secrets: new KeptSecrets(join(state, 'secrets')),
    credentials: (url: string) => new CredentialStore(url, join(state, 'oauth')),
  };
}

function stateFolder(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-state-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function redisAdmin(t: Test, redis: RedisServer) {
  const admin = createClient({ url: redis.url });
  admin.on('error', () => {});
  await admin.connect();
  t.teardown(() => admin.destroy());
  return admin;
}

t.test(
  'a secret kept and a sign-in made through one replica serve every replica; Redis reads neither',
  async (t) => {
    const redis = await startRedis(t);
    const a = await replica(t, redis, 'a');
    const b = await replica(t, redis, 'b');
    a.secrets.keep('official', 'io.github.acme/weather', { WEATHER_API_KEY: 'sk-weather-42' });
    t.ok(
      await waitFor(
        () => new KeptSecrets(b.secrets.dir).find('io.github.acme/weather', 'WEATHER_API_KEY') !== undefined,
        3000,
      ),
      'the other replica has it',
    );
    t.equal(
      new KeptSecrets(b.secrets.dir).find('io.github.acme/weather', 'WEATHER_API_KEY'),
      'sk-weather-42',
    );

    a.credentials('https://mcp.example.com/mcp').update((stored) => ({
      ...stored,
      tokens: { access_token: 'at-secret-1', refresh_token: 'rt-secret-1', token_type: 'Bearer' },
      savedAt: Date.now(),
    }));
    t.ok(
      await waitFor(
        () => b.credentials('https://mcp.example.com/mcp').read().tokens?.access_token === 'at-secret-1',
        3000,
      ),
      'a sign-in through one replica is a sign-in on all',
    );
    // A refresh on the other replica comes back.
    b.credentials('https://mcp.example.com/mcp').update((stored) => ({
      ...stored,
      tokens: { access_token: 'at-secret-2', refresh_token: 'rt-secret-2', token_type: 'Bearer' },
    }));
    t.ok(
      await waitFor(
        () => a.credentials('https://mcp.example.com/mcp').read().tokens?.refresh_token === 'rt-secret-2',
        3000,
      ),
      'and a refresh on another replica comes back',
    );

    const admin = await redisAdmin(t, redis);
    const everything = JSON.stringify([
      await admin.hGetAll('mcpmux:team:files:secrets'),
      await admin.hGetAll('mcpmux:team:files:oauth'),
    ]);
    t.match(everything, /sealed1\./, 'kept in Redis');
    t.notMatch(
      everything,
      /sk-weather|at-secret|rt-secret|WEATHER_API_KEY|mcp\.example\.com/,
      'Redis alone reads none of it',
    );
  },
);

t.test('forgotten through one replica, forgotten on all, also for one that was away', async (t) => {
  const redis = await startRedis(t);
  const a = await replica(t, redis, 'a');
  const bState = stateFolder(t);
  const b = await replica(t, redis, 'b', bState);
  a.secrets.keep('official', 'io.github.acme/weather', { WEATHER_API_KEY: 'sk-weather-42', UNITS: 'metric' });
  t.ok(await waitFor(() => b.secrets.list().length === 1, 3000));
  await b.shared.close(); // b goes away with its copy
  t.equal(a.secrets.forget('io.github.acme/weather'), 2);
  t.ok(
    await waitFor(
      async () => (await redisAdmin(t, redis)).hLen('mcpmux:team:files:secrets').then((n) => n === 1),
      3000,
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 100)); // the tombstone is newer than b's copy
  const back = await replica(t, redis, 'b', bState);
  t.same(back.secrets.list(), [], 'the returning replica drops its stale copy');
  t.same(a.secrets.list(), [], 'and does not bring it back');
});

t.test(
  'a file written beside mcpmux on its machine is shared; a newer copy wins over an older',
  async (t) => {
    const redis = await startRedis(t);
    const a = await replica(t, redis, 'a');
    const b = await replica(t, redis, 'b');
    a.secrets.keep('official', 'one', { TOKEN: 'first' });
    t.ok(await waitFor(() => b.secrets.values('official', 'one')['TOKEN'] === 'first', 3000));
    // `mcpmux secrets` in another process on a's machine: a plain write into the folder.
    new KeptSecrets(a.secrets.dir).keep('official', 'one', { TOKEN: 'second' });
    t.ok(
      await waitFor(() => b.secrets.values('official', 'one')['TOKEN'] === 'second', 3000),
      'seen and shared',
    );

    // A replica whose copy is older than the cluster's takes the cluster's at its start.
    const cState = stateFolder(t);
    const stale = new KeptSecrets(join(cState, 'secrets'));
    stale.keep('official', 'one', { TOKEN: 'zeroth' });
    const file = join(cState, 'secrets', (await import('node:fs')).readdirSync(join(cState, 'secrets'))[0]!);
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const c = await replica(t, redis, 'c', cState);
    t.equal(c.secrets.values('official', 'one')['TOKEN'], 'second', 'the older copy gives way');
    t.equal(a.secrets.values('official', 'one')['TOKEN'], 'second');
    // Temporary files and locks are not shared.
    writeFileSync(join(a.secrets.dir, 'x.lock'), '123', { mode: 0o600 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.same(Object.keys(await (await redisAdmin(t, redis)).hGetAll('mcpmux:team:files:secrets')).length, 1);
  },
);

t.test(
  'Redis gone: each replica keeps what it has; what changed meanwhile is shared when it is back',
  async (t) => {
    const redis = await startRedis(t);
    const a = await replica(t, redis, 'a');
    const b = await replica(t, redis, 'b');
    a.secrets.keep('official', 'one', { TOKEN: 'before' });
    t.ok(await waitFor(() => b.secrets.values('official', 'one')['TOKEN'] === 'before', 3000));
    warnings.length = 0;
    await redis.stop();
    a.secrets.keep('official', 'one', { TOKEN: 'during' });
    t.ok(await waitFor(() => warnings.some((w) => /not shared right now/.test(w)), 3000), 'told, not lost');
    t.equal(b.secrets.values('official', 'one')['TOKEN'], 'before', 'the other keeps what it had');
    await redis.start();
    t.ok(
      await waitFor(() => b.secrets.values('official', 'one')['TOKEN'] === 'during', 10_000),
      'shared once Redis is back (an empty one: refilled from the replicas)',
    );
  },
);

t.test(
  "forgotten on a replica's machine while its mcpmux was down: forgotten on all when it is back",
  async (t) => {
    const redis = await startRedis(t);
    const a = await replica(t, redis, 'a');
    const bState = stateFolder(t);
    const b = await replica(t, redis, 'b', bState);
    a.secrets.keep('official', 'io.github.acme/weather', { WEATHER_API_KEY: 'sk-weather-42' });
    t.ok(await waitFor(() => b.secrets.list().length === 1, 3000));
    t.equal(
      readdirSync(join(bState, 'secrets')).filter((f) => f.endsWith('.json')).length,
      1,
      "nothing beside it looks like a store's file",
    );
    await b.shared.close(); // b's mcpmux is down; on its machine, the person forgets the secret
    t.equal(new KeptSecrets(join(bState, 'secrets')).forget('io.github.acme/weather'), 1);
    const back = await replica(t, redis, 'b', bState);
    t.same(back.secrets.list(), [], 'not brought back from Redis');
    t.ok(await waitFor(() => a.secrets.list().length === 0, 3000), 'and forgotten on the other replica');
    // A copy this replica never held is still received.
    a.secrets.keep('official', 'other', { TOKEN: 'new' });
    t.ok(await waitFor(() => back.secrets.values('official', 'other')['TOKEN'] === 'new', 3000));
  },
);

t.test('a value sealed with another key is refused, the rest is shared', async (t) => {
  const redis = await startRedis(t);
  const admin = await redisAdmin(t, redis);
  const file = `${'0'.repeat(32)}.json`;
  const other = StateKey.from('another-key-of-another-cluster-98765');
  await admin.hSet(
    'mcpmux:team:files:secrets',
    file,
    JSON.stringify({
      at: Date.now(),
      by: 'mallory',
      sealed: other.seal('secrets', `team/secrets/${file}`, '{}'),
    }),
  );
  warnings.length = 0;
  const a = await replica(t, redis, 'a');
  t.match(warnings.join('\n'), /does not open with this replica's MCPMUX_STATE_KEY/);
  t.same(a.secrets.list(), [], 'nothing written from it');
  a.secrets.keep('official', 'one', { TOKEN: 'mine' });
  t.ok(await waitFor(async () => (await admin.hLen('mcpmux:team:files:secrets')) === 2, 3000));
});

t.test(
  'replicas share their state folders: `mcpmux secrets forget` on one machine forgets on all',
  async (t) => {
    const redis = await startRedis(t);
    const [stateA, stateB] = [stateFolder(t), stateFolder(t)];
    const a = await startReplica(t, redis.url, 'a', [], { env: { XDG_STATE_HOME: stateA } });
    const b = await startReplica(t, redis.url, 'b', [], { env: { XDG_STATE_HOME: stateB } });
    // What the add form keeps when the person agrees, written on a's machine.
    new KeptSecrets(join(stateA, 'mcpmux', 'secrets')).keep('official', 'io.github.acme/weather', {
      WEATHER_API_KEY: 'sk-weather-42',
    });
    const listed = async (state: string) =>
      (await mcpmuxCommand({ XDG_STATE_HOME: state }, 'secrets', 'list')).stdout;
    t.ok(await waitFor(async () => /WEATHER_API_KEY/.test(await listed(stateB)), 5000), "on b's machine");
    const forgot = await mcpmuxCommand(
      { XDG_STATE_HOME: stateB },
      'secrets',
      'forget',
      'io.github.acme/weather',
    );
    t.equal(forgot.code, 0, forgot.stderr);
    t.ok(
      await waitFor(async () => /no secrets are kept/.test(await listed(stateA)), 5000),
      "and forgotten on a's",
    );
    await a.mux.stop();
    await b.mux.stop();
    await assertNoLeaks(t);
  },
);
