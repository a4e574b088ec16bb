// The fast path's table of calls by JSON-RPC id: a number and a string are different ids, and
// any string is a plain key.
import t from 'tap';
import { IdTable } from '../../src/protocol/id-table.js';

t.test('numbers and strings are different ids; any string is a key', async (t) => {
  const table = new IdTable<string>();
  table.set(7, 'number 7');
  table.set('7', 'string 7');
  table.set('__proto__', 'proto');
  table.set('constructor', 'ctor');
  table.set(-3, 'minus 3');
  table.set(1.5, 'one and a half');
  t.equal(table.get(7), 'number 7');
  t.equal(table.get('7'), 'string 7');
  t.equal(table.get('__proto__'), 'proto');
  t.equal(table.get('constructor'), 'ctor');
  t.equal(table.get(-3), 'minus 3');
  t.equal(table.get('-3'), undefined, 'the string "-3" is not the number -3');
  t.equal(table.get(1.5), 'one and a half');
  t.equal(table.get('toString'), undefined, 'nothing inherited');
  t.equal(table.has(8), false);
  table.delete(7);
  t.equal(table.has(7), false);
  t.equal(table.get('7'), 'string 7', 'deleting 7 leaves "7"');
  t.same(table.values().sort(), ['ctor', 'minus 3', 'one and a half', 'proto', 'string 7']);
});

t.test('a table that churns keeps only what is in it', async (t) => {
  const table = new IdTable<number>();
  for (let i = 1; i <= 100_000; i++) {
    table.set(i, i);
    if (i > 64) table.delete(i - 64);
  }
  t.equal(table.values().length, 64);
  t.equal(table.get(100_000 - 63), 100_000 - 63);
  t.equal(table.get(100_000 - 64), undefined);
});

t.test('ids that share a ring slot, or are too large for it, are each found and deleted alone', async (t) => {
  const table = new IdTable<string>();
  // 5, 261 and 517 share a slot of a 256-slot ring; 2 ** 40 + 5 does once cut to 32 bits.
  const ids = [5, 261, 517, 2 ** 40 + 5, Number.MAX_SAFE_INTEGER, 0];
  for (const id of ids) table.set(id, `v${id}`);
  t.ok(
    ids.every((id) => table.get(id) === `v${id}`),
    'every id found',
  );
  t.equal(table.get(773), undefined, 'a fourth id of the slot, never set');
  table.set(261, 'again');
  t.equal(table.get(261), 'again', 'setting an id again replaces its value');
  t.equal(table.values().length, ids.length, 'and adds no second entry');
  table.delete(5);
  t.equal(table.get(5), undefined);
  t.equal(table.get(261), 'again', 'deleting the slot holder leaves the others');
  table.set(261, 'third');
  t.equal(
    table.values().filter((v) => v === 'third').length,
    1,
    'a freed slot does not duplicate an id held elsewhere',
  );
  for (const id of ids) table.delete(id);
  t.same(table.values(), [], 'all gone');
  t.equal(table.get(261), undefined);
});

t.test("numbers that only grow (a lane's calls) are each found, also those beyond the ring", async (t) => {
  const table = new IdTable<{ seq: number }>();
  const values = Array.from({ length: 1000 }, (_, i) => ({ seq: i + 1 }));
  for (const value of values) table.set(value.seq, value);
  t.ok(
    values.every((value) => table.get(value.seq) === value),
    'every value found',
  );
  t.equal(table.get(1001), undefined);
  t.equal(table.get(-1), undefined, 'not a lane number');
  // Those in the ring and those in the dictionary (their slot was taken) leave alike.
  for (const value of values.filter((v) => v.seq % 3 === 0)) table.delete(value.seq);
  t.ok(
    values.every((value) => table.get(value.seq) === (value.seq % 3 === 0 ? undefined : value)),
    'the deleted gone, the rest found',
  );
  const again = { seq: 3 };
  table.delete(again.seq);
  t.equal(table.get(4), values[3], 'deleting what is not there touches nothing');
});
