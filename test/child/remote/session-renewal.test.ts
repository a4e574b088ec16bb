// A remote server that ends mcpmux's session (404 to the session's requests, as one restarted
// behind a balancer does): MCP's client opens a new session, and the request that met the 404
// goes again under it. Idle, a ping finds it. A server whose new sessions end at once is lost.
import t from 'tap';
import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/server';
import { RENEWAL_QUIET_MS, SessionRenewal } from '../../../src/child/remote/session-renewal.js';
import { createLogger } from '../../../src/common/log.js';
import type { Generation } from '../../../src/child/generation.js';
import { withFaultyRemote as withRemote } from '../../helpers/remote-fixtures.js';
import { textOf } from '../../helpers/mux-harness.js';
import { waitFor } from '../../helpers/processes.js';

t.test('a call under an ended session goes again under a new one, and nothing is withdrawn', async (t) => {
  const { h, remote, close } = await withRemote(t);
  t.equal(textOf(await h.call('exp__echo', { message: 'one' })), 'one (session 1)');
  const toolsBefore = await h.toolNames();
  await h.call('exp__forget');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const changesBefore = h.listChanged();
  const [a, b] = await Promise.all([
    h.call('exp__echo', { message: 'two' }),
    h.call('exp__echo', { message: 'three' }),
  ]);
  t.equal(textOf(a), 'two (session 2)', 'the call that met the 404 ran once, in the new session');
  t.equal(textOf(b), 'three (session 2)', 'so did the one beside it: one new session for both');
  t.equal((remote.log().match(/session \d+ opened/g) ?? []).length, 2);
  t.match(h.logs.join('\n'), /server 'exp' ended mcpmux's session \(HTTP 404\); opening a new one/);
  t.same(await h.toolNames(), toolsBefore, 'the tools stayed');
  t.equal(h.listChanged(), changesBefore, 'no list_changed: nothing changed');
  t.match((await h.callJson('list_servers')).servers[0], { status: 'running' });
  await close();
});

t.test('idle, the next ping finds the ended session and opens a new one', async (t) => {
  const { h, remote, close } = await withRemote(t, { connection: { pingIntervalMs: 200 } });
  await h.call('exp__forget');
  t.ok(await waitFor(() => /session 2 opened/.test(remote.log())), 'a new session, with no call');
  t.ok(await waitFor(() => h.logs.some((line) => /server 'exp' has a new session/.test(line))));
  t.equal(textOf(await h.call('exp__echo', { message: 'later' })), 'later (session 2)');
  await close();
});

t.test('a server whose new session ends at once is lost, not renewed in a loop', async (t) => {
  const { h, remote, close } = await withRemote(t);
  await h.call('exp__forget_always');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(textOf(await h.call('exp__echo', { message: 'once' })), 'once (session 2)', 'renewed once');
  await new Promise((resolve) => setTimeout(resolve, 500)); // the new session is forgotten too
  const failed = await h.call('exp__echo', { message: 'anyone?' });
  t.ok(failed.isError);
  t.match(
    textOf(failed),
    /server 'exp' crashed \(its sessions at http:\/\/127\.0\.0\.1:\d+\/mcp end at once \(HTTP 404 to the new session's requests\)\); call reload_server/,
  );
  t.match((await h.callJson('list_servers')).servers[0], { status: 'crashed' });
  t.equal((remote.log().match(/session \d+ opened/g) ?? []).length, 2, 'one new session was tried');
  await close();
});

t.test(
  'SessionRenewal: one renewal a generation; a session that ends again at once is the loss',
  async (t) => {
    const told: string[] = [];
    const renewal = new SessionRenewal({
      name: 'exp',
      url: 'http://x/mcp',
      log: createLogger({ level: 'error', sink: () => {} }),
      current: () => true,
      hold: () => told.push('hold'),
      renew: async () => void told.push('renew'),
      lose: (_gen, why) => told.push(`lost: ${why}`),
    });
    const notFound = new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Session not found', {
      status: 404,
    });
    const gen = (n: number) =>
      ({
        number: n,
        requests: 0,
        remote: 'streamable-http',
        client: { getProtocolEra: () => 'legacy', transport: { sessionId: `s${n}` } },
      }) as unknown as Generation;
    const first = gen(1);
    t.notOk(renewal.ended(first, new Error('other'), 0), 'any other error is not an ended session');
    t.ok(renewal.ended(first, notFound, 0));
    t.ok(renewal.ended(first, notFound, 1), 'a second 404 of the same generation waits for the same renewal');
    t.same(told, ['renew', 'hold']);
    t.ok(renewal.ended(gen(2), notFound, RENEWAL_QUIET_MS - 1));
    t.match(told[2], /^lost: its sessions at http:\/\/x\/mcp end at once/);
    t.ok(renewal.ended(gen(3), notFound, 2 * RENEWAL_QUIET_MS), 'after the quiet time, again');
    t.same(told.slice(3), ['renew', 'hold']);
    const modern = {
      ...gen(4),
      client: { getProtocolEra: () => 'modern', transport: {} },
    } as unknown as Generation;
    t.notOk(
      renewal.ended(modern, notFound, 3 * RENEWAL_QUIET_MS),
      "a 2026-07-28 server's 404 is an unknown method",
    );
  },
);
