// A child's log messages through the built mcpmux over stdio, read as the lines a client gets:
// every one arrives, in the order the child sent them, named after its server, and before the
// result of the call that made them.
import t from 'tap';
import { ChildProcess } from '../../src/child/child-process.js';
import { DIST_MAIN, fixturePath } from '../helpers/fixtures.js';
import {
  assertNoLeaks,
  killTaggedProcesses,
  LEAK_TAG_VAR,
  taggedEnv,
  waitFor,
} from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

t.test("a call's log messages: all, in order, named, before its result", async (t) => {
  const COUNT = 500;
  const mcpmux = await ChildProcess.spawn({
    command: process.execPath,
    args: [DIST_MAIN, '--pass-env', LEAK_TAG_VAR, '--', 'flood', process.execPath, fixturePath('log-flood')],
    env: taggedEnv(),
  });
  let stderr = '';
  mcpmux.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  /** What the client got, in order: each log's number and logger, then the result. */
  const got: string[] = [];
  let partial = '';
  mcpmux.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const m = JSON.parse(line);
      if (m.method === 'notifications/message')
        got.push(`${m.params.logger}:${String(m.params.data).split(' ')[0]}`);
      else if (m.id === 2) got.push(`result:${m.result?.content?.[0]?.text}`);
    }
  });
  const send = (message: object) => mcpmux.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'reader', version: '1' } },
  });
  send({ method: 'notifications/initialized' });
  t.ok(await waitFor(() => stderr.includes("server 'flood' is running")), 'started');
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
