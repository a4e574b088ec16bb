// ${secret:ENTRY/NAME} in a config file: a secret kept for a registry entry (what add_server's
// persist writes instead of its value), read from the folder XDG_STATE_HOME names; one that is
// not kept makes its server wait for it, saying how to have it again.
import { join } from 'node:path';
import t from 'tap';
import { expandVariables } from '../../src/config/expand-variables.js';
import { parseConfig } from '../../src/config/load-config.js';
import { KeptSecrets } from '../../src/secrets/kept-secrets.js';
import { scratchDir } from '../helpers/registry-entries.js';

t.test('expanded from a lookup', async (t) => {
  const lookup = (entry: string, name: string) =>
    entry === 'io.github.acme/keyed' && name === 'KEY' ? 'v' : undefined;
  t.same(expandVariables('Bearer ${secret:io.github.acme/keyed/KEY}', {}, lookup), {
    value: 'Bearer v',
    problems: [],
    unset: [],
  });
  t.match(expandVariables('${secret:io.github.acme/keyed/OTHER}', {}, lookup).unset, [
    {
      reference: 'secret:io.github.acme/keyed/OTHER',
      problem: /no secret OTHER is kept for io\.github\.acme\/keyed \('mcpmux secrets list'/,
    },
  ]);
  t.match(expandVariables('${secret:KEY}', {}, lookup).problems, [
    /is not a secret reference \(use \$\{secret:ENTRY\/NAME\}/,
  ]);
  t.match(expandVariables('${secret:a/b/not-a-name}', {}, lookup).problems, [/is not a secret reference/]);
});

t.test('a config entry refers to a kept secret', async (t) => {
  const state = scratchDir(t, 'mcpmux-state');
  new KeptSecrets(join(state, 'mcpmux', 'secrets')).keep('registry.example', 'io.github.acme/keyed', {
    ACME_KEY: 'v',
  });
  const config = {
    mcpServers: {
      acme: {
        command: 'docker',
        args: ['run'],
        env: { ACME_KEY: '${secret:io.github.acme/keyed/ACME_KEY}' },
      },
    },
  };
  const [server] = parseConfig(config, 'servers.json', { XDG_STATE_HOME: state }, () => undefined);
  t.match(server?.spec, { env: { ACME_KEY: 'v' } });
  // Not kept (forgotten): the server waits for it, and the config's other servers start.
  const [waiting] = parseConfig(
    config,
    'servers.json',
    { XDG_STATE_HOME: scratchDir(t, 'mcpmux-empty') },
    () => undefined,
  );
  t.match(waiting?.spec.unconfigured, {
    missing: ['secret:io.github.acme/keyed/ACME_KEY'],
    problems: [/^env\.ACME_KEY: \$\{secret:io\.github\.acme\/keyed\/ACME_KEY\}: no secret ACME_KEY is kept/],
  });
});
