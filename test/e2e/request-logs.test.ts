// A 2026-07-28 client hears a child's log messages only through its requests that asked for
// them (SEP-2577: a request names a level in its `_meta`; a server MUST NOT send any for a
// request that names none), at that level or above, over stdio (the fast path) and HTTP (the
// SDK's path, a held call), from a 2025 child and a 2026-07-28 one. A 2025 client hears them
// by session, as it set (or did not set) its level, from a 2026-07-28 child too.
import t, { type Test } from 'tap';
import {
  Client,
  LOG_LEVEL_META_KEY,
  StreamableHTTPClientTransport,
  type LoggingLevel,
} from '@modelcontextprotocol/client';
import { addFixtures, resultText } from '../helpers/client-calls.js';
import { fixturePath } from '../helpers/fixtures.js';
import { mcpmuxStdioTransport, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const SERVERS = [
  ['flood', fixturePath('log-flood')],
  ['v2', fixturePath('modern-v2')],
] as const;
const inlineServers = SERVERS.flatMap(([name, path]) => ['--', name, process.execPath, path]);

/** A client that records the log messages it gets as `logger:level`. */
function loggingClient(era: '2026-07-28' | '2025'): { client: Client; heard: string[] } {
  const client = new Client(
    { name: 'e2e', version: '1.0.0' },
    era === '2025' ? {} : { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const heard: string[] = [];
  client.setNotificationHandler('notifications/message', (n) => {
    heard.push(`${String(n.params.logger)}:${n.params.level}`);
  });
  return { client, heard };
}

/** What each call heard: flood's three info messages, and v2's messages at four levels. */
async function callBoth(client: Client, heard: string[], level?: LoggingLevel): Promise<string[]> {
  heard.length = 0;
  const _meta = level === undefined ? {} : { [LOG_LEVEL_META_KEY]: level };
  const flood = await client.callTool({ name: 'flood__flood', arguments: { count: 3, bytes: 4 }, _meta });
  const v2 = await client.callTool({
    name: 'v2__log',
    arguments: { levels: ['debug', 'info', 'warning', 'error'] },
    _meta,
  });
  if (resultText(flood) !== 'sent 3' || resultText(v2) !== 'logged 4')
    throw new Error(`unexpected results: ${resultText(flood)} / ${resultText(v2)}`);
  // A log message sent before a result arrives before it: nothing more is coming.
  return [...heard];
}

/** Connects `client` to mcpmux on stdio with both servers, once they are up. */
async function overStdio(client: Client, servers = inlineServers): Promise<void> {
  await client.connect(mcpmuxStdioTransport(servers).transport);
  await client.listTools();
}

async function checkModern(t: Test, client: Client, heard: string[]): Promise<void> {
  t.same(await callBoth(client, heard), [], 'a request that names no level hears nothing');
  t.same(
    await callBoth(client, heard, 'info'),
    ['flood:info', 'flood:info', 'flood:info', 'v2:info', 'v2:warning', 'v2:error'],
    "at 'info': every message at info or above, named after its server",
  );
  t.same(await callBoth(client, heard, 'error'), ['v2:error'], "at 'error': only the error");
}

t.test('a 2026-07-28 client on stdio hears log messages only when its request asks', async (t) => {
  const { client, heard } = loggingClient('2026-07-28');
  await overStdio(client);
  await checkModern(t, client, heard);
  await client.close();
  await assertNoLeaks(t);
});

t.test('a 2026-07-28 client over HTTP hears them on the request that asked', async (t) => {
  const mux = await startMcpmuxHttp(inlineServers);
  const { client, heard } = loggingClient('2026-07-28');
  await client.connect(new StreamableHTTPClientTransport(new URL(mux.url)));
  await client.listTools();
  await checkModern(t, client, heard);
  await client.close();
  await mux.stop();
  await assertNoLeaks(t);
});

t.test('a 2025 client hears both children by session, whatever its requests say', async (t) => {
  // A 2026-07-28 child has no logging/setLevel: mcpmux names the session's level on each request,
  // and 'debug' for a session that set none, as a 2025 server sends such a session everything.
  const { client, heard } = loggingClient('2025');
  // Pinned: a 2025 client's servers otherwise speak 2025 when they can (then it sets a level itself).
  await overStdio(client, ['--', 'flood', process.execPath, fixturePath('log-flood')]);
  await addFixtures(client, { v2: { fixture: 'modern-v2', era: 'modern' } });
  t.same(
    await callBoth(client, heard, 'error'),
    ['flood:info', 'flood:info', 'flood:info', 'v2:debug', 'v2:info', 'v2:warning', 'v2:error'],
    'no level set: every message',
  );
  await client.setLoggingLevel('warning');
  t.same(await callBoth(client, heard), ['v2:warning', 'v2:error'], "level 'warning': warning and above");
  await client.close();
  await assertNoLeaks(t);
});
