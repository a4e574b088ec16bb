// A call's result passes through unparsed when its answer needs no shaping: only the id is
// replaced, and only where it is certainly the outer object's. Anything else is left to the
// parsed path (divert), which the e2e fast-path tests cover with real processes.
import t from 'tap';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { MuxError } from '../../../src/common/errors.js';
import { ChildLane, resultLineId } from '../../../src/child/requests/child-lane.js';
import { ForwardedCall, type Reply, type Shaping } from '../../../src/protocol/forwarded-call.js';

function newLane(callTimeoutMs = 60_000) {
  const sent: JSONRPCMessage[] = [];
  const lane = new ChildLane({
    server: 's',
    send: async (message) => void sent.push(message),
    sendLine: (line) => void sent.push(JSON.parse(line) as JSONRPCMessage),
    callTimeoutMs,
    peer: {
      modern: () => false,
      mayAsk: () => false,
      callFor: () => () => {},
      sessionLogLevel: () => undefined,
    },
  });
  return { lane, sent };
}

/** Offers a line to the lane as the reader does: in the middle of a chunk, with other bytes around it. */
function take(lane: ChildLane, line: string): boolean {
  const bytes = Buffer.from(`{"x":1}\n${line}\n{"jsonrpc":"2.0","id":"mcpmux-1","result":{}}`);
  const start = Buffer.byteLength('{"x":1}\n');
  return lane.takeBytes(bytes, start, start + Buffer.byteLength(line));
}

/** resultLineId on a line inside a larger chunk, with what it found as text. */
function idOf(line: string) {
  const bytes = Buffer.from(`"mcpmux-5"}\n${line}\n,"jsonrpc":"2.0","id":"mcpmux-6"}`);
  const start = Buffer.byteLength('"mcpmux-5"}\n');
  const at = resultLineId(bytes, start, start + Buffer.byteLength(line));
  return at && { id: bytes.toString('utf8', at.start, at.end), seq: at.seq };
}

function call(id: string | number, shaping: Partial<Shaping> = {}) {
  const lines: string[] = [];
  const messages: JSONRPCMessage[] = [];
  const reply: Reply = Object.assign((m: JSONRPCMessage) => void messages.push(m), {
    pieces: (pieces: readonly (string | Buffer)[]) =>
      void lines.push(pieces.map((p) => (typeof p === 'string' ? p : p.toString('utf8'))).join('')),
  });
  let done = 0;
  const forwarded = new ForwardedCall(
    id,
    undefined,
    "tool 'x'",
    reply,
    {
      result: (r) => r,
      failure: () => ({ result: {} }),
      passThrough: () => true,
      ...shaping,
    },
    () => done++,
  );
  return { forwarded, lines, messages, done: () => done };
}

t.test('the two ways SDKs write a result, and the id in each', async (t) => {
  t.same(idOf('{"result":{"content":[]},"jsonrpc":"2.0","id":"mcpmux-12"}'), { id: '"mcpmux-12"', seq: 12 });
  t.same(idOf('{"jsonrpc":"2.0","id":"mcpmux-7","result":{"content":[]}}'), { id: '"mcpmux-7"', seq: 7 });
  t.same(
    idOf('{"result":{"t":"ü"},"jsonrpc":"2.0","id":"mcpmux-3"}'),
    { id: '"mcpmux-3"', seq: 3 },
    'bytes, not characters',
  );
});

t.test('lines that are not a plain result with a lane id are not recognized', async (t) => {
  for (const line of [
    '{"jsonrpc":"2.0","id":"mcpmux-3","error":{"code":-1,"message":"no"}}', // an error
    '{"result":{"id":"mcpmux-3"},"jsonrpc":"2.0","id":4}', // the lane id is nested; the outer one is the SDK's
    '{"result":{"a":",\\"jsonrpc\\":\\"2.0\\",\\"id\\":\\"mcpmux-3\\"}"},"jsonrpc":"2.0","id":5}', // inside a string
    '{"result":{},"jsonrpc":"2.0","id":"mcpmux-"}', // no number
    '{"result":{},"jsonrpc":"2.0","id":"mcpmux-3x"}',
    '{"result":{},"jsonrpc":"2.0","id":"mcpmux-03"}', // not the id mcpmux-3 was given
    '{"jsonrpc":"2.0","id":"mcpmux-03","result":{}}',
    '{"result":{},"jsonrpc":"2.0","id":"mcpmux-0"}', // lane numbers start at 1
    '{"result":{},"jsonrpc":"2.0","id":"mcpmux-1234567890123456"}', // past 15 digits
    '{"result":{},"jsonrpc":"2.0","id":"xmcpmux-3"}',
    '{"result":"mcpmux-3"}', // the number's prefix would start before the line
    '{"result":null,"jsonrpc":"2.0","id":"mcpmux-3"}', // not an object: divert answers it
    '{"jsonrpc":"2.0","id":"mcpmux-3","result":"done"}',
    '{"result":[],"jsonrpc":"2.0","id":"mcpmux-3"}',
    '{"result":{}}',
    '{"jsonrpc":"2.0","id":"mcpmux-3',
    '{"result":{},"id":"mcpmux-3"}', // no jsonrpc member: the parsed path judges it
    '{"method":"notifications/progress","params":{"progressToken":"mcpmux-3"},"jsonrpc":"2.0"}',
    '{"jsonrpc":"2.0","id":"mcpmux-3","method":"ping"}', // a request of the child
  ])
    t.equal(idOf(line), undefined, line);
});

t.test('a result passes through with the client id in place of the lane id', async (t) => {
  const { lane, sent } = newLane();
  const c = call('client "7"');
  lane.start(c.forwarded, 'tools/call', { name: 'x' });
  const childId = (sent[0] as { id: string }).id;
  const line = `{"result":{"content":[{"type":"text","text":"a \\"quoted\\" ü"}]},"jsonrpc":"2.0","id":"${childId}"}`;
  t.equal(take(lane, line), true);
  t.same(JSON.parse(c.lines[0]!), {
    result: { content: [{ type: 'text', text: 'a "quoted" ü' }] },
    jsonrpc: '2.0',
    id: 'client "7"',
  });
  t.equal(c.done(), 1, 'the call is settled');
  t.equal(take(lane, line), false, 'a second answer to the same id is not taken');

  const d = call(42);
  lane.start(d.forwarded, 'tools/call', { name: 'x' });
  const prefixed = `{"jsonrpc":"2.0","id":"${(sent[1] as { id: string }).id}","result":{"content":[]}}`;
  t.equal(take(lane, prefixed), true);
  t.same(JSON.parse(d.lines[0]!), { jsonrpc: '2.0', id: 42, result: { content: [] } });
});

t.test('a result that must be shaped, or a reply with no line, is left to the parsed path', async (t) => {
  const { lane, sent } = newLane();
  const big = call(1, { passThrough: (bytes) => bytes <= 10 });
  lane.start(big.forwarded, 'tools/call', { name: 'x' });
  const line = `{"result":{"content":[]},"jsonrpc":"2.0","id":"${(sent[0] as { id: string }).id}"}`;
  t.equal(take(lane, line), false, 'longer than the bound: kept and cut after parsing');
  t.equal(big.done(), 0);
  t.equal(lane.divert(JSON.parse(line) as JSONRPCMessage, line.length), true, 'the parsed path takes it');
  t.equal(big.messages.length, 1);

  const plain = call(2);
  delete (plain.forwarded.reply as { pieces?: unknown }).pieces;
  lane.start(plain.forwarded, 'tools/call', { name: 'x' });
  const line2 = `{"result":{},"jsonrpc":"2.0","id":"${(sent[1] as { id: string }).id}"}`;
  t.equal(take(lane, line2), false);

  const unknown = '{"result":{},"jsonrpc":"2.0","id":"mcpmux-999"}';
  t.equal(take(lane, unknown), false, 'an id the lane never gave');
  lane.end(new MuxError('CHILD_ERROR', 'gone'));
  t.equal(plain.messages.length, 1, 'ending the lane settles what is left');
});

t.test('one lane timer ends each call at its own deadline, which progress moves', async (t) => {
  const TIMEOUT = 150;
  const { lane, sent } = newLane(TIMEOUT);
  const timedOutAt = new Map<string, number>();
  const startedAt = performance.now();
  const calls = ['a', 'b', 'c'].map((name) => {
    const c = call(name, {
      failure: (error) => {
        timedOutAt.set(name, performance.now());
        return { error: { code: -1, message: error.message } };
      },
    });
    lane.start(c.forwarded, 'tools/call', { name: 'x' });
    return c;
  });
  const childIds = sent.map((m) => (m as { id: string }).id);
  await new Promise((resolve) => setTimeout(resolve, TIMEOUT / 2));
  const progressAt = performance.now();
  const progress = {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: childIds[1], progress: 1 },
  };
  t.equal(lane.divert(progress as JSONRPCMessage, 0), true, 'progress of b restarts its deadline');
  const answer = `{"result":{},"jsonrpc":"2.0","id":"${childIds[2]}"}`;
  t.equal(take(lane, answer), true, 'c is answered');

  while (timedOutAt.size < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  t.ok(timedOutAt.get('a')! - startedAt >= TIMEOUT, 'a ends no sooner than its deadline');
  t.ok(timedOutAt.get('b')! - progressAt >= TIMEOUT, 'b ends no sooner than its deadline after progress');
  t.ok(timedOutAt.get('a')! < timedOutAt.get('b')!, 'a first');
  t.match(calls[0]!.messages[0], { id: 'a', error: { message: /did not answer tool 'x' within 0.15 s/ } });
  t.match(calls[1]!.messages[0], { id: 'b', error: { message: /within 0.15 s/ } });
  t.same(calls[2]!.messages, [], 'c had its answer and no timeout');
  const cancelled = sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled');
  t.same(
    cancelled.map((m) => (m as unknown as { params: { requestId: string } }).params.requestId),
    [childIds[0], childIds[1]],
    'the child hears of each under its own id',
  );
});

t.test('the end of a generation settles every pending call once, whatever its order', async (t) => {
  const { lane, sent } = newLane();
  const calls = ['a', 'b', 'c', 'd'].map((name) => {
    const c = call(name, { failure: (error) => ({ error: { code: -1, message: error.message } }) });
    lane.start(c.forwarded, 'tools/call', { name: 'x' });
    return c;
  });
  const childIds = sent.map((m) => (m as { id: string }).id);
  const answer = `{"result":{},"jsonrpc":"2.0","id":"${childIds[1]}"}`;
  t.equal(take(lane, answer), true, 'b is answered');
  const progress = {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: childIds[0] },
  };
  t.equal(lane.divert(progress as JSONRPCMessage, 0), true, 'a moves to the end of the order');
  lane.cancel(calls[2]!.forwarded, 'cancelled');
  lane.end(new MuxError('SERVER_CRASHED', 'it crashed'));
  t.same(
    calls.map((c) => c.done()),
    [1, 1, 1, 1],
    'each call ended once',
  );
  t.match(calls[0]!.messages, [{ id: 'a', error: { message: 'it crashed' } }]);
  t.same(calls[1]!.messages, [], 'b had its answer');
  t.same(calls[2]!.messages, [], 'c was cancelled');
  t.match(calls[3]!.messages, [{ id: 'd', error: { message: 'it crashed' } }]);
  const late = `{"result":{},"jsonrpc":"2.0","id":"${childIds[3]}"}`;
  t.equal(take(lane, late), false, 'an answer after the end belongs to no call');
});
