// What stands in for a remote server's answer that holds no JSON-RPC at all, or a result MCP does not allow.
import t from 'tap';
import {
  answersInstead,
  unparsableAnswer,
  wellFormedBody,
  wellFormedEvent,
} from '../../src/protocol/answer-shape.js';

const ids =
  (...list: (string | number)[]) =>
  () =>
    list;

t.test('a body that is not JSON-RPC becomes an error answer for each request it answered', async (t) => {
  const one = answersInstead('<html>\n  <p>hi</p>\n</html>', 'text/html', ids(7));
  t.same(JSON.parse(one!.text), {
    jsonrpc: '2.0',
    id: 7,
    error: {
      code: -32603,
      message: "the server's answer is not JSON-RPC: it sent text/html: <html> <p>hi</p> </html>",
    },
  });
  t.equal(one!.why, "the server's answer is not JSON-RPC: it sent text/html: <html> <p>hi</p> </html>");
  const batch = JSON.parse(answersInstead('{"status":"ok"}', 'application/json', ids(1, 'b'))!.text);
  t.same(
    batch.map((a: { id: unknown }) => a.id),
    [1, 'b'],
    'a batch of requests gets a batch of answers',
  );
  t.match(answersInstead('', '', ids(1))!.why, /it sent a body without a content type, empty$/);
  t.match(answersInstead('x'.repeat(300), 'text/plain', ids(1))!.why, /: x{200}…$/, 'cut short');
});

t.test('JSON-RPC, however malformed, and a body nobody waits for are left alone', async (t) => {
  let asked = 0;
  const counted = () => (asked++, [1]);
  t.equal(answersInstead('{"jsonrpc":"2.0","id":1,"result":{}}', 'application/json', counted), undefined);
  t.equal(answersInstead('{"id":1,"error":{}}', 'application/json', counted), undefined);
  t.equal(answersInstead('[{"jsonrpc":"2.0","method":"x"}]', 'application/json', counted), undefined);
  t.equal(asked, 0, 'the request is not read again for a JSON-RPC body');
  t.ok(answersInstead('[]', 'application/json', counted), 'an empty batch is not JSON-RPC');
  t.equal(
    answersInstead('<html></html>', 'text/html', () => []),
    undefined,
    'no request waits',
  );
});

t.test(
  'a result that is not an object, in a body or an event, fails its request as MCP requires',
  async (t) => {
    const why = `the server's answer is not valid MCP: its "result" is null, not an object`;
    const body = wellFormedBody('{"jsonrpc":"2.0","id":4,"result":null}');
    t.same(body && { ...body, text: JSON.parse(body.text) }, {
      text: { jsonrpc: '2.0', id: 4, error: { code: -32603, message: why } },
      why,
    });
    const event = wellFormedEvent('id: 9\nevent: message\ndata: {"jsonrpc":"2.0","id":5,"result":[1]}\n\n');
    t.match(event, {
      text: /^id: 9\nevent: message\ndata: .*"id":5.*its \\"result\\" is \[1\], not an object/,
    });
    t.equal(wellFormedBody('{"jsonrpc":"2.0","id":4,"result": {"content":[]}}'), undefined, 'an object');
    t.equal(wellFormedBody('{"jsonrpc":"2.0","id":4,"result":{}}'), undefined);
  },
);

t.test(
  'a line that is not JSON but plainly an answer (a result or an error) fails the request it answers',
  async (t) => {
    const broken = '"text": "he said "hi""';
    for (const [line, id] of [
      [`{"jsonrpc":"2.0","id":7,"result":{${broken}}}`, 7],
      [`{"jsonrpc": "2.0", "id": "mcpmux-12", "result": {${broken}}}`, 'mcpmux-12'],
      [`{"id": -3, "result": {${broken}}}`, -3],
      [`{"result":{${broken}},"jsonrpc":"2.0","id":"a b"}`, 'a b'],
      [`{"result": {${broken}}, "jsonrpc": "2.0", "id": 0}\r`, 0],
      [`{"jsonrpc":"2.0","id":8,"error":{"code":-1,"message":"no "such" file"}}`, 8],
      [`{"error":{"code":-1,"message":"no "such" file"},"jsonrpc":"2.0","id":"e"}`, 'e'],
    ] as const) {
      const found = unparsableAnswer(line);
      t.match(found, {
        answer: {
          jsonrpc: '2.0',
          id,
          error: { code: -32603, message: /^the server's answer is not JSON \(.+\): \{/ },
        },
        why: /^the server's answer is not JSON \(.+\): \{/,
      });
      t.equal((found!.answer as { id?: unknown }).id, id, line);
    }
    t.match(
      unparsableAnswer(`{"jsonrpc":"2.0","id":1,"result":"${'x'.repeat(300)}`)!.why,
      /: \{"jsonrpc".{190,}…$/,
      'cut',
    );
    for (const line of [
      `{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{${broken}}}`, // a request: not ours to answer
      `{"jsonrpc":"2.0","method":"notifications/message","params":{${broken}}}`,
      `{"result":{${broken}},"id":4}`, // no envelope at its end
      `{"jsonrpc":"2.0","id":{"a":1},"result":{}`, // an id no request has
      `listening on 3000 {"result":`,
    ])
      t.equal(unparsableAnswer(line), undefined, line);
  },
);
