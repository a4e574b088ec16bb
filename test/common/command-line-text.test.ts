// A command line as mcpmux shows it: plain words as they are, others quoted.
import t from 'tap';
import { commandLineText } from '../../src/common/command-line-text.js';

t.test('plain words as they are, the rest in JSON quotes', async (t) => {
  t.equal(
    commandLineText(['npx', '-y', '@scope/pkg@1.2.3', '--root=/srv']),
    'npx -y @scope/pkg@1.2.3 --root=/srv',
  );
  t.equal(commandLineText(['sh', '-c', 'echo pwned > /tmp/x']), 'sh -c "echo pwned > /tmp/x"');
  t.equal(commandLineText(['node', "it's", '${KEY}']), 'node "it\'s" "${KEY}"');
});
