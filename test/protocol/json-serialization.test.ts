import t from 'tap';
import {
  answerThatSerializes,
  reuseSerialization,
  serializeMessage,
} from '../../src/protocol/json-serialization.js';

const deep = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000)) as unknown;

t.test('an answer JSON can hold passes unchanged, the very object', async (t) => {
  const answer = { jsonrpc: '2.0' as const, id: 3, result: { content: [] } };
  t.equal(answerThatSerializes(answer), answer);
  const error = { jsonrpc: '2.0' as const, id: 'x', error: { code: -1, message: 'no' } };
  t.equal(answerThatSerializes(error), error);
});

t.test('an answer JSON cannot hold becomes an error under its id that says why', async (t) => {
  t.same(answerThatSerializes({ jsonrpc: '2.0', id: 4, result: { value: deep } } as never), {
    jsonrpc: '2.0',
    id: 4,
    error: {
      code: -32603,
      message:
        'mcpmux could not write it as JSON: it is nested too deeply (a JSON value deeper than mcpmux can handle)',
    },
  });
  t.match(answerThatSerializes({ jsonrpc: '2.0', id: 'b', result: { n: 1n } } as never), {
    id: 'b',
    error: { code: -32603, message: /BigInt/ },
  });
  t.match(
    answerThatSerializes({ jsonrpc: '2.0', id: 5, error: { code: 1, message: 'm', data: deep } } as never),
    {
      id: 5,
      error: { code: -32603, message: /nested too deeply/ },
    },
  );
});

t.test('requests and notifications are left to their transport, unchanged', async (t) => {
  const note = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: deep } };
  t.equal(answerThatSerializes(note as never), note);
  t.throws(
    () => serializeMessage(note as never),
    /notifications\/message: mcpmux could not write it as JSON/,
  );
});

t.test('a reused result is checked from its JSON made once', async (t) => {
  const result = reuseSerialization({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] });
  const first = { jsonrpc: '2.0' as const, id: 1, result };
  t.equal(answerThatSerializes(first), first);
  t.same(JSON.parse(serializeMessage({ jsonrpc: '2.0', id: 'r', result })), {
    jsonrpc: '2.0',
    id: 'r',
    result,
  });
});
