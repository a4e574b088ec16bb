// A child that writes faster than the client reads, through the built mcpmux: while the
// client's stream is backed up mcpmux stops reading the child (whose writes then wait), so
// its memory stays where it was; once the client reads again, every message arrives. And a
// client that writes requests without reading its answers: past the bound, its requests wait.
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import t from 'tap';
import { fixturePath } from '../helpers/fixtures.js';
import { assertNoLeaks, killTaggedProcesses, logged, rssMb, waitFor } from '../helpers/processes.js';
import { rawMcpmux } from '../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

t.test('a log flood to a client that stops reading: the server waits, mcpmux does not grow', async (t) => {
  const COUNT = 60_000; // of ~260 bytes: 15 MB
  let logs = 0;
  let result: string | undefined;
  const { mcpmux, send, stderr } = await rawMcpmux(
    ['--', 'flood', process.execPath, fixturePath('log-flood')],
    'flood',
    (message) => {
      if (message.method === 'notifications/message') logs++;
      else if (message.id === 2) result = JSON.stringify(message.result);
    },
  );
  const before = rssMb(mcpmux.pid);

  // The client stops reading, then asks for the flood.
  mcpmux.stdout.pause();
  send({
    id: 2,
    method: 'tools/call',
    params: { name: 'flood__flood', arguments: { count: COUNT, bytes: 250 } },
  });
  const sent = () => Math.max(0, ...[...stderr().matchAll(/flood: sent (\d+)/g)].map((m) => Number(m[1])));
  // The server's progress stops: its writes wait for mcpmux, which waits for the client.
  let last = -1;
  t.ok(
    await waitFor(
      () => {
        const now = sent();
        const stalled = now > 0 && now === last;
        last = now;
        return stalled;
      },
      30_000,
      1_000,
    ),
    'the server stalls',
  );
  t.ok(sent() < COUNT / 2, `the server could send ${sent()} of ${COUNT} while the client read nothing`);
  const grown = rssMb(mcpmux.pid) - before;
  // Unthrottled, mcpmux read the whole flood and held it: RSS grew by hundreds of MB.
  t.ok(grown < 48, `mcpmux's RSS grew by ${grown.toFixed(0)} MB`);

  mcpmux.stdout.resume();
  t.ok(await waitFor(() => result !== undefined, 60_000), 'the answer comes once the client reads');
  t.match(result, `sent ${COUNT}`);
  t.equal(logs, COUNT, 'every message arrived, none lost');
  mcpmux.stdin.end();
  await mcpmux.exited;
  await assertNoLeaks(t);
});

t.test(
  'a client that writes requests and reads no answers: past the bound they are not read, then every one is answered in turn',
  async (t) => {
    const COUNT = 2000; // tools/list answers of ~6 KB: 12 MB, past a bound of 64 KB
    const answered: number[] = [];
    const { mcpmux, stderr } = await rawMcpmux(
      ['--max-message-bytes', '65536', '--', 'echo', process.execPath, fixturePath('echo-v1')],
      'echo',
      (message) => {
        if (typeof message.id === 'number' && message.id >= 100) answered.push(message.id);
      },
    );
    mcpmux.stdout.pause();
    let written = 0;
    // Requests of ~2 KB, so that the pipes between hold few of them.
    const pad = 'x'.repeat(2000);
    const writing = (async () => {
      for (let i = 0; i < COUNT; i++) {
        const line = JSON.stringify({
          jsonrpc: '2.0',
          id: 100 + i,
          method: 'tools/list',
          params: { _meta: { pad } },
        });
        written++;
        if (!mcpmux.stdin.write(line + '\n')) await once(mcpmux.stdin, 'drain');
      }
    })();
    t.ok(
      await waitFor(
        () =>
          /the client is not reading its answers: [\d.]+ MB wait for it, past the bound of 0\.1 MB \(--max-message-bytes\); its requests are not read until it reads them/.test(
            stderr(),
          ),
        15_000,
      ),
      'told on stderr',
    );
    await delay(500);
    const stalled = written;
    await delay(1000);
    t.equal(written, stalled, 'its writes wait');
    t.ok(written < COUNT / 2, `${written} of ${COUNT} written before they did`);
    mcpmux.stdout.resume();
    await writing;
    t.ok(await waitFor(() => answered.length === COUNT, 60_000), 'every request is answered once it reads');
    t.same(
      answered,
      Array.from({ length: COUNT }, (_, i) => 100 + i),
      'each once, in turn',
    );
    const log = await logged(() => stderr(), /the client is not reading its answers/);
    t.equal(log.match(/the client is not reading its answers/g)?.length, 1, 'warned once');
    mcpmux.stdin.end();
    await mcpmux.exited;
    await assertNoLeaks(t);
  },
);
