// The child lifecycle allows only moves that make sense; a crash is not a stop.
import t from 'tap';
import {
  IllegalTransitionError,
  canTransition,
  gaveUpState,
  restartingState,
  transition,
  type ChildState,
} from '../../src/child/child-state.js';
import { EMPTY_CATALOG } from '../../src/protocol/capabilities.js';

t.test('legal moves', async (t) => {
  let s: ChildState = { kind: 'idle' };
  s = transition(s, { kind: 'starting', since: 1 });
  s = transition(s, { kind: 'running', since: 2, pid: 10, catalog: EMPTY_CATALOG });
  s = transition(s, {
    kind: 'running',
    since: 2,
    pid: 10,
    catalog: { ...EMPTY_CATALOG, tools: [{ name: 'x', inputSchema: { type: 'object' } }] },
  });
  s = transition(s, { kind: 'crashed', at: 3, error: 'exit 1' });
  s = transition(s, { kind: 'starting', since: 4 });
  s = transition(s, { kind: 'stopping', since: 5 });
  s = transition(s, { kind: 'stopped' });
  t.equal(s.kind, 'stopped');
  t.ok(canTransition('stopped', 'starting'), 'a reload starts a stopped child again');
});

t.test('illegal moves throw', async (t) => {
  t.throws(
    () => transition({ kind: 'idle' }, { kind: 'running', since: 1, pid: 1, catalog: EMPTY_CATALOG }),
    IllegalTransitionError,
  );
  t.throws(
    () =>
      transition(
        { kind: 'stopping', since: 1 },
        { kind: 'running', since: 1, pid: 1, catalog: EMPTY_CATALOG },
      ),
    /stopping → running/,
  );
  t.throws(() => transition({ kind: 'stopped' }, { kind: 'crashed', at: 1, error: 'x' }));
  t.notOk(canTransition('running', 'starting'), 'a running child must stop before it starts again');
});

t.test(
  'the restart policy keeps the crash while it waits, and says how often it tried when it gives up',
  async (t) => {
    const crashed: ChildState = { kind: 'crashed', at: 3, error: 'exit 1', exit: { code: 1, signal: null } };
    const waiting = restartingState(crashed, 1, 3, 99)!;
    t.match(waiting, { kind: 'restarting', error: 'exit 1', exit: { code: 1 }, attempt: 1, nextAt: 99 });
    const gaveUp = transition(waiting, gaveUpState(waiting, 3)!);
    t.same(gaveUp, {
      kind: 'crashed',
      at: 3,
      error: 'exit 1',
      exit: { code: 1, signal: null },
      gaveUpAfter: 3,
    });
    // A policy that gives up while the child is already crashed (its last start failed) says so too.
    t.match(transition(crashed, gaveUpState(crashed, 2)!), { kind: 'crashed', gaveUpAfter: 2 });
    t.equal(gaveUpState({ kind: 'stopped' }, 1), undefined, 'nothing to give up on');
    const again = restartingState(gaveUp, 1, 3, 120)!;
    t.notOk('gaveUpAfter' in again, 'a new round of attempts forgets the last one');
  },
);
