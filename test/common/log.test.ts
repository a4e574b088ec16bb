import { Writable } from 'node:stream';
import t from 'tap';
import { boundedSink, createLogger } from '../../src/common/log.js';

/** A stream whose reader takes nothing until `read()` is called, as a pipe nobody reads. */
function unreadStream() {
  const held: (() => void)[] = [];
  const taken: string[] = [];
  const stream = new Writable({
    highWaterMark: 1000,
    write(chunk, _encoding, callback) {
      taken.push(String(chunk));
      held.push(callback);
    },
  });
  const read = async () => {
    while (held.length > 0) {
      held.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { stream, taken, read };
}

t.test(
  'a log nobody reads holds at most the bound; the lines dropped are counted once it drains',
  async (t) => {
    const { stream, taken, read } = unreadStream();
    const log = createLogger({ sink: boundedSink(stream, 10_000) });
    const line = 'x'.repeat(100);
    for (let i = 0; i < 1000; i++) log.info(line); // ~110 KB of lines
    t.ok(stream.writableLength <= 10_000 + 200, `waiting: ${stream.writableLength} bytes`);
    const written = taken.length + stream.writableLength / 113;
    t.ok(written < 100, `about ${Math.round(written)} of 1000 lines kept`);
    await read();
    await read();
    const report = taken.find((l) => l.includes('dropped'));
    t.match(report, /^mcpmux warn: \d+ log line\(s\) dropped: mcpmux's stderr was not read\n$/);
    const droppedCount = Number(/(\d+) log line/.exec(report!)![1]);
    t.equal(
      taken.filter((l) => l.includes(line)).length + droppedCount,
      1000,
      'every line written or counted',
    );
    log.info('after');
    await read();
    t.equal(taken.at(-1), 'mcpmux info: after\n', 'written again once read');
  },
);

t.test('every line, audit lines too, passes the scrub last', async (t) => {
  const lines: string[] = [];
  const log = createLogger({
    level: 'info',
    sink: (line) => lines.push(line),
    scrub: (line) => line.replaceAll('sk-123456', '[secret KEY]'),
  });
  log.warn('could not reach https://h/sk-123456/mcp');
  log.audit('spawn server=x args=["--key=sk-123456"]');
  t.same(lines, [
    'mcpmux warn: could not reach https://h/[secret KEY]/mcp',
    'mcpmux audit: spawn server=x args=["--key=[secret KEY]"]',
  ]);
});
