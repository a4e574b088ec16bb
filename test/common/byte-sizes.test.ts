// Sizes as messages show them.
import t from 'tap';
import { formatBytes, megabytes } from '../../src/common/byte-sizes.js';

t.test('in the unit that fits, or always in megabytes', async (t) => {
  t.equal(formatBytes(512), '512 B');
  t.equal(formatBytes(12_595), '12.3 KB');
  t.equal(formatBytes(4 * 1024 * 1024), '4.0 MB');
  t.equal(megabytes(300_000), '0.3 MB', 'a bound and what passes it read alike');
  t.equal(megabytes(16 * 1024 * 1024), '16.0 MB');
});
