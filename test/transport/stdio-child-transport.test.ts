// The transport over a child's pipes sees the child's end even when it came first: a server
// that exits before it is spoken to (a missing key, a crash at load) closes its stdout before
// anyone listens, and the client must not wait for an answer that cannot come.
import t from 'tap';
import { ChildProcess } from '../../src/child/child-process.js';
import { StdioChildTransport } from '../../src/transport/stdio-child-transport.js';

t.test('a child that is gone before start() is reported closed at once', async (t) => {
  const proc = await ChildProcess.spawn({
    command: process.execPath,
    args: ['-e', 'process.exit(3)'],
    env: { PATH: process.env['PATH'] ?? '' },
  });
  await proc.exited;
  await new Promise((resolve) =>
    proc.stdout.closed ? resolve(undefined) : proc.stdout.once('close', resolve),
  );
  const transport = new StdioChildTransport(proc);
  let closed = false;
  transport.onclose = () => (closed = true);
  await transport.start();
  await new Promise((resolve) => setImmediate(resolve));
  t.ok(closed, 'onclose was called');
  await t.rejects(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' }), /transport closed/);
  await proc.stop();
});
