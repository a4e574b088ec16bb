// The transport over a child's pipes sees the child's end even when it came first: a server
// that exits before it is spoken to (a missing key, a crash at load) closes its stdout before
// anyone listens, and the client must not wait for an answer that cannot come.
import t from 'tap';
import { ChildProcess } from '../../src/child/child-process.js';
import { inputRefusal } from '../../src/child/input-backlog.js';
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

t.test(
  'a child that reads nothing: past the bound, requests are refused; notifications still go',
  async (t) => {
    // Node never reads its stdin unless asked: this child takes what the pipe holds and no more.
    const proc = await ChildProcess.spawn({
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
      env: { PATH: process.env['PATH'] ?? '' },
    });
    const bound = 256 * 1024;
    const transport: StdioChildTransport = new StdioChildTransport(proc, {
      refuseRequest: () => inputRefusal('stuck', transport, bound),
    });
    await transport.start();
    // A request of any size is taken while less than the bound waits; the kernel takes a few
    // hundred KB of it (the pipe is a socket pair), the rest waits in mcpmux.
    const big = {
      jsonrpc: '2.0' as const,
      id: 1,
      method: 'tools/call',
      params: { pad: 'x'.repeat(800_000) },
    };
    void transport.send(big).catch(() => {});
    await new Promise((resolve) => setImmediate(resolve));
    t.ok(transport.backlog >= bound, `${transport.backlog} bytes wait`);
    t.type(transport.backedUpSince, 'number', 'its stdin is full');
    await t.rejects(transport.send({ jsonrpc: '2.0', id: 3, method: 'ping' }), {
      code: 'SERVER_BUSY',
      message:
        /^server 'stuck' is not reading its input: 0\.\d MB of requests wait for it, past the bound of 0\.3 MB/,
    });
    const waiting = transport.backlog;
    void transport
      .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })
      .catch(() => {});
    t.ok(transport.backlog > waiting, 'a notification is still written');
    await proc.stop({ stdinGraceMs: 0, termGraceMs: 1000 });
  },
);
