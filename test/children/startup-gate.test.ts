import t from 'tap';
import { StartupGate } from '../../src/children/startup-gate.js';

const never = new Promise<void>(() => {});

t.test('the gate opens when every start has settled, failures included', async (t) => {
  let fail!: (error: Error) => void;
  const gate = new StartupGate([Promise.resolve(), new Promise<void>((_, reject) => (fail = reject))]);
  const waiting = gate.wait();
  t.ok(waiting, 'closed while one start is under way');
  fail(new Error('exit 1'));
  await waiting;
  t.equal(gate.wait(), undefined, 'open after');
  t.equal(new StartupGate([]).wait(), undefined, 'no server given: open from the start');
});

t.test('a bound opens it while a start is still under way; 0 opens it at once', async (t) => {
  // (The gate's timer does not keep a process alive; this test's must.)
  const alive = setTimeout(() => {}, 5000);
  const bounded = new StartupGate([never], 20);
  await bounded.wait();
  clearTimeout(alive);
  t.equal(bounded.wait(), undefined, 'open after the bound');
  t.equal(new StartupGate([never], 0).wait(), undefined, 'open at once');
});
