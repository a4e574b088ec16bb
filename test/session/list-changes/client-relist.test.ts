import t from 'tap';
import { ClientRelist } from '../../../src/session/list-changes/client-relist.js';

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

t.test('a wait ends when the client lists its tools again', async (t) => {
  const relist = new ClientRelist({ boundMs: 60_000 });
  const waiting = relist.relisted();
  t.notOk(await settled(waiting), 'waits');
  relist.answered();
  t.ok(await settled(waiting), 'ends with the answer');
});

t.test('a client that does not re-list within the bound is not waited for again until it does', async (t) => {
  let told = 0;
  const relist = new ClientRelist({ boundMs: 20, onNotRelisting: () => void told++ });
  await relist.relisted();
  t.equal(told, 1, 'said once');
  t.ok(await settled(relist.relisted()), 'the next wait ends at once');
  t.equal(told, 1, 'and is not said again');
  relist.answered();
  const waiting = relist.relisted();
  t.notOk(await settled(waiting), 'once seen re-listing, it is waited for again');
  relist.close();
  t.ok(await settled(waiting), 'close ends every wait');
});
