// A 2026-07-28 client's fast-path call to a 2025 child, held from the child's first question
// on: what its request is answered with, however the call goes on. A real lane and relay, no
// processes (the rounds themselves, with real processes: e2e/input-relay.test.ts, e2e/fast-path.test.ts).
import t from 'tap';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { MuxError } from '../../../src/common/errors.js';
import { ChildLane } from '../../../src/child/requests/child-lane.js';
import { ForwardedCall, type Shaping } from '../../../src/protocol/forwarded-call.js';
import { FastCallOrigin } from '../../../src/session/fast-path/fast-call-origin.js';
import { InputRelay } from '../../../src/session/relay/input-relay.js';

const QUESTION = { method: 'elicitation/create', params: { message: 'Your name?' } };

/** A lane with one call of the client's id 7 in flight, and the origin that stands for it. */
function heldCall(progressToken?: string) {
  const sent: JSONRPCMessage[] = [];
  const lane = new ChildLane({
    server: 's',
    send: (message) => void sent.push(message),
    sendLine: () => {},
    callTimeoutMs: 60_000,
    peer: {
      modern: () => false,
      mayAsk: () => true,
      callFor: () => () => {},
      sessionLogLevel: () => undefined,
    },
  });
  const replies: JSONRPCMessage[] = [];
  const shaping: Shaping = {
    result: (result) => ({ ...result, shaped: true }),
    failure: (error) => ({ result: { isError: true, text: `${error.message} [${error.code}]` } }),
  };
  let answered = 0;
  let ended = 0;
  const call = new ForwardedCall(
    7,
    progressToken,
    "tool 't'",
    (m) => void replies.push(m),
    shaping,
    () => ended++,
  );
  const relay = new InputRelay();
  const origin = new FastCallOrigin(
    { elicitation: {} },
    {
      call,
      request: { server: 's', method: 'tools/call', requested: 's__t' },
      relay,
      answered: () => answered++,
    },
  );
  lane.start(call, 'tools/call', { name: 't', arguments: {} });
  const childId = call.childId;
  const child = (message: Record<string, unknown>) =>
    lane.divert({ jsonrpc: '2.0', ...message } as JSONRPCMessage, 100);
  const replied = async () => {
    for (let i = 0; i < 200 && replies.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    return replies[0] as Record<string, any> | undefined;
  };
  return { lane, sent, replies, replied, origin, childId, child, relay, counts: () => ({ answered, ended }) };
}

t.test('the first question answers the request with a round; the call stays open', async (t) => {
  const h = heldCall();
  t.same(h.origin.capabilities, { elicitation: {} }, 'what the request declared');
  const answer = h.origin.ask(QUESTION, new AbortController().signal);
  const round = (await h.replied())!;
  t.equal(round['id'], 7, "under the client's id");
  t.equal(round['result'].resultType, 'input_required');
  t.same(round['result'].inputRequests, { elicitation_1: QUESTION });
  t.type(round['result'].requestState, 'string');
  t.same(h.counts(), { answered: 1, ended: 0 }, "the client's id is free, the child's call goes on");
  t.equal(h.relay.heldCount, 1, 'held until the next round');
  // The child gives up waiting and answers: the held call has its result, the client's request is long answered.
  t.ok(h.child({ id: h.childId, result: { content: [] } }));
  t.equal(h.replies.length, 1, 'nothing more goes to the answered request');
  t.same(h.counts(), { answered: 1, ended: 1 });
  // Its result waits for the client's next round; an open question fails when the call is given up.
  h.relay.close();
  await t.rejects(answer, /mcpmux is stopping/);
});

t.test('a child that ends before its question is put: the client gets its result, shaped', async (t) => {
  const h = heldCall();
  const answer = t.rejects(h.origin.ask(QUESTION, new AbortController().signal), /the call already ended/);
  h.child({ id: h.childId, result: { content: [{ type: 'text', text: 'done' }] } });
  const reply = (await h.replied())!;
  t.same(reply['result'], { content: [{ type: 'text', text: 'done' }], shaped: true });
  await answer;
  t.equal(h.relay.heldCount, 0);
});

t.test(
  "a child's error or mcpmux's verdict before the round: the client gets it as the fast path gives it",
  async (t) => {
    const failed = heldCall();
    void failed.origin.ask(QUESTION, new AbortController().signal).catch(() => {});
    failed.child({
      id: failed.childId,
      error: { code: -32000, message: 'MCP error -32000: broke', data: 1 },
    });
    t.same((await failed.replied())!['error'], { code: -32000, message: 'broke', data: 1 });

    const crashed = heldCall();
    void crashed.origin.ask(QUESTION, new AbortController().signal).catch(() => {});
    crashed.lane.end(new MuxError('SERVER_CRASHED', "server 's' crashed"));
    t.same((await crashed.replied())!['result'], {
      isError: true,
      text: "server 's' crashed [SERVER_CRASHED]",
    });
  },
);

t.test('progress goes to the request until it is answered, then to no one', async (t) => {
  const h = heldCall('tok');
  void h.origin.ask(QUESTION, new AbortController().signal).catch(() => {});
  t.ok(h.child({ method: 'notifications/progress', params: { progressToken: h.childId, progress: 1 } }));
  t.same(h.replies[0], {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progress: 1, progressToken: 'tok' },
  });
  for (let i = 0; i < 200 && h.replies.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
  t.equal((h.replies[1] as Record<string, any>)['result'].resultType, 'input_required');
  h.child({ method: 'notifications/progress', params: { progressToken: h.childId, progress: 2 } });
  t.equal(h.replies.length, 2, 'none after the round went out');
});

t.test('given up (mcpmux stops): the child hears its call cancelled', async (t) => {
  const h = heldCall();
  const answer = h.origin.ask(QUESTION, new AbortController().signal);
  await h.replied();
  h.relay.close();
  await t.rejects(answer, /mcpmux is stopping/);
  t.match(h.sent.at(-1), {
    method: 'notifications/cancelled',
    params: { requestId: h.childId, reason: /cancelled while it waited for input/ },
  });
});

t.test('a request that cannot carry a question refuses it', async (t) => {
  const origin = new FastCallOrigin({});
  t.same(origin.capabilities, {});
  await t.rejects(origin.ask(QUESTION, new AbortController().signal), /cannot be put to this request/);
});
