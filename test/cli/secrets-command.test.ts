// mcpmux secrets list|forget: names only, never values; an entry's secret, all of an entry's,
// or every one forgotten; a bad command line answered with the usage and status 2.
import t from 'tap';
import { runSecretsCommand } from '../../src/cli/secrets-command.js';
import { KeptSecrets } from '../../src/secrets/kept-secrets.js';
import { scratchDir } from '../helpers/registry-entries.js';

function run(kept: KeptSecrets, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = runSecretsCommand(argv, { kept, out: (s) => out.push(s), err: (s) => err.push(s) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

t.test('list and forget', async (t) => {
  const kept = new KeptSecrets(scratchDir(t, 'mcpmux-secrets'));
  t.same(run(kept, 'list'), { status: 0, out: `no secrets are kept (${kept.dir})`, err: '' });
  kept.keep('registry.example', 'com.acme/tickets', { ACME_TOKEN: 'v1', ACME_OTHER: 'v2' });
  kept.keep('registry.example', 'io.github.x/y', { KEY: 'v3' });
  const listed = run(kept, 'list');
  t.equal(
    listed.out,
    'com.acme/tickets (registry.example): ACME_OTHER, ACME_TOKEN\nio.github.x/y (registry.example): KEY',
  );
  t.notMatch(listed.out, /v1|v2|v3/);
  t.same(run(kept, 'forget', 'com.acme/tickets', 'ACME_OTHER'), {
    status: 0,
    out: 'forgot 1 secret(s) of com.acme/tickets',
    err: '',
  });
  t.match(run(kept, 'forget', 'com.acme/tickets', 'ACME_OTHER'), {
    status: 1,
    err: /no secret ACME_OTHER is kept for com\.acme\/tickets/,
  });
  t.same(run(kept, 'forget', '--all'), { status: 0, out: 'forgot 2 secret(s)', err: '' });
  t.same(kept.list(), []);
});

t.test('usage', async (t) => {
  const kept = new KeptSecrets(scratchDir(t, 'mcpmux-secrets'));
  t.match(run(kept, '--help'), { status: 0, out: /^mcpmux secrets list/ });
  for (const argv of [[], ['show'], ['forget'], ['forget', '--all', 'x'], ['list', 'x'], ['--bogus']])
    t.match(
      run(kept, ...argv),
      { status: 2, err: /^mcpmux secrets: .*\nmcpmux secrets list/s },
      argv.join(' '),
    );
});
