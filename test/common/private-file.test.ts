// Private files and their folders: written 0600 in 0700; a folder that is a symlink, another
// user's, or writable by others is refused, and so is a file others may read, each naming the
// fix. The OAuth token store reads through the same checks.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readPrivateFile, writePrivateFile } from '../../src/common/private-file.js';
import { CredentialStore } from '../../src/oauth/credential-store.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-private-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

t.test('written private, read back; none is undefined', async (t) => {
  const file = join(scratch, 'a', 'mcpmux', 'secrets', 'x.json');
  t.equal(readPrivateFile(file), undefined);
  writePrivateFile(file, 'value');
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.equal(statSync(join(scratch, 'a', 'mcpmux', 'secrets')).mode & 0o777, 0o700);
  t.equal(readPrivateFile(file), 'value');
  chmodSync(file, 0o640);
  t.throws(() => readPrivateFile(file), { code: 'UNSAFE_FILE', message: /mode 640.*chmod 600/ });
});

t.test('a folder that is a symlink, or writable by others, is not used', async (t) => {
  const open = join(scratch, 'open');
  mkdirSync(open, { mode: 0o777 });
  chmodSync(open, 0o777);
  const mcpmux = join(scratch, 'b', 'mcpmux');
  mkdirSync(mcpmux, { recursive: true, mode: 0o700 });
  symlinkSync(open, join(mcpmux, 'oauth'));
  t.throws(() => writePrivateFile(join(mcpmux, 'oauth', 't.json'), 'token'), {
    code: 'UNSAFE_FILE',
    message: /oauth is a symbolic link/,
  });
  const store = new CredentialStore('https://example.com/mcp', join(mcpmux, 'oauth'));
  t.throws(() => store.read(), { code: 'UNSAFE_FILE' }, 'the token store reads through the same checks');
  rmSync(join(mcpmux, 'oauth'));
  chmodSync(mcpmux, 0o775);
  t.throws(() => writePrivateFile(join(mcpmux, 'oauth', 't.json'), 'token'), {
    code: 'UNSAFE_FILE',
    message: /mcpmux may be written by others \(mode 775\).*chmod 700/,
  });
  chmodSync(mcpmux, 0o700);
  const file = join(mcpmux, 'oauth', 'link.json');
  writePrivateFile(join(mcpmux, 'oauth', 'real.json'), '{}');
  writeFileSync(join(open, 'theirs.json'), '{}');
  symlinkSync(join(open, 'theirs.json'), file);
  t.throws(() => readPrivateFile(file), { code: 'UNSAFE_FILE', message: /is a symbolic link/ });
});
