// Liveness pings: list_servers shows when a child last answered one; a child that hangs
// misses pings (counted, logged) but is never reported crashed for it, and recovers.
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { waitFor } from '../helpers/processes.js';

t.test('a hung child misses pings without being called crashed, and is seen to recover', async (t) => {
  const h = await startHarness(t, { connection: { pingIntervalMs: 100, pingTimeoutMs: 200 } });
  await h.callJson('add_server', { name: 'fz', ...fixture('freeze') });
  const status = async () => (await h.callJson('list_servers')).servers[0];
  t.ok(await waitFor(async () => (await status()).last_ping_ok_seconds_ago < 1), 'answers pings');
  t.equal((await status()).missed_pings, 0);

  const frozen = h.call('fz__freeze', { ms: 2000 });
  t.ok(
    await waitFor(async () => (await status()).missed_pings >= 2, 10_000),
    'missed pings are counted while it hangs',
  );
  const during = await status();
  t.equal(during.status, 'running', 'a hung child is not reported crashed');
  t.ok(during.last_ping_ok_seconds_ago >= 0.3, 'and the last good ping ages');
  t.match(textOf(await frozen), 'froze 2000 ms', 'the slow call still gets its answer');
  t.ok(await waitFor(async () => (await status()).missed_pings === 0, 10_000), 'pings are answered again');
  t.match(h.logs.join('\n'), /\[fz\] missed a ping/);
  t.match(h.logs.join('\n'), /\[fz\] answers pings again/);
  await h.close();
});

t.test('with pinging off, list_servers shows no ping fields', async (t) => {
  const h = await startHarness(t, { connection: { pingIntervalMs: 0 } });
  await h.callJson('add_server', { name: 'e', ...fixture('echo-v1') });
  const [server] = (await h.callJson('list_servers')).servers;
  t.equal(server.last_ping_ok_seconds_ago, undefined);
  t.equal(server.missed_pings, undefined);
  await h.close();
});

t.test('a 2026-07-28 server, whose era has no ping, answers server/discover in its place', async (t) => {
  const h = await startHarness(t, { connection: { pingIntervalMs: 100, pingTimeoutMs: 1000 } });
  await h.callJson('add_server', { name: 'm', ...fixture('modern-v2') });
  const status = async () => (await h.callJson('list_servers')).servers[0];
  t.equal((await status()).protocol_version, '2026-07-28');
  t.ok(await waitFor(async () => (await status()).last_ping_ok_seconds_ago < 0.5), 'answers');
  t.equal((await status()).missed_pings, 0, 'none missed');
  t.notMatch(h.logs.join('\n'), /missed a ping/);
  await h.close();
});
