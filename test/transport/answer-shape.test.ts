// What stands in for a remote server's answer that holds no JSON-RPC at all.
import t from 'tap';
import { answersInstead } from '../../src/transport/answer-shape.js';

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
