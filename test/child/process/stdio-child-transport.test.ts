// The transport over a child's pipes sees the child's end even when it came first: a server
// that exits before it is spoken to (a missing key, a crash at load) closes its stdout before
// anyone listens, and the client must not wait for an answer that cannot come. A request of
// the child's that mcpmux cannot take (a malformed envelope, an id MCP does not allow) is
// answered to the child, which would otherwise wait for it.
import t from 'tap';
import { ChildProcess } from '../../../src/child/process/child-process.js';
import { inputRefusal } from '../../../src/child/process/input-backlog.js';
import { StdioChildTransport } from '../../../src/child/process/stdio-child-transport.js';

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

t.test('a request of the child that mcpmux cannot take is answered to the child, not dropped', async (t) => {
  // The child asks four malformed things and one fine one, then prints every answer it gets on stderr.
  const proc = await ChildProcess.spawn({
    command: process.execPath,
    args: [
      '-e',
      `const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      out({ jsonrpc: '2.0', id: 'a', method: 'roots/list', params: 'x' });
      out({ jsonrpc: '2.0', id: 'b', method: 7 });
      out({ id: 'c', method: 'ping' });
      out({ jsonrpc: '2.0', id: { o: 1 }, method: 'ping' });
      out({ jsonrpc: '2.0', id: 'e', method: 'ping' });
      process.stdin.on('data', (d) => process.stderr.write(d));`,
    ],
    env: { PATH: process.env['PATH'] ?? '' },
  });
  let answers = '';
  proc.stderr.on('data', (d: Buffer) => (answers += d.toString('utf8')));
  const dropped: string[] = [];
  const transport = new StdioChildTransport(proc, { onDropped: (why) => dropped.push(why) });
  const handed: unknown[] = [];
  transport.onmessage = (message) => handed.push(message);
  await transport.start();
  for (let i = 0; i < 100 && answers.split('\n').length < 5; i++) await new Promise((r) => setTimeout(r, 20));
  t.match(
    answers
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
    [
      { id: 'a', error: { code: -32600, message: /"params" must be an object when present, not "x"/ } },
      { id: 'b', error: { code: -32600, message: /"method" must be a string, not 7/ } },
      { id: 'c', error: { code: -32600, message: /"jsonrpc" must be "2.0", not missing/ } },
      { id: null, error: { code: -32600, message: /not \{"o":1\}/ } },
    ],
  );
  t.match(handed, [{ id: 'e', method: 'ping' }], 'a well-formed request is handed over');
  t.match(dropped, [
    /^refused a roots\/list request from the server/,
    /from the server/,
    /from the server/,
    /from the server/,
  ]);
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
