// Kept results shared through a real Redis: what one replica keeps another reads, sealed (Redis
// alone shows none of the text), gone with its time to live or when dropped; a store that
// cannot reach Redis keeps its results for itself.
import { createClient } from '@redis/client';
import t from 'tap';
import { RedisResults } from '../../src/cluster/shared-results.js';
import { StateKey } from '../../src/cluster/state-key.js';
import { ResultStore } from '../../src/results/result-store.js';
import { assertNoLeaks, waitFor } from '../helpers/processes.js';
import { startRedis } from '../helpers/redis-server.js';

const logger = { debug() {}, info() {}, warn() {}, error() {}, audit() {} } as never;
const key = StateKey.from('a-test-key-of-the-cluster-0123456789');
const big = Array.from({ length: 2000 }, (_, i) => `row ${i}: secret-token-${i}`).join('\n');

t.test(
  'a result one replica keeps, another reads; Redis holds it sealed, for its time to live',
  async (t) => {
    const redis = await startRedis(t);
    const shared = async (replica: string) => {
      const results = await RedisResults.connect({ url: redis.url, cluster: 'team', replica, logger, key });
      t.teardown(() => results.close());
      return results;
    };
    const a = new ResultStore({ maxBytes: 1024, handleBytes: 16, shared: await shared('a'), ttlMs: 1500 });
    const b = new ResultStore({ maxBytes: 1024, handleBytes: 16, shared: await shared('b') });
    t.teardown(() => Promise.all([a.close(), b.close()]));
    const cut = await a.fit({ content: [{ type: 'text', text: big }] });
    const handle = /handle "(r-[0-9a-f]+)"/.exec((cut.content[1] as { text: string }).text)![1]!;
    const read = await b.read(handle);
    t.equal(read.text, big, 'read whole through another store');
    t.equal(read.stored.lines, 2000);

    const admin = createClient({ url: redis.url });
    admin.on('error', () => {});
    await admin.connect();
    t.teardown(() => admin.destroy());
    const raw = String(await admin.get(`mcpmux:team:result:${handle}`));
    t.notMatch(raw, /secret-token|row 1/, 'Redis alone reads none of it');
    const other = StateKey.from('another-key-of-another-cluster-98765');
    t.throws(() => other.open('results', `team/${handle}`, raw), 'another key opens nothing');
    t.ok(
      Number(await admin.pTTL(`mcpmux:team:result:${handle}`)) <= 1500,
      'it expires with its time to live',
    );
    t.ok(await waitFor(async () => (await admin.exists(`mcpmux:team:result:${handle}`)) === 0, 5000));
    await t.rejects(b.read(handle), { code: 'RESULT_NOT_FOUND' }, 'then gone for every replica');
  },
);

t.test('Redis gone: a result is kept, and read, where it was cut', async (t) => {
  const redis = await startRedis(t);
  const results = await RedisResults.connect({ url: redis.url, cluster: 'team', replica: 'a', logger, key });
  t.teardown(() => results.close());
  const store = new ResultStore({ maxBytes: 1024, handleBytes: 16, shared: results });
  t.teardown(() => store.close());
  await redis.stop();
  const cut = await store.fit({ content: [{ type: 'text', text: big }] });
  const handle = /handle "(r-[0-9a-f]+)"/.exec((cut.content[1] as { text: string }).text)?.[1];
  t.ok(handle, 'still cut and kept');
  t.equal((await store.read(handle!)).text, big);
});

t.test('no redis-server is left', async (t) => {
  await assertNoLeaks(t);
});
