// Which of a child's messages go up past the SDK's client: log messages in the spec's shape
// only; a malformed one, a request or any other notification is left to the SDK.
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import t from 'tap';
import { relayedLogMessage } from '../../../src/child/requests/log-relay.js';
import type { ChildUpstream } from '../../../src/child/child-types.js';

function recordingUpstream() {
  const notified: { server: string; method: string; params: unknown }[] = [];
  const upstream = {
    notify: (server: string, n: { method: string; params?: unknown }) =>
      void notified.push({ server, method: n.method, params: n.params }),
  } as unknown as ChildUpstream;
  return { upstream, notified };
}

const message = (m: object) => ({ jsonrpc: '2.0', ...m }) as JSONRPCMessage;

t.test('a log message in the shape the spec gives it goes up, as it came', async (t) => {
  const { upstream, notified } = recordingUpstream();
  const log = message({
    method: 'notifications/message',
    params: { level: 'info', logger: 'db', data: { rows: 3 } },
  });
  t.ok(relayedLogMessage('pg', log, upstream, []));
  t.same(notified, [
    {
      server: 'pg',
      method: 'notifications/message',
      params: { level: 'info', logger: 'db', data: { rows: 3 } },
    },
  ]);
});

t.test('anything else is left to the SDK', async (t) => {
  const { upstream, notified } = recordingUpstream();
  for (const [what, m] of [
    ['no params', { method: 'notifications/message' }],
    ['params an array', { method: 'notifications/message', params: ['info', 'x'] }],
    ['no level', { method: 'notifications/message', params: { data: 'x' } }],
    ['a level that is not a string', { method: 'notifications/message', params: { level: 3, data: 'x' } }],
    ['a request of that name', { id: 1, method: 'notifications/message', params: { level: 'info' } }],
    ['progress', { method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }],
    ['an answer', { id: 1, result: {} }],
  ] as const)
    t.notOk(relayedLogMessage('pg', message(m), upstream, []), what);
  t.same(notified, [], 'none went up');
});
