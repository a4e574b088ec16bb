// The scrubber every outward text passes last: each held value, as written, as a URL carries
// it and as JSON escapes it, becomes [secret NAME]; short values are not held.
import t from 'tap';
import { holdSecret, holdSecrets, scrubSecrets, scrubbedCopy } from '../../src/secrets/secret-scrubber.js';

t.test('nothing held: texts pass unchanged, and a copy is the same object', async (t) => {
  const value = { a: 'sk-live-1234' };
  t.equal(scrubbedCopy(value), value);
  t.equal(scrubSecrets('sk-live-1234'), 'sk-live-1234');
});

t.test('held values are replaced wherever they stand, in each form', async (t) => {
  holdSecret('API_KEY', 'sk-live-1234');
  holdSecrets({ TOKEN: 'a b/c"d', SHORT: 'abc' });
  holdSecret('LONGER', 'sk-live-1234-and-more');
  t.equal(scrubSecrets('key=sk-live-1234; next'), 'key=[secret API_KEY]; next');
  t.equal(
    scrubSecrets('https://h/a%20b%2Fc%22d/mcp'),
    'https://h/[secret TOKEN]/mcp',
    'percent-encoded in a URL',
  );
  t.equal(scrubSecrets('sk-live-1234-and-more'), '[secret LONGER]', 'the longest value first');
  t.equal(scrubSecrets('abc'), 'abc', 'a value shorter than four characters is not held');
  const copy = scrubbedCopy({ message: 'the token is a b/c"d', n: 1 });
  t.same(copy, { message: 'the token is [secret TOKEN]', n: 1 }, 'inside JSON, where the quote is escaped');
});
