// The flags of what mcpmux serves beside its servers. MCP registries: the official one by
// default, --registry URLs instead (in order), none with --no-registry or --no-runtime-add, a
// config's "registries" where no flag says, a URL that is not one refused before anything
// runs. The call log, telemetry content and the HTTP drain: each where it belongs.
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

t.test('--drain-seconds, --call-log and --trace-content', async (t) => {
  t.equal(parseCli(['--http', '0', '--drain-seconds', '2.5'], {}).http?.drainMs, 2500);
  t.equal(parseCli(['--http', '0', '--drain-seconds', '0'], {}).http?.drainMs, 0);
  t.throws(() => parseCli(['--drain-seconds', '5'], {}), {
    message: '--drain-seconds goes with --http PORT',
  });
  t.throws(() => parseCli(['--http', '0', '--drain-seconds=-1'], {}), {
    message: '--drain-seconds must be 0 (no wait) or more',
  });
  t.same(parseCli(['--call-log', '/var/log/mcpmux.jsonl', '--call-log-content'], {}).callLog, {
    path: '/var/log/mcpmux.jsonl',
    content: true,
  });
  t.throws(() => parseCli(['--call-log-content'], {}), {
    message: '--call-log-content goes with --call-log FILE',
  });
  t.equal(parseCli(['--trace-content'], {}).traceContent, true);
});
