// The idle collection: one full GC once the catalog has been quiet, never while it churns.
import t from 'tap';
import v8 from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { IdleCollection } from '../../src/common/idle-collection.js';

t.test('a burst of activity is collected once, after it has been quiet', async (t) => {
  let runs = 0;
  const idle = new IdleCollection({ quietMs: 40, collect: () => runs++ });
  t.teardown(() => idle.close());
  for (let i = 0; i < 5; i++) {
    idle.activity();
    await sleep(10);
  }
  t.equal(runs, 0, 'not while changes keep coming');
  await sleep(80);
  t.equal(runs, 1, 'once after the quiet');
  t.equal(idle.collections, 1);
  await sleep(80);
  t.equal(runs, 1, 'and not again without new activity');
});

t.test('each collection reports the heap it leaves: live bytes within the heap it sits in', async (t) => {
  const heaps: { usedBytes: number; totalBytes: number }[] = [];
  const idle = new IdleCollection({ quietMs: 5, collect: () => {}, onCollected: (heap) => heaps.push(heap) });
  t.teardown(() => idle.close());
  idle.activity();
  await sleep(50);
  t.equal(heaps.length, 1);
  t.ok(heaps[0]!.usedBytes > 0 && heaps[0]!.usedBytes <= heaps[0]!.totalBytes);
});

t.test('closed, a pending collection never runs', async (t) => {
  let runs = 0;
  const idle = new IdleCollection({ quietMs: 10, collect: () => runs++ });
  idle.activity();
  idle.close();
  await sleep(50);
  t.equal(runs, 0);
});

t.test("V8's own full collection runs without --expose-gc, and gc stays hidden", async (t) => {
  t.equal(typeof globalThis.gc, 'undefined', 'this test runs without --expose-gc');
  const idle = new IdleCollection({ quietMs: 1 });
  t.teardown(() => idle.close());
  // Garbage that a full collection frees: the old generation shrinks back.
  let garbage: unknown[] | undefined = Array.from({ length: 300_000 }, (_, i) => ({ i, s: `item ${i}` }));
  t.ok(garbage.length);
  garbage = undefined;
  const before = v8.getHeapStatistics().used_heap_size;
  idle.activity();
  await sleep(30);
  t.equal(idle.collections, 1);
  t.ok(v8.getHeapStatistics().used_heap_size < before, 'the garbage was collected');
  t.equal(typeof globalThis.gc, 'undefined', 'gc is not left on the global object');
});
