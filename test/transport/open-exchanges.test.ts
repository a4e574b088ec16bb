// What mcpmux owes its stdio client, and what it has asked it, when the client closes its input.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import t from 'tap';
import { INPUT_CLOSED_CODE, OpenExchanges } from '../../src/transport/open-exchanges.js';

const request = (id: string | number, method = 'tools/call'): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method,
});
const answer = (id: string | number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });

t.test(
  'an id reused once its request is answered, before the answer is written, is owed twice',
  async (t) => {
    const open = new OpenExchanges();
    open.read(request(0, 'initialize')); // its answer is held until the configured servers start
    open.read(request(0)); // a client that numbers from 0 again (MCP forbids it; some do)
    t.equal(open.owed, 2);
    open.sent(answer(0));
    t.equal(open.owed, 1, 'the call is still owed after the initialize answer');
    open.sent(answer(0));
    t.equal(open.owed, 0);
    open.sent(answer(0));
    t.equal(open.owed, 0, 'an answer to nothing owed changes nothing');
  },
);

t.test('what is asked of the client fails once its input has ended', async (t) => {
  const open = new OpenExchanges();
  t.equal(open.sent(request('a', 'roots/list')), undefined, 'asked while it can answer');
  open.sent(request('b', 'sampling/createMessage'));
  open.sent(request('x', 'elicitation/create'));
  open.read(answer('a'));
  // The SDK gave up on this one (its timeout) and told the client so.
  open.sent({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } });
  t.same(
    open.inputEnded().map((m) => ('id' in m ? m.id : undefined)),
    ['b'],
    'only the unanswered question fails at the end',
  );
  t.match(
    open.sent(request('c', 'roots/list')),
    { id: 'c', error: { code: INPUT_CLOSED_CODE } },
    'and any later one',
  );
  t.equal(
    open.sent({ jsonrpc: '2.0', method: 'notifications/message', params: {} }),
    undefined,
    'not a notification',
  );
});
