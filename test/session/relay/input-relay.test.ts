// The bookkeeping of held calls (a 2025 child's call kept open across a 2026-07-28 client's
// rounds): a round nobody answers expires and the child hears the call cancelled; past the
// cap the oldest is given up; a client that ends its request gives up the call; stopping
// cancels all. The child here is a stand-in that asks and waits (the wire is covered by
// test/e2e/input-relay.test.ts with real processes).
import t from 'tap';
import type { ChildConnection } from '../../../src/child/child-connection.js';
import type { InputOrigin } from '../../../src/child/child-types.js';
import { InputRelay, type ClientRound } from '../../../src/session/relay/input-relay.js';

/** A 2025 child whose call asks one question and returns the answer; `ended` says how the call ended. */
function askingChild(name = 'old') {
  const calls: { signal: AbortSignal; asked: Promise<unknown> }[] = [];
  const connection = {
    name,
    speaksModern: false,
    request: async (
      _method: string,
      _params: unknown,
      options: { origin: InputOrigin; signal: AbortSignal },
    ) => {
      const asked = options.origin.ask(
        { method: 'elicitation/create', params: { message: 'Name?' } },
        options.signal,
      );
      calls.push({ signal: options.signal, asked: asked.catch((error: Error) => error.message) });
      return { content: [{ type: 'text', text: JSON.stringify(await asked) }] };
    },
  } as unknown as ChildConnection;
  return { connection, calls };
}

// The relay's expiry timers do not hold a process open (mcpmux's own I/O does); this test has none.
const keepAlive = setInterval(() => {}, 1000);
t.teardown(() => clearInterval(keepAlive));

const firstRound: ClientRound = {
  state: undefined,
  inputResponses: undefined,
  capabilities: { elicitation: {} },
};
const target = (connection: ChildConnection) => ({
  connection,
  method: 'tools/call' as const,
  params: { name: 'ask' },
  requested: 'old__ask',
});

t.test(
  'a round nobody answers expires: the child hears the call cancelled, its state is refused',
  async (t) => {
    // Long enough that a loaded machine still sees the call held before it expires (0.05 s was not).
    const relay = new InputRelay({ holdSeconds: 0.5 });
    const { connection, calls } = askingChild();
    const round = await relay.forward(target(connection), firstRound, {});
    t.equal(round['resultType'], 'input_required');
    t.equal(relay.heldCount, 1);
    t.equal(await calls[0]!.asked, 'the client did not answer within 0.5 s');
    t.ok(calls[0]!.signal.aborted, 'the call to the child is cancelled');
    t.equal(relay.heldCount, 0);
    const state = await relay.verify(round['requestState'] as string, {} as never);
    await t.rejects(relay.forward(target(connection), { ...firstRound, state }, {}), {
      code: -32602,
      message: /no longer waits for input .*0\.5 s passed/,
    });
  },
);

t.test('past the cap the oldest held call is given up; an answer resumes the right one', async (t) => {
  const relay = new InputRelay({ maxHeld: 1 });
  const { connection, calls } = askingChild();
  await relay.forward(target(connection), firstRound, {});
  const second = await relay.forward(target(connection), firstRound, {});
  t.equal(await calls[0]!.asked, 'more than 1 calls waited for input; the oldest was cancelled');
  const state = await relay.verify(second['requestState'] as string, {} as never);
  const done = await relay.forward(
    target(connection),
    { ...firstRound, state, inputResponses: { elicitation_1: { action: 'accept', content: { n: 2 } } } },
    {},
  );
  t.same(done, { content: [{ type: 'text', text: '{"action":"accept","content":{"n":2}}' }] });
  t.equal(relay.heldCount, 0);
});

t.test('a client that ends its request while the child works gives the call up', async (t) => {
  const relay = new InputRelay();
  let childSignal: AbortSignal | undefined;
  const connection = {
    name: 'slow',
    speaksModern: false,
    request: (_m: string, _p: unknown, options: { signal: AbortSignal }) => {
      childSignal = options.signal;
      return new Promise(() => {});
    },
  } as unknown as ChildConnection;
  const request = new AbortController();
  const forwarded = relay.forward(target(connection), firstRound, { signal: request.signal });
  request.abort(new Error('client went away'));
  await t.rejects(forwarded, /client went away/);
  t.ok(childSignal?.aborted, 'the child hears the call cancelled');
});

t.test('a state for another request, or a stop, ends nothing else', async (t) => {
  const relay = new InputRelay();
  const { connection, calls } = askingChild();
  const round = await relay.forward(target(connection), firstRound, {});
  const state = await relay.verify(round['requestState'] as string, {} as never);
  await t.rejects(
    relay.forward({ ...target(connection), requested: 'old__other' }, { ...firstRound, state }, {}),
    { code: -32602, message: /issued for another request \(it names tools\/call old__ask\)/ },
  );
  t.equal(relay.heldCount, 1, 'the held call still waits for its own client');
  relay.close();
  t.equal(await calls[0]!.asked, 'mcpmux is stopping');
  t.equal(relay.heldCount, 0);
});
