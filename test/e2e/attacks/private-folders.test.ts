// The attacker is another local user. They make mcpmux's secrets folder a symlink to a folder
// they can read (world-writable, as /tmp is), or find a kept secret that others may read. The
// attack is performed against the built mcpmux with a person who answers the form and asks
// to keep the key: the key must not land where the attacker reads it, and a file others may
// read is refused loudly, naming the fix, rather than read in silence.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import t from 'tap';
import { startMcpmux, text } from '../../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses } from '../../helpers/processes.js';
import { attackLab } from '../../helpers/attack-lab.js';
import { fixturePath } from '../../helpers/fixtures.js';

t.teardown(() => killTaggedProcesses());

const SECRET = `sk-kept-${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 20)}`;
const answering = {
  capabilities: { elicitation: { form: {} } },
  setup: (client: Client) =>
    client.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { FIXTURE_API_KEY: SECRET, keep_for_next_time: true },
    })),
};

t.test('the secrets folder is used only as a private folder of the user', async (t) => {
  const lab = attackLab(t);
  writeFileSync(
    join(lab.bin, 'docker'),
    `#!/bin/sh\nexec "${process.execPath}" "${fixturePath('needs-key')}"\n`,
  );
  chmodSync(join(lab.bin, 'docker'), 0o755);
  const registry = await lab.registry([
    {
      server: {
        name: 'io.github.example/keyed',
        description: 'Needs a key',
        version: '1.0.0',
        packages: [
          {
            registryType: 'oci',
            identifier: 'ghcr.io/example/keyed:1.0.0',
            transport: { type: 'stdio' },
            environmentVariables: [{ name: 'FIXTURE_API_KEY', isSecret: true, isRequired: true }],
          },
        ],
      },
    },
  ]);
  // Another user's folder that anyone may write, and mcpmux's secrets folder pointing at it.
  const shared = mkdtempSync(join(tmpdir(), 'mcpmux-shared-'));
  t.teardown(() => rmSync(shared, { recursive: true, force: true }));
  chmodSync(shared, 0o777);
  const state = join(lab.home, 'state', 'mcpmux');
  mkdirSync(state, { recursive: true, mode: 0o700 });
  symlinkSync(shared, join(state, 'secrets'));

  const mux = await startMcpmux(['--registry', registry.url], answering, lab.env);
  t.teardown(() => mux.client.close());
  const linked = await mux.call('add_server', { name: 'keyed', registry: 'io.github.example/keyed' });
  t.ok(linked.isError);
  t.match(
    text(linked),
    /secrets is a symbolic link \(to a folder others may control\), and it holds secrets or tokens: mcpmux does not use it; replace it with a folder of your own: rm .*secrets && mkdir -m 700 .*\[UNSAFE_FILE\]/,
  );
  t.same(readdirSync(shared), [], 'nothing was written where the other user reads');

  // A real folder: the key is kept, 0600. Made readable by others, it is refused, not read.
  rmSync(join(state, 'secrets'));
  const kept = await mux.json('add_server', { name: 'keyed', registry: 'io.github.example/keyed' });
  t.equal(kept.server.status, 'running');
  await mux.call('remove_server', { name: 'keyed' });
  const [file] = readdirSync(join(state, 'secrets'));
  chmodSync(join(state, 'secrets', file!), 0o644);
  const readable = await mux.call('add_server', { name: 'keyed', registry: 'io.github.example/keyed' });
  t.ok(readable.isError);
  t.match(
    text(readable),
    /may be read by others \(mode 644\).*make it yours alone: chmod 600 .*\[UNSAFE_FILE\]/,
  );
  chmodSync(join(state, 'secrets'), 0o777);
  const writable = await mux.call('add_server', { name: 'keyed', registry: 'io.github.example/keyed' });
  t.match(text(writable), /secrets may be written by others \(mode 777\).*chmod 700 .*\[UNSAFE_FILE\]/);
  await mux.client.close();
  t.equal([mux.stderr(), ...mux.stdoutLines].join('\n').indexOf(SECRET), -1, 'the key was shown nowhere');
  await registry.stop();
  await assertNoLeaks(t);
});
