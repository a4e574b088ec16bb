// The child lifecycle allows only moves that make sense; a crash is not a stop.
import t from 'tap';
import {
  IllegalTransitionError,
  canTransition,
  transition,
  type ChildState,
} from '../../src/child/child-state.js';
import { EMPTY_CATALOG } from '../../src/router/capabilities.js';

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
