// A child's log messages through the built mcpmux over stdio, read as the lines a client gets:
// every one arrives, in the order the child sent them, named after its server, and before the
// result of the call that made them.
import t from 'tap';
import { fixturePath } from '../helpers/fixtures.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { rawMcpmux } from '../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

t.test("a call's log messages: all, in order, named, before its result", async (t) => {
  const COUNT = 500;
  /** What the client got, in order: each log's number and logger, then the result. */
  const got: string[] = [];
  const { mcpmux, send } = await rawMcpmux(
    ['--', 'flood', process.execPath, fixturePath('log-flood')],
    'flood',
    (m) => {
      if (m.method === 'notifications/message')
        got.push(`${m.params.logger}:${String(m.params.data).split(' ')[0]}`);
      else if (m.id === 2) got.push(`result:${m.result?.content?.[0]?.text}`);
    },
  );
  send({
    id: 2,
    method: 'tools/call',
    params: { name: 'flood__flood', arguments: { count: COUNT, bytes: 20 } },
  });
  t.ok(await waitFor(() => got.some((g) => g.startsWith('result:'))), 'answered');
  t.same(
    got,
    [...Array.from({ length: COUNT }, (_, i) => `flood:${i + 1}`), `result:sent ${COUNT}`],
    'every log message, in order, named after its server, then the result',
  );
  mcpmux.stdin.end();
  await mcpmux.exited;
  await assertNoLeaks(t);
});
