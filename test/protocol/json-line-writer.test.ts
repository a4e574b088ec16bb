// Writing newline-delimited JSON-RPC (json-line-writer.ts) over real Node streams: the
// messages of a tick (or of a chunk being read) in one write, back-pressure, a closed
// stream, results serialized once.
import { Writable } from 'node:stream';
import t from 'tap';
import { JsonLineReader } from '../../src/protocol/json-line-reader.js';
import { JsonLineWriter } from '../../src/protocol/json-line-writer.js';
import { reuseSerialization } from '../../src/protocol/json-serialization.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A writable that records each write call it gets (after Node's own batching). */
function recordingStream(highWaterMark = 16384) {
  const writes: string[] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _enc, callback) {
      writes.push(chunk.toString());
      if (hold) release = callback;
      else callback();
    },
    writev(chunks, callback) {
      writes.push(chunks.map((c) => String(c.chunk)).join(''));
      callback();
    },
  });
  return {
    stream,
    writes,
    holdWrites: () => (hold = true),
    releaseWrites: () => ((hold = false), release?.()),
  };
}

t.test('messages sent in one tick leave in one write', async (t) => {
  const { stream, writes } = recordingStream();
  const writer = new JsonLineWriter(stream);
  const sent = Array.from({ length: 200 }, (_, i) => writer.write({ jsonrpc: '2.0', id: i, result: {} }));
  await Promise.all(sent);
  t.equal(writes.length, 1, 'one write for 200 messages');
  const lines = writes[0]!.split('\n');
  t.equal(lines.pop(), '', 'ends with a newline');
  t.same(
    lines.map((l) => JSON.parse(l).id),
    Array.from({ length: 200 }, (_, i) => i),
  );
  await writer.write({ jsonrpc: '2.0', method: 'later' });
  t.equal(writes.length, 2, 'a later tick is a new write');
});

t.test(
  'a line in pieces of bytes and text leaves in the same write as the messages of its tick',
  async (t) => {
    const { stream, writes } = recordingStream();
    const writer = new JsonLineWriter(stream);
    const answer = Buffer.from('xx{"result":{"text":"ü ✓"},"jsonrpc":"2.0","id":"mcpmux-4"}yy');
    const idStart = answer.indexOf('"mcpmux-4"');
    writer.post({ jsonrpc: '2.0', method: 'first' });
    writer.postPieces([
      answer.subarray(2, idStart),
      '"client ü"',
      answer.subarray(idStart + 10, answer.length - 2),
    ]);
    await writer.write({ jsonrpc: '2.0', method: 'last' });
    t.equal(writes.length, 1, 'one write');
    t.same(
      writes[0]!
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l)),
      [
        { jsonrpc: '2.0', method: 'first' },
        { result: { text: 'ü ✓' }, jsonrpc: '2.0', id: 'client ü' },
        { jsonrpc: '2.0', method: 'last' },
      ],
    );
  },
);

t.test(
  'a backed-up stream: sends resolve only once it drains, and nothing is lost or reordered',
  async (t) => {
    const { stream, writes, holdWrites, releaseWrites } = recordingStream(16);
    const writer = new JsonLineWriter(stream);
    holdWrites();
    let firstDone = false;
    const first = writer
      .write({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(100) } })
      .then(() => (firstDone = true));
    await settle();
    t.notOk(firstDone, 'not accepted while the stream is full');
    let secondDone = false;
    const second = writer.write({ jsonrpc: '2.0', id: 2, result: {} }).then(() => (secondDone = true));
    await settle();
    t.notOk(secondDone, 'the next batch waits for the drain too');
    releaseWrites();
    await Promise.all([first, second]);
    t.same(
      writes
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
      [1, 2],
    );
  },
);

t.test('what is sent while a chunk of input is read leaves in one write as the chunk is done', async (t) => {
  const { stream, writes } = recordingStream();
  const writer = new JsonLineWriter(stream);
  const echo = new JsonLineWriter(recordingStream().stream);
  let writesDuringChunk = -1;
  const reader = new JsonLineReader({
    onMessage: (message) => {
      writer.post({ jsonrpc: '2.0', id: (message as { id: number }).id, result: {} });
      echo.post({ jsonrpc: '2.0', method: 'seen' });
      writesDuringChunk = writes.length;
      return true;
    },
    onSkippedLine: () => t.fail('no line is skipped'),
    onOversize: () => t.fail('no line is too long'),
  });
  const lines = [1, 2, 3].map((id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n');
  reader.push(Buffer.from(lines.join('')));
  t.equal(writesDuringChunk, 0, 'nothing is written while the chunk is read');
  t.equal(writes.length, 1, 'one write, made before push returned (no tick waited for)');
  t.same(
    writes[0]!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id),
    [1, 2, 3],
  );
  writer.post({ jsonrpc: '2.0', method: 'outside a chunk' });
  t.equal(writes.length, 1, 'outside a chunk a send waits for the tick');
  await settle();
  t.equal(writes.length, 2);
});

t.test('a backed-up stream that closes fails whoever waits for its batches', async (t) => {
  const { stream, holdWrites } = recordingStream(16);
  const writer = new JsonLineWriter(stream);
  holdWrites();
  const first = writer.write({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(100) } });
  await settle();
  const second = writer.write({ jsonrpc: '2.0', id: 2, result: {} });
  await settle();
  stream.destroy();
  await t.rejects(first, /closed/i, 'the batch written before the close');
  await t.rejects(second, /closed/i, 'the batch waiting for the drain');
});

t.test('a reused result is serialized once and framed correctly for each request', async (t) => {
  const { stream, writes } = recordingStream();
  const writer = new JsonLineWriter(stream);
  const result = reuseSerialization({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] });
  await writer.write({ jsonrpc: '2.0', id: 1, result });
  await writer.write({ jsonrpc: '2.0', id: 'req-2', result });
  t.same(
    writes.map((w) => JSON.parse(w)),
    [
      { jsonrpc: '2.0', id: 1, result },
      { jsonrpc: '2.0', id: 'req-2', result },
    ],
  );
});

t.test(
  'a message JSON cannot hold: an answer becomes an error under its id, anything else is refused',
  async (t) => {
    const { stream, writes } = recordingStream();
    const writer = new JsonLineWriter(stream);
    const deep = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000)) as unknown;
    writer.post({ jsonrpc: '2.0', id: 7, result: { value: deep } } as never);
    writer.post({ jsonrpc: '2.0', id: 8, result: { big: 1n } } as never);
    t.throws(
      () => writer.post({ jsonrpc: '2.0', method: 'notifications/message', params: { data: deep } } as never),
      /notifications\/message: mcpmux could not write it as JSON: it is nested too deeply/,
    );
    await t.rejects(
      writer.write({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { arguments: deep } } as never),
      /tools\/call: mcpmux could not write it as JSON/,
    );
    await settle();
    const lines = writes
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    t.match(lines, [
      { id: 7, error: { code: -32603, message: /nested too deeply/ } },
      { id: 8, error: { code: -32603, message: /BigInt/ } },
    ]);
  },
);

t.test(
  'the backlog counts the batch and the stream buffer, and says since when the stream is full',
  async (t) => {
    const { stream, holdWrites, releaseWrites } = recordingStream(16);
    const writer = new JsonLineWriter(stream);
    holdWrites();
    writer.postLine('"a"');
    t.equal(writer.backlog, 4, 'a line posted and not yet written counts, with its newline');
    t.equal(writer.backedUpSince, undefined);
    await settle();
    const before = Date.now();
    writer.postLine('"' + 'x'.repeat(98) + '"');
    await settle();
    t.equal(writer.backlog, 4 + 101, 'the stream holds both: the first write was never finished');
    t.ok((writer.backedUpSince ?? 0) >= before - 1000, 'the stream is full since the second write');
    writer.postLine('"b"');
    await settle();
    t.equal(writer.backlog, 4 + 101 + 4, 'what waits for the drain counts too');
    releaseWrites();
    await settle();
    t.equal(writer.backedUpSince, undefined, 'drained');
    t.equal(writer.backlog, 0, 'all written');
  },
);

t.test(
  'a hold writes nothing until released; the released line leads what was posted meanwhile',
  async (t) => {
    const { stream, writes } = recordingStream();
    const writer = new JsonLineWriter(stream);
    const release = writer.hold();
    writer.post({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    const later = writer.write({ jsonrpc: '2.0', id: 9, result: {} });
    await settle();
    t.same(writes, [], 'nothing written while held');
    release({ jsonrpc: '2.0', id: 1, result: { instructions: 'all of them' } });
    await later;
    t.same(
      writes
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id ?? JSON.parse(l).method),
      [1, 'notifications/message', 9],
      'the held answer first, then the rest in order',
    );
    const again = writer.hold();
    again({ jsonrpc: '2.0', id: 2, result: {} });
    await settle();
    t.equal(JSON.parse(writes.at(-1)!).id, 2, 'released with nothing waiting, it goes out alone');
  },
);
