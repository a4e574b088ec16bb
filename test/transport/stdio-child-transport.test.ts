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

t.test('an error answer with a null id is reported, not handed to the client as a response', async (t) => {
  // A child that cannot read what it is sent answers a parse error with a null id, then a ping.
  const proc = await ChildProcess.spawn({
    command: process.execPath,
    args: [
      '-e',
      `process.stdin.once('data', () => {
        process.stdout.write('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\\n');
        process.stdout.write('{"jsonrpc":"2.0","id":7,"result":{}}\\n');
      });`,
    ],
    env: { PATH: process.env['PATH'] ?? '' },
  });
  const reported: unknown[] = [];
  const handed: unknown[] = [];
  const transport = new StdioChildTransport(proc, { onErrorWithoutId: (error) => reported.push(error) });
  transport.onmessage = (message) => handed.push(message);
  await transport.start();
  await transport.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
  for (let i = 0; i < 100 && handed.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.same(reported, [{ code: -32700, message: 'Parse error' }], 'reported');
  t.same(handed, [{ jsonrpc: '2.0', id: 7, result: {} }], 'the next answer is handed over as before');
  await proc.stop();
});
