import t from 'tap';
import { MULTI_LINE, NO_NEWLINE, StdoutNoise } from '../../../src/child/process/stdout-noise.js';

const pretty = (value: object) => JSON.stringify(value, null, 2).split('\n');

t.test('a JSON-RPC message written across lines is recognized at its last line, and told once', async (t) => {
  let told = 0;
  const noise = new StdoutNoise({ onMultiLine: () => told++ });
  const lines = pretty({
    jsonrpc: '2.0',
    id: 0,
    result: { capabilities: { tools: {} }, list: [{ a: 1 }, { b: [] }] },
  });
  for (const line of lines.slice(0, -1)) noise.skipped(line);
  t.equal(told, 0, 'not before the message is whole');
  noise.skipped(lines.at(-1)!);
  t.equal(told, 1);
  for (const line of pretty({ jsonrpc: '2.0', id: 1, result: {} })) noise.skipped(line);
  t.equal(told, 1, 'once');
  t.equal(noise.describe(), `\nit ${MULTI_LINE}`);
});

t.test(
  'pretty-printed JSON that is no message, and whole JSON values on one line, are only noise',
  async (t) => {
    let told = 0;
    const noise = new StdoutNoise({ onMultiLine: () => told++ });
    for (const line of pretty({ config: { port: 3000 } })) noise.skipped(line);
    noise.skipped('{"debug": true}');
    noise.skipped('["a", "b"]');
    t.equal(told, 0);
    t.equal(noise.describe(), '\non stdout it wrote 7 lines that are not JSON-RPC messages, the first: {');
  },
);

t.test('a message after noise that opened a value is still found', async (t) => {
  let told = 0;
  const noise = new StdoutNoise({ onMultiLine: () => told++ });
  noise.skipped('{ not json at all');
  noise.skipped('x'.repeat(70 * 1024)); // what was joined passes its bound and is let go
  for (const line of pretty({ jsonrpc: '2.0', id: 0, result: {} })) noise.skipped(line);
  t.equal(told, 1);
});

t.test('text alone: counted, the first line kept short', async (t) => {
  const noise = new StdoutNoise();
  t.equal(noise.describe(), '', 'nothing skipped, nothing said');
  noise.skipped(`starting ${'.'.repeat(500)}`);
  t.equal(
    noise.describe(),
    `\non stdout it wrote 1 line that is not a JSON-RPC message, the first: starting ${'.'.repeat(191)}`,
  );
  for (let i = 0; i < 100_000; i++) noise.skipped('y');
  t.match(noise.describe(), /wrote 100001 lines that are not JSON-RPC messages/);
});

t.test('what stdout holds after its last newline: a message that forgot it, or text', async (t) => {
  let open: string | undefined = '{"jsonrpc":"2.0","id":0,"result":{}}';
  const noise = new StdoutNoise({ unterminated: () => open });
  t.equal(noise.describe(), `\nit ${NO_NEWLINE}`);
  open = 'Listening on';
  t.equal(noise.describe(), '\nits stdout ends with text no newline has ended: Listening on');
  noise.skipped('starting');
  t.equal(
    noise.describe(),
    '\non stdout it wrote 1 line that is not a JSON-RPC message, the first: starting\nits stdout ends with text no newline has ended: Listening on',
  );
  open = '  ';
  t.equal(
    noise.describe(),
    '\non stdout it wrote 1 line that is not a JSON-RPC message, the first: starting',
  );
});

t.test('an answer but for its "jsonrpc" is told; other JSON on a line is not', async (t) => {
  const told: string[] = [];
  const noise = new StdoutNoise({ onUnversioned: (line) => told.push(line) });
  noise.skipped('{"id":0,"result":{"protocolVersion":"2025-11-25"}}');
  noise.skipped('{"id":1,"error":{"code":-32601,"message":"no"}}');
  noise.skipped('{"debug":true,"id":3}');
  noise.skipped('{"jsonrpc":"1.0","id":4,"result":{}}');
  t.same(told, [
    '{"id":0,"result":{"protocolVersion":"2025-11-25"}}',
    '{"id":1,"error":{"code":-32601,"message":"no"}}',
    '{"jsonrpc":"1.0","id":4,"result":{}}',
  ]);
});

t.test('silence: said only when the child wrote nothing on stdout', async (t) => {
  let wrote = false;
  const noise = new StdoutNoise({ wroteAny: () => wrote });
  t.match(
    noise.silence(),
    /^\nit wrote nothing on stdout either: still starting .* or its output is buffered/,
  );
  wrote = true;
  t.equal(noise.silence(), '');
  t.equal(new StdoutNoise().silence(), '', 'unknown: nothing said');
});
