// Secrets kept for registry entries: 0600 files in a 0700 folder, one per entry and registry,
// read back by another process, listed by name only, forgotten one or all at a time.
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KeptSecrets, secretsDir } from '../../src/secrets/kept-secrets.js';

const OFFICIAL = 'https://registry.modelcontextprotocol.io';
const ACME = 'https://registry.acme.example';

const scratch = (t: { teardown: (f: () => void) => void }) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'mcpmux-secrets-')), 'secrets');
  t.teardown(() => rmSync(join(dir, '..'), { recursive: true, force: true }));
  return dir;
};

t.test('kept in files only their owner can read, and read back by another process', async (t) => {
  const dir = scratch(t);
  new KeptSecrets(dir).keep(OFFICIAL, 'io.github.a/weather', { WEATHER_API_KEY: 'k-123' });
  new KeptSecrets(dir).keep(OFFICIAL, 'io.github.a/weather', { WEATHER_REGION: 'eu' });
  t.equal(statSync(dir).mode & 0o777, 0o700, 'the folder is 0700');
  const [file] = readdirSync(dir);
  t.equal(statSync(join(dir, file!)).mode & 0o777, 0o600, 'the file is 0600');
  t.same(new KeptSecrets(dir).values(OFFICIAL, 'io.github.a/weather'), {
    WEATHER_API_KEY: 'k-123',
    WEATHER_REGION: 'eu',
  });
  t.same(new KeptSecrets(dir).values(ACME, 'io.github.a/weather'), {}, 'another registry has its own');
  t.same(new KeptSecrets(join(dir, 'none')).values(OFFICIAL, 'io.github.a/weather'), {}, 'nothing kept yet');
});

t.test('listed by name, never by value; forgotten one or all', async (t) => {
  const dir = scratch(t);
  const secrets = new KeptSecrets(dir);
  secrets.keep(OFFICIAL, 'io.github.a/weather', { WEATHER_API_KEY: 'k-123', WEATHER_REGION: 'eu' });
  secrets.keep(ACME, 'com.acme/tickets', { ACME_TOKEN: 't-456' });
  writeFileSync(join(dir, 'edited-by-hand.json'), '{"not": "ours"}', { mode: 0o644 });
  t.throws(() => secrets.list(), {
    code: 'UNSAFE_FILE',
    message: /edited-by-hand\.json may be read by others/,
  });
  chmodSync(join(dir, 'edited-by-hand.json'), 0o600);
  const listed = secrets.list();
  t.same(listed, [
    { registry: ACME, entry: 'com.acme/tickets', names: ['ACME_TOKEN'] },
    { registry: OFFICIAL, entry: 'io.github.a/weather', names: ['WEATHER_API_KEY', 'WEATHER_REGION'] },
  ]);
  t.notMatch(JSON.stringify(listed), /k-123|t-456/, 'no value is listed');

  t.equal(secrets.forget('io.github.a/weather', 'WEATHER_REGION'), 1);
  t.same(secrets.values(OFFICIAL, 'io.github.a/weather'), { WEATHER_API_KEY: 'k-123' });
  t.equal(secrets.forget('io.github.a/weather', 'NO_SUCH'), 0);
  t.equal(secrets.forget('com.acme/tickets'), 1, 'all of an entry');
  t.same(secrets.values(ACME, 'com.acme/tickets'), {});
  t.equal(
    readdirSync(dir).filter((n) => n !== 'edited-by-hand.json').length,
    1,
    'an entry with nothing left has no file',
  );
});

t.test('the folder follows XDG_STATE_HOME, else HOME', async (t) => {
  t.equal(secretsDir({ XDG_STATE_HOME: '/state', HOME: '/home/ada' }), '/state/mcpmux/secrets');
  t.equal(secretsDir({ HOME: '/home/ada' }), '/home/ada/.local/state/mcpmux/secrets');
});
