// Liveness pings: the periodic ping, and the one sent out of turn when a remote server's
// transport reports an error (at most one at a time, at most one a second).
import type { Client } from '@modelcontextprotocol/client';
import t from 'tap';
import { startPinging } from '../../src/child/liveness.js';
import { createLogger } from '../../src/common/log.js';

function pinger(answer: () => Promise<unknown>, era: 'legacy' | 'modern' = 'legacy') {
  let pings = 0;
  const asked: string[] = [];
  const lost: unknown[] = [];
  const client = {
    getProtocolEra: () => era,
    ping: () => (pings++, asked.push('ping'), answer()),
    discover: () => (pings++, asked.push('server/discover'), answer()),
  } as unknown as Client;
  const pinging = startPinging({
    name: 'remote',
    client,
    intervalMs: 3_600_000,
    timeoutMs: 1000,
    logger: createLogger({ level: 'error', sink: () => {} }),
    running: () => true,
    lost: (error) => (lost.push(error), true),
  })!;
  t.teardown(() => clearInterval(pinging.timer));
  return { pinging, pings: () => pings, asked, lost };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('errors in a burst send one ping; another after a second', async (t) => {
  const { pinging, pings } = pinger(() => Promise.resolve({}));
  for (let i = 0; i < 5; i++) pinging.soon();
  await settle();
  t.equal(pings(), 1, 'one ping for five errors');
  pinging.soon();
  await settle();
  t.equal(pings(), 1, 'not again within the second');
  await new Promise((resolve) => setTimeout(resolve, 1050));
  pinging.soon();
  await settle();
  t.equal(pings(), 2, 'again once the second is over');
});

t.test('no second ping while one is unanswered', async (t) => {
  let answer: (value: unknown) => void = () => {};
  const { pinging, pings } = pinger(() => new Promise((resolve) => (answer = resolve)));
  pinging.soon();
  await new Promise((resolve) => setTimeout(resolve, 1050));
  pinging.soon();
  t.equal(pings(), 1);
  answer({});
  await settle();
  pinging.soon();
  t.equal(pings(), 2);
});

t.test('a ping that cannot reach the server is handed to `lost`', async (t) => {
  const refused = Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
  const { pinging, lost } = pinger(() => Promise.reject(refused));
  pinging.soon();
  await settle();
  await settle();
  t.same(lost, [refused]);
  t.equal(pinging.missed, 0, 'judged by lost, not counted as missed');
});

t.test('a 2026-07-28 server, whose era has no ping, is asked server/discover', async (t) => {
  const modern = pinger(() => Promise.resolve({}), 'modern');
  modern.pinging.soon();
  await settle();
  t.same(modern.asked, ['server/discover']);
  const legacy = pinger(() => Promise.resolve({}));
  legacy.pinging.soon();
  await settle();
  t.same(legacy.asked, ['ping']);
});
