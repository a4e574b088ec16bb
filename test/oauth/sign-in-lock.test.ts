// One sign-in at a time per server across mcpmux processes (sign-in-lock.ts): a holder makes
// the others wait (and hear where the holder sent the person), and a lock whose holder died
// or that was held too long is taken over.
// Two real mcpmux processes sharing a server's credentials: test/e2e/oauth.test.ts.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { withSignInLock } from '../../src/oauth/sign-in-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpmux-lock-'));
mkdirSync(join(dir, 'oauth'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const lockAt = (name: string) => join(dir, 'oauth', `${name}.json.lock`);

t.test('the second waits for the first, then runs; the lock is gone after both', async (t) => {
  const path = lockAt('turns');
  const order: string[] = [];
  let release!: () => void;
  const first = withSignInLock(
    path,
    async () => {
      order.push('first starts');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first ends');
    },
    { maxHoldMs: 60_000 },
  );
  const second = withSignInLock(path, async () => void order.push('second runs'), { maxHoldMs: 60_000 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.same(order, ['first starts'], 'the second waits while the first holds the lock');
  release();
  await Promise.all([first, second]);
  t.same(order, ['first starts', 'first ends', 'second runs']);
  t.notOk(existsSync(path));
});

t.test('a lock whose process is gone is taken over', async (t) => {
  const path = lockAt('dead');
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  writeFileSync(path, gone.stdout.toString());
  t.equal(await withSignInLock(path, async () => 'ran', { maxHoldMs: 60_000 }), 'ran');
  t.notOk(existsSync(path));
});

t.test('a lock held past the longest sign-in is taken over, though its holder lives', async (t) => {
  const path = lockAt('old');
  writeFileSync(path, '1'); // init: alive, and never mcpmux
  t.equal(await withSignInLock(path, async () => 'ran', { maxHoldMs: 50 }), 'ran');
});

t.test('a wait ends with its signal, the lock left to its holder', async (t) => {
  const path = lockAt('aborted');
  writeFileSync(path, '1');
  const abort = new AbortController();
  const waiting = withSignInLock(path, async () => 'ran', { maxHoldMs: 60_000, signal: abort.signal });
  abort.abort(new Error('the start was given up'));
  await t.rejects(waiting, {
    code: 'AUTH_REQUIRED',
    message:
      /another mcpmux process \(pid 1\) is signing in to the same place; this one stopped waiting for it \(the start was given up\)/,
  });
  t.ok(existsSync(path));
});

t.test('the holder says where it sent the person; one waiting hears it once per URL', async (t) => {
  const path = lockAt('sent');
  const heard: [string, number][] = [];
  let sent!: (url: string) => void;
  let release!: () => void;
  const first = withSignInLock(
    path,
    async (lock) => {
      sent = (url) => lock.sentTo(new URL(url));
      await new Promise<void>((resolve) => (release = resolve));
    },
    { maxHoldMs: 60_000 },
  );
  const second = withSignInLock(path, async () => 'ran', {
    maxHoldMs: 60_000,
    onOthersSignIn: (url, pid) => heard.push([url.href, pid]),
  });
  await new Promise((resolve) => setTimeout(resolve, 250));
  t.same(heard, [], 'nothing to show before the holder sends anyone');
  sent('https://as.example/authorize?state=1');
  t.equal(readFileSync(path, 'utf8'), `${process.pid}\nhttps://as.example/authorize?state=1\n`);
  await new Promise((resolve) => setTimeout(resolve, 350));
  sent('https://idp.example/authorize?state=2');
  await new Promise((resolve) => setTimeout(resolve, 350));
  t.same(heard, [
    ['https://as.example/authorize?state=1', process.pid],
    ['https://idp.example/authorize?state=2', process.pid],
  ]);
  release();
  t.equal(await second, 'ran');
  await first;
  t.notOk(existsSync(path));
  t.same(
    readdirSync(join(dir, 'oauth')).filter((f) => f.startsWith('sent')),
    [],
    'no file left beside it',
  );
});
