// Reading newline-delimited JSON-RPC (json-line-reader.ts) over real Node streams: framing
// across chunks, skipped and oversize lines, order, the envelope check.
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import t from 'tap';
import {
  JsonLineReader,
  failedMessageHandler,
  isJsonRpcMessage,
  type DroppedMessage,
} from '../../src/protocol/json-line-reader.js';
import { peekEnvelope } from '../../src/protocol/envelope-peek.js';
import { StdioServerTransport } from '../../src/transport/stdio-server-transport.js';

function collectingReader(maxMessageBytes?: number) {
  const messages: JSONRPCMessage[] = [];
  const skipped: string[] = [];
  const oversize: number[] = [];
  const ids: DroppedMessage[] = [];
  const reader = new JsonLineReader({
    onMessage: (m) => void messages.push(m),
    onSkippedLine: (l) => skipped.push(l),
    onOversize: (b) => oversize.push(b),
    onOversizeId: (d) => ids.push(d),
    ...(maxMessageBytes !== undefined && { maxMessageBytes }),
  });
  return { reader, messages, skipped, oversize, ids };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test(
  'lines split anywhere across chunks, CRLF, and multi-byte characters come out whole and in order',
  async (t) => {
    const { reader, messages, skipped } = collectingReader();
    const text =
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'héllo → 世界' } }) +
      '\r\n' +
      JSON.stringify({ jsonrpc: '2.0', method: 'n' }) +
      '\n';
    const bytes = Buffer.from(text, 'utf8');
    // Every split point, including inside a multi-byte character.
    for (let cut = 1; cut < bytes.length; cut++) {
      reader.push(bytes.subarray(0, cut));
      reader.push(bytes.subarray(cut));
    }
    await settle();
    t.equal(messages.length, 2 * (bytes.length - 1));
    t.ok(
      messages.every((m, i) =>
        i % 2 === 0 ? 'result' in m && (m.result as { text: string }).text === 'héllo → 世界' : 'method' in m,
      ),
    );
    t.same(skipped, []);
  },
);

t.test('a line that cannot open a message is skipped without being parsed', async (t) => {
  // A server printing a flood of text (`yes`) cost a thrown JSON.parse a line, enough to hold up timers.
  const { reader, messages, skipped } = collectingReader();
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = (...args: Parameters<typeof JSON.parse>) => (parsed++, parse(...args));
  t.teardown(() => void (JSON.parse = parse));
  reader.push(Buffer.from('y\n  hello\n123\n"text"\r\n'));
  t.equal(parsed, 0);
  reader.push(Buffer.from(' {"jsonrpc":"2.0","id":1,"result":{}}\n\t[{"jsonrpc":"2.0","method":"a"}]\n'));
  await settle();
  JSON.parse = parse;
  t.equal(parsed, 2, 'one opening with a brace or bracket after blanks is');
  t.same(skipped, ['y', '  hello', '123', '"text"']);
  t.same(messages, [
    { jsonrpc: '2.0', id: 1, result: {} },
    { jsonrpc: '2.0', method: 'a' },
  ]);
});

t.test('a byte-order mark opening the stream is dropped, and only there', async (t) => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  const line = (id: number) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, result: {} }) + '\n');
  const { reader, messages, skipped } = collectingReader();
  reader.push(Buffer.concat([BOM, line(1), BOM, line(2)]));
  await settle();
  t.same(messages, [{ jsonrpc: '2.0', id: 1, result: {} }], 'the first line is read');
  t.equal(skipped.length, 1, 'one later in the stream is not a line of JSON-RPC');

  const alone = collectingReader();
  alone.reader.push(Buffer.alloc(0));
  alone.reader.push(BOM);
  alone.reader.push(line(3));
  await settle();
  t.same(alone.messages, [{ jsonrpc: '2.0', id: 3, result: {} }], 'a mark that comes in a read of its own');
  t.same(alone.skipped, []);
});

t.test('lines that are not JSON-RPC are skipped and reported; blank lines are ignored', async (t) => {
  const { reader, messages, skipped } = collectingReader();
  reader.push(
    Buffer.from(
      'Server started on stdio\n\n   \n{"not":"jsonrpc"}\n[1,2]\n{"jsonrpc":"1.0","id":1}\n{"jsonrpc":"2.0","id":7,"result":{}}\n',
    ),
  );
  await settle();
  t.same(messages, [{ jsonrpc: '2.0', id: 7, result: {} }]);
  t.same(skipped, ['Server started on stdio', '{"not":"jsonrpc"}', '[1,2]', '{"jsonrpc":"1.0","id":1}']);
});

t.test(
  'an oversize line is dropped and reported once, as soon as it passes the bound; its rest is skipped, the next line read',
  async (t) => {
    const { reader, messages, skipped, oversize, ids } = collectingReader(64);
    reader.push(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"big":"' + 'x'.repeat(40)));
    reader.push(Buffer.from('x'.repeat(40)));
    t.equal(oversize.length, 1, 'reported');
    t.same(ids, [{ id: 1, isRequest: false }], 'with the id its beginning gives');
    reader.push(Buffer.from('x'.repeat(1000)));
    reader.push(Buffer.from('"}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'));
    await settle();
    t.equal(oversize.length, 1, 'once per line');
    t.same(messages, [{ jsonrpc: '2.0', id: 2, result: {} }]);
    t.same(skipped, [], 'the tail of the dropped line is not read as a line of its own');
  },
);

t.test('a whole oversize line in one chunk is dropped too', async (t) => {
  const { reader, messages, oversize, ids } = collectingReader(64);
  reader.push(
    Buffer.from(
      `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"x":"${'y'.repeat(100)}"}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n`,
    ),
  );
  await settle();
  t.equal(oversize.length, 1);
  t.same(ids, [{ id: 'a', isRequest: true }]);
  t.same(messages, [{ jsonrpc: '2.0', id: 3, result: {} }]);
});

t.test(
  'a response whose id comes after its result (as the SDK writes them) is identified when its line ends',
  async (t) => {
    const { reader, oversize, ids } = collectingReader(64);
    reader.push(Buffer.from(`{"result":{"content":[{"type":"text","text":"${'z'.repeat(200)}`));
    reader.push(Buffer.from('z'.repeat(200)));
    t.equal(oversize.length, 1);
    t.same(ids, [], 'not yet known');
    reader.push(Buffer.from('"}],"meta":{"id":4}},"jsonrpc":"2.0","id":17}\n'));
    t.same(ids, [{ id: 17, isRequest: false }], 'the top-level id at its end, not the nested one');
    reader.push(Buffer.from(`{"result":{"a":"${'q'.repeat(100)}","b":{"id":9}}}\n`));
    t.same(ids, [{ id: 17, isRequest: false }], 'an id at the end of a nested object is not taken');
  },
);

t.test('an endless line costs no more than the bound', async (t) => {
  const { reader, oversize, ids } = collectingReader(1024 * 1024);
  const zeros = Buffer.alloc(64 * 1024);
  const before = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 2000; i++) reader.push(zeros); // 128 MB of zero bytes, no newline
  t.same(oversize, [1024 * 1024 + 64 * 1024], 'once, when it passed the bound');
  t.same(ids, []);
  t.ok(process.memoryUsage().arrayBuffers - before < 16 * 1024 * 1024, 'nothing of it is kept');
});

t.test(
  "peekEnvelope finds the top-level id and method in a message's beginning, never a nested one",
  async (t) => {
    t.same(peekEnvelope('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"arguments":{"id":7'), {
      hasMethod: true,
      id: 42,
    });
    t.same(peekEnvelope('{"method":"x","params":{"id":7,"method":"y"},"id":"req-\\"1\\""'), {
      hasMethod: true,
      id: 'req-"1"',
    });
    t.same(peekEnvelope('{"jsonrpc":"2.0","result":{"id":9,"content":[{"text":"'), { hasMethod: false });
    t.same(peekEnvelope('{"jsonrpc":"2.0","id":-3.5e2,"result":'), { hasMethod: false, id: -350 });
    t.same(peekEnvelope('{"params":{"s":"}{\\"id\\":1"},"id":null,"method":"m"}'), { hasMethod: true });
    t.same(peekEnvelope('\u0000\u0000\u0000'), { hasMethod: false });
    t.same(peekEnvelope('{"id":1'), { hasMethod: false }, 'a number cut off is not taken');
  },
);

t.test('the stdio transport answers an oversize request with a parse error and keeps serving', async (t) => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const dropped: string[] = [];
  const transport = new StdioServerTransport({
    stdin,
    stdout,
    maxMessageBytes: 4096,
    onDropped: (why) => dropped.push(why),
  });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (m) => received.push(m);
  await transport.start();
  let out = '';
  stdout.on('data', (d) => (out += d));
  stdin.write(
    `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":{"s":"${'z'.repeat(10_000)}"}}}\n`,
  );
  stdin.write(`{"jsonrpc":"2.0","id":9,"result":{"big":"${'z'.repeat(10_000)}"}}\n`);
  stdin.write('{"jsonrpc":"2.0","id":6,"method":"ping"}\n');
  await settle();
  await settle();
  t.same(JSON.parse(out.trim()), {
    jsonrpc: '2.0',
    id: 5,
    error: {
      code: -32700,
      message:
        'a message of more than 4096 bytes from the client was dropped (the limit is --max-message-bytes)',
    },
  });
  t.same(
    received,
    [
      {
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: -32700,
          message:
            'a message of more than 4096 bytes from the client was dropped (the limit is --max-message-bytes)',
        },
      },
      { jsonrpc: '2.0', id: 6, method: 'ping' },
    ],
    'an oversize response fails our own request; the next message arrives',
  );
  t.same(
    dropped,
    Array(2).fill(
      'a message of more than 4096 bytes from the client was dropped (the limit is --max-message-bytes)',
    ),
    'one log line each',
  );
  await transport.close();
});

t.test('messages reach the consumer one microtask apart, in order', async (t) => {
  const order: string[] = [];
  const reader = new JsonLineReader({
    onMessage: (m) => {
      order.push(String((m as { id: number }).id));
      void Promise.resolve().then(() => order.push(`after ${(m as { id: number }).id}`));
    },
    onSkippedLine: () => {},
    onOversize: () => {},
  });
  reader.push(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'));
  await settle();
  t.same(
    order,
    ['1', 'after 1', '2', 'after 2'],
    'work queued by one message runs before the next is handed over',
  );
});

t.test('the envelope check', async (t) => {
  t.ok(isJsonRpcMessage({ jsonrpc: '2.0', method: 'x' }));
  t.ok(isJsonRpcMessage({ jsonrpc: '2.0', id: 1, result: {} }));
  t.notOk(isJsonRpcMessage({ jsonrpc: '2.0' }), 'neither method nor id');
  t.notOk(isJsonRpcMessage([{ jsonrpc: '2.0', method: 'x' }]), 'batches are not MCP');
  t.notOk(isJsonRpcMessage(null));
});

t.test('the stdio server transport skips and reports a non-JSON line from the client', async (t) => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const skipped: string[] = [];
  const transport = new StdioServerTransport({ stdin, stdout, onSkippedLine: (l) => skipped.push(l) });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (m) => received.push(m);
  let closed = false;
  transport.onclose = () => (closed = true);
  await transport.start();
  stdin.write('hello\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await settle();
  t.same(received, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  t.same(skipped, ['hello']);
  await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
  t.equal(String(stdout.read()), '{"jsonrpc":"2.0","id":1,"result":{}}\n');
  await transport.close();
  t.ok(closed);
  await t.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), /closed/);
  stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  await settle();
  t.equal(received.length, 1, 'nothing is read after close');
});

t.test(
  'a JSON-RPC batch is handed over message by message, in order; an empty or mixed one is skipped',
  async (t) => {
    const { reader, messages, skipped } = collectingReader();
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ];
    reader.push(
      Buffer.from(`${JSON.stringify(batch)}\n${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`),
    );
    reader.push(Buffer.from(`[]\n[{"jsonrpc":"2.0","id":4,"method":"ping"},{"not":"rpc"}]\n`));
    await settle();
    t.same(
      messages,
      [...batch, { jsonrpc: '2.0', id: 3, method: 'ping' }],
      'each message, then the next line',
    );
    t.same(skipped, ['[]', '[{"jsonrpc":"2.0","id":4,"method":"ping"},{"not":"rpc"}]']);
  },
);

t.test(
  'a message whose handling throws is reported (a request answered), and the next ones go on',
  async (t) => {
    const handled: unknown[] = [];
    const replies: unknown[] = [];
    const logged: string[] = [];
    const reader = new JsonLineReader({
      onMessage: (message) => {
        if ('method' in message && message.method === 'boom')
          throw new RangeError('Maximum call stack size exceeded');
        handled.push('id' in message ? message.id : (message as { method: string }).method);
      },
      onSkippedLine: () => {},
      onOversize: () => {},
      ...failedMessageHandler({
        sender: 'the client',
        reply: (m) => void replies.push(m),
        log: (why) => void logged.push(why),
      }),
    });
    reader.push(
      Buffer.from(
        '{"jsonrpc":"2.0","id":1,"method":"boom"}\n{"jsonrpc":"2.0","method":"boom"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n',
      ),
    );
    await settle();
    t.same(handled, [2], 'the message after them is handled');
    t.match(replies, [
      {
        id: 1,
        error: {
          code: -32603,
          message:
            'mcpmux could not handle boom from the client: it is nested too deeply (a JSON value deeper than mcpmux can handle)',
        },
      },
    ]);
    t.equal(replies.length, 1, 'a notification gets no answer');
    t.equal(logged.length, 2, 'both are logged');
  },
);

t.test('a line left open that ends like a message is offered once a read leaves it so', async (t) => {
  let offered = 0;
  const reader = new JsonLineReader({
    onMessage: () => {},
    onSkippedLine: () => {},
    onOversize: () => {},
    onUnterminated: () => offered++,
  });
  t.equal(reader.unterminated(), undefined);
  reader.push(Buffer.from('{"jsonrpc":"2.0","id":1,'));
  t.equal(offered, 0, 'a read that does not end with a brace');
  reader.push(Buffer.from('"result":{}}'));
  t.equal(offered, 1);
  t.equal(reader.unterminated(), '{"jsonrpc":"2.0","id":1,"result":{}}');
  reader.push(Buffer.from('\n'));
  t.equal(reader.unterminated(), undefined, 'its newline came');
  reader.push(Buffer.from(`{"a":"${'x'.repeat(70 * 1024)}"}`));
  t.equal(offered, 1, 'a long open line is not offered');
});
