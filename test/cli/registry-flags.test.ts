// Which MCP registries mcpmux uses: the official one by default, --registry URLs instead (in
// order), none with --no-registry or --no-runtime-add; a config's "registries" where no flag
// says; a URL that is not one is refused before anything runs.
import { writeFileSync } from 'node:fs';
import t from 'tap';
import { CliError } from '../../src/cli/cli-options.js';
import { parseCli } from '../../src/cli/parse-cli.js';
import { loadConfigSettings } from '../../src/config/load-config.js';
import { tempConfigPath } from '../helpers/temp-config.js';

t.test('flags', async (t) => {
  t.match(parseCli([], {}), {
    registries: ['https://registry.modelcontextprotocol.io'],
    registriesGiven: false,
    allowModelSecrets: false,
  });
  t.match(parseCli(['--registry', 'https://mcp.acme.example', '--registry', 'http://127.0.0.1:8080/'], {}), {
    registries: ['https://mcp.acme.example', 'http://127.0.0.1:8080/'],
    registriesGiven: true,
  });
  t.match(parseCli(['--no-registry'], {}), { registries: [], registriesGiven: true });
  t.match(parseCli(['--no-runtime-add'], {}), { registries: [], registriesGiven: true });
  t.match(parseCli(['--allow-model-secrets'], {}), { allowModelSecrets: true });
  t.throws(
    () => parseCli(['--registry', 'https://a.example', '--no-registry'], {}),
    new CliError('give --registry URL or --no-registry, not both'),
  );
  t.throws(() => parseCli(['--registry', 'registry.example'], {}), {
    message:
      "--registry registry.example: give the registry's base URL, e.g. https://registry.modelcontextprotocol.io",
  });
});

t.test('the config file names its registries', async (t) => {
  const path = tempConfigPath(t, 'mcpmux-registries');
  writeFileSync(
    path,
    JSON.stringify({ mcpServers: {}, mcpmux: { registries: ['https://mcp.acme.example'] } }),
  );
  t.same(await loadConfigSettings(path), { registries: ['https://mcp.acme.example'] });
  writeFileSync(path, JSON.stringify({ mcpServers: {}, mcpmux: { registries: ['mcp.acme.example'] } }));
  await t.rejects(loadConfigSettings(path), { message: /mcpmux\.registries\.0: give a registry's base URL/ });
});
