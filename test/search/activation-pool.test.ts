// The activation pool: bounded, least recently used leaves, listed order stable.
import t from 'tap';
import { ActivationPool } from '../../src/search/activation-pool.js';

t.test('bounded with LRU eviction; order stays; a call counts as a use', async (t) => {
  const pool = new ActivationPool(3);
  t.same(pool.activate(['a', 'b']), { added: ['a', 'b'], evicted: [] });
  t.same(pool.listed(), ['a', 'b'], 'listed in the order found');
  const v = pool.version;
  t.same(pool.activate(['a']), { added: [], evicted: [] }, 'already active: nothing changes');
  t.equal(pool.version, v, 'and the list version stays');
  pool.touch('b');
  // Uses now: a (re-activated), then b (called): a is the least recently used.
  t.same(pool.activate(['c', 'd']), { added: ['c', 'd'], evicted: ['a'] }, 'the least recently used leaves');
  t.same(pool.listed(), ['b', 'c', 'd'], 'the others keep their places; new ones are appended');
  t.not(pool.version, v);
  t.same(
    new ActivationPool(2).activate(['x', 'y', 'z']),
    { added: ['x', 'y'], evicted: [] },
    'never more than the limit at once',
  );
});
