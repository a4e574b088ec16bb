// Two replicas renewing one server's OAuth tokens at the same moment, with a real Redis and an
// authorization server (played here) that rotates refresh tokens: with the cluster's sign-in
// lock, one renews and the other finds the renewed tokens; without it, the second renewal is
// refused — performed both ways.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { SharedFolders } from '../../src/cluster/shared-folders.js';
import { SignInLocks } from '../../src/cluster/sign-in-locks.js';
import { StateKey } from '../../src/cluster/state-key.js';
import { CredentialStore } from '../../src/oauth/credential-store.js';
import { lockAcrossMachines, withSignInLock } from '../../src/oauth/sign-in-lock.js';
import { waitFor } from '../helpers/processes.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const logger = { debug() {}, info() {}, warn() {}, error() {}, audit() {} } as never;
const key = StateKey.from('a-test-key-of-the-cluster-0123456789');
const SERVER = 'https://mcp.example.com/mcp';

/** An authorization server that rotates refresh tokens: each is good once. */
function rotatingServer() {
  const valid = new Set(['rt-1']);
  const counts = { renewals: 0, refused: 0 };
  return {
    counts,
    async renew(refreshToken: string) {
      await sleep(200); // the token endpoint's round trip: long enough for the other replica to ask too
      if (!valid.delete(refreshToken)) {
        counts.refused += 1;
        throw new Error('invalid_grant: refresh token revoked');
      }
      counts.renewals += 1;
      const next = counts.renewals + 1;
      valid.add(`rt-${next}`);
      return { access_token: `at-${next}`, refresh_token: `rt-${next}`, token_type: 'Bearer' };
    },
  };
}

async function replica(t: Test, redis: RedisServer, name: string, withClusterLock: boolean) {
  const dir = mkdtempSync(join(tmpdir(), `mcpmux-sign-in-${name}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const oauth = join(dir, 'oauth');
  const options = { url: redis.url, cluster: 'team', replica: name, logger, key };
  const folders = await SharedFolders.connect({
    ...options,
    folders: [{ name: 'oauth', dir: oauth, purpose: 'tokens' }],
  });
  t.teardown(() => folders.close());
  if (withClusterLock) {
    const locks = await SignInLocks.connect({ ...options, folders });
    lockAcrossMachines(oauth, locks);
    t.teardown(() => {
      lockAcrossMachines(oauth, undefined);
      locks.close();
    });
  }
  return new CredentialStore(SERVER, oauth);
}

/** What a replica does when its kept tokens near their end: renew them, unless another did meanwhile. */
function renewIfOld(store: CredentialStore, server: ReturnType<typeof rotatingServer>) {
  return withSignInLock(
    `${store.path}.lock`,
    async () => {
      const tokens = store.read().tokens!;
      if (tokens.access_token !== 'at-1') return 'found renewed';
      const renewed = await server.renew(tokens.refresh_token!);
      store.update((stored) => ({ ...stored, tokens: renewed }));
      return 'renewed';
    },
    { maxHoldMs: 60_000 },
  ).catch((error: unknown) => (error as Error).message);
}

for (const withClusterLock of [true, false])
  t.test(
    withClusterLock
      ? "with the cluster's sign-in lock: one renewal, and the other replica uses it"
      : "without it (this machine's lock only): the second renewal is refused",
    async (t) => {
      const redis = await startRedis(t);
      const a = await replica(t, redis, 'a', withClusterLock);
      const b = await replica(t, redis, 'b', withClusterLock);
      a.update((stored) => ({
        ...stored,
        tokens: { access_token: 'at-1', refresh_token: 'rt-1', token_type: 'Bearer' },
      }));
      t.ok(await waitFor(() => b.read().tokens?.access_token === 'at-1', 3000), 'both hold the sign-in');
      const server = rotatingServer();
      const outcomes = await Promise.all([renewIfOld(a, server), renewIfOld(b, server)]);
      if (withClusterLock) {
        t.same(outcomes.sort(), ['found renewed', 'renewed']);
        t.same(server.counts, { renewals: 1, refused: 0 });
        t.equal(a.read().tokens?.access_token, 'at-2');
        t.equal(b.read().tokens?.access_token, 'at-2', 'both hold the renewed tokens');
      } else {
        t.same(server.counts, { renewals: 1, refused: 1 }, 'the race the lock closes');
        t.match(outcomes, [/renewed|revoked/, /renewed|revoked/]);
      }
    },
  );
