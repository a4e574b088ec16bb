// The table of open HTTP sessions on a clock of its own: its cap, idle expiry, and room made
// for a new session by closing the one idle the longest.
import t, { type Test } from 'tap';
import { SessionTable } from '../../src/transport/http-sessions.js';

function table(t: Test, maxSessions: number) {
  let now = 0;
  const expired: string[] = [];
  const evicted: [string, number][] = [];
  const sessions: SessionTable<string> = new SessionTable<string>({
    idleTimeoutMs: 30 * 60_000,
    maxSessions,
    expire: (id) => expired.push(id),
    evict: (id, value, idleMs) => {
      t.equal(value, `value of ${id}`, 'the evicted session is handed over to be closed');
      t.equal(sessions.get(id), undefined, 'out of the table already');
      evicted.push([id, idleMs]);
    },
    now: () => now,
  });
  const open = (id: string) => {
    if (!sessions.reserve()) return false;
    sessions.add(id, `value of ${id}`);
    return true;
  };
  return { sessions, open, expired, evicted, advance: (ms: number) => (now += ms) };
}

t.test('full of sessions active within the minute: a new one is refused', async (t) => {
  const { open, evicted, advance } = table(t, 2);
  t.ok(open('a'));
  t.ok(open('b'));
  advance(59_000);
  t.notOk(open('c'), 'refused');
  t.same(evicted, []);
});

t.test('full: the session idle the longest, a minute at least, makes room', async (t) => {
  const { sessions, open, evicted, advance } = table(t, 3);
  open('a');
  advance(10_000);
  open('b');
  advance(10_000);
  open('c');
  advance(120_000);
  const done = sessions.busy('a'); // a request in flight: never evicted, however old the session
  advance(60_000);
  t.ok(open('d'), 'a place was made');
  t.same(evicted, [['b', 190_000]], 'b, idle the longest, not a (busy) nor c (idle less long)');
  t.equal(sessions.get('b'), undefined, 'b left the table');
  t.equal(sessions.size, 3);
  done();
  t.ok(open('e'), 'c, idle 180 s, makes room next');
  t.same(
    evicted.map(([id]) => id),
    ['b', 'c'],
  );
  t.notOk(open('f'), 'a, just answered, d and e, new: none idle for a minute');
});

t.test('a reservation being initialized is counted, and never evicted', async (t) => {
  const { sessions, open, evicted, advance } = table(t, 1);
  t.ok(sessions.reserve(), 'an initialize under way');
  advance(600_000);
  t.notOk(open('x'), 'no session to evict: refused');
  t.same(evicted, []);
});
