import { PassThrough } from 'node:stream';
import t from 'tap';
import { clientBackedUp, clientDrained, throttleByClient } from '../../src/protocol/client-backpressure.js';

t.test('children are read only while no client stream is backed up', async (t) => {
  const first = new PassThrough();
  first.on('data', () => {});
  const stopFirst = throttleByClient(first);
  t.notOk(first.isPaused(), 'read while the client keeps up');

  clientBackedUp();
  clientBackedUp();
  t.ok(first.isPaused(), 'paused when a client stream backs up');
  const second = new PassThrough();
  second.on('data', () => {});
  const stopSecond = throttleByClient(second);
  t.ok(second.isPaused(), 'a child added meanwhile starts paused');

  clientDrained();
  t.ok(first.isPaused() && second.isPaused(), 'still paused while one client stream is backed up');
  clientDrained();
  t.ok(!first.isPaused() && !second.isPaused(), 'read again once all drained');
  clientDrained();
  clientBackedUp();
  t.ok(first.isPaused(), 'an extra drain does not unbalance the count');
  clientDrained();

  clientBackedUp();
  stopFirst();
  t.notOk(first.isPaused(), 'a child no longer throttled is read again');
  clientDrained();
  stopSecond();
});
