// Registry entries (server.json as the MCP Registry serves it) made into server specs: each
// package kind's command line, inputs taken from the choices, fixed values and defaults, what
// is missing for the person to supply, and entries mcpmux cannot run.
import t from 'tap';
import { resolveEntry } from '../../src/mcp-registry/resolve-entry.js';
import { serverEntry, type ServerEntry } from '../../src/mcp-registry/server-entry.js';

/** The weather-mcp npm package at 1.2.0, with `fields` over it. */
const npm = (fields: Record<string, unknown> = {}) => ({
  registryType: 'npm',
  identifier: 'weather-mcp',
  version: '1.2.0',
  ...fields,
});

const entry = (fields: Partial<ServerEntry>): ServerEntry =>
  serverEntry.parse({
    name: 'io.github.example/weather',
    description: 'Weather',
    version: '1.2.0',
    ...fields,
  });

t.test('an npm package runs through npx at its version, with its arguments and variables', async (t) => {
  const resolved = resolveEntry(
    entry({
      packages: [
        {
          registryType: 'npm',
          identifier: '@example/weather-mcp',
          version: '1.2.0',
          transport: { type: 'stdio' },
          packageArguments: [
            { type: 'positional', valueHint: 'units', default: 'metric' },
            { type: 'named', name: '--region', isRequired: true },
            { type: 'named', name: '--verbose', value: '' },
          ],
          environmentVariables: [
            { name: 'WEATHER_API_KEY', isRequired: true, isSecret: true, description: 'Your API key' },
            { name: 'WEATHER_CACHE', default: '/tmp/weather' },
            { name: 'WEATHER_OPTIONAL' },
          ],
        },
      ],
    }),
    { env: { WEATHER_API_KEY: 'k-123' }, arguments: { '--region': 'eu' } },
  );
  t.same(resolved.spec, {
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@example/weather-mcp@1.2.0', 'metric', '--region=eu', '--verbose'],
    env: { WEATHER_API_KEY: 'k-123', WEATHER_CACHE: '/tmp/weather' },
  });
  t.equal(resolved.source, 'npm @example/weather-mcp@1.2.0');
  t.same(resolved.missing, []);
  t.same(resolved.secrets, ['WEATHER_API_KEY']);
});

t.test('what is required and not given is missing, with what the person needs to know', async (t) => {
  const resolved = resolveEntry(
    entry({
      packages: [
        npm({
          packageArguments: [
            { type: 'positional', valueHint: 'city', isRequired: true, choices: ['Paris', 'Oslo'] },
          ],
          environmentVariables: [
            { name: 'WEATHER_API_KEY', isRequired: true, isSecret: true, description: 'Your API key' },
          ],
        }),
      ],
    }),
  );
  t.same(resolved.missing, [
    { kind: 'env', name: 'WEATHER_API_KEY', secret: true, description: 'Your API key' },
    { kind: 'argument', name: 'city', secret: false, choices: ['Paris', 'Oslo'] },
  ]);
  t.same(resolved.spec.transport === 'stdio' && resolved.spec.env, {}, 'no value is made up');
});

t.test("a fixed value takes its {variables} from the choices, else from the variable's own", async (t) => {
  const resolved = resolveEntry(
    entry({
      packages: [
        {
          registryType: 'npm',
          identifier: 'db-mcp',
          version: '3.0.0',
          environmentVariables: [
            {
              name: 'DATABASE_URL',
              value: 'postgres://{user}@{host}/app',
              variables: { user: { isRequired: true }, host: { default: 'localhost' } },
            },
          ],
        },
      ],
    }),
    { env: { user: 'ada' } },
  );
  t.same(resolved.spec.transport === 'stdio' && resolved.spec.env, {
    DATABASE_URL: 'postgres://ada@localhost/app',
  });
});

t.test('a PyPI package runs through uvx, pinned', async (t) => {
  const resolved = resolveEntry(
    entry({
      packages: [
        {
          registryType: 'pypi',
          identifier: 'mcp-server-time',
          version: '0.6.2',
          transport: { type: 'stdio' },
        },
      ],
    }),
  );
  t.same(resolved.spec, { transport: 'stdio', command: 'uvx', args: ['mcp-server-time==0.6.2'], env: {} });
  t.equal(resolved.source, 'PyPI mcp-server-time==0.6.2');
});

t.test('an OCI image runs through docker, its variables passed by name only', async (t) => {
  const resolved = resolveEntry(
    entry({
      packages: [
        {
          registryType: 'oci',
          identifier: 'ghcr.io/example/weather:1.2.0',
          transport: { type: 'stdio' },
          runtimeArguments: [{ type: 'named', name: '--network', value: 'host' }],
          environmentVariables: [{ name: 'WEATHER_API_KEY', isSecret: true, isRequired: true }],
        },
      ],
    }),
    { env: { WEATHER_API_KEY: 'k-123' } },
  );
  t.same(resolved.spec, {
    transport: 'stdio',
    command: 'docker',
    args: ['run', '-i', '--rm', '--network=host', '-e', 'WEATHER_API_KEY', 'ghcr.io/example/weather:1.2.0'],
    env: { WEATHER_API_KEY: 'k-123' },
  });
  t.notOk(
    resolved.spec.transport === 'stdio' && resolved.spec.args.some((a) => a.includes('k-123')),
    'the secret is not on the command line',
  );
});

t.test('npx is not told -y twice; a chosen version wins over the entry', async (t) => {
  const resolved = resolveEntry(
    entry({
      packages: [
        npm({
          runtimeHint: 'npx',
          runtimeArguments: [{ type: 'named', name: '--yes', value: '' }],
        }),
      ],
    }),
    { version: '1.3.0' },
  );
  t.same(resolved.spec.transport === 'stdio' && resolved.spec.args, ['--yes', 'weather-mcp@1.3.0']);
});

t.test('a remote: its URL, its headers, {variables} in the URL filled in', async (t) => {
  const resolved = resolveEntry(
    entry({
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://{tenant}.example.com/mcp',
          headers: [
            { name: 'X-Api-Key', isRequired: true, isSecret: true },
            { name: 'X-Client', value: 'mcpmux' },
          ],
        },
      ],
    }),
    { env: { 'X-Api-Key': 'k-123' }, arguments: { tenant: 'acme' } },
  );
  t.same(resolved.spec, {
    transport: 'http',
    url: 'https://acme.example.com/mcp',
    headers: { 'X-Api-Key': 'k-123', 'X-Client': 'mcpmux' },
  });
  t.same(resolved.secrets, ['X-Api-Key']);
  const unfilled = resolveEntry(
    entry({ remotes: [{ type: 'sse', url: 'https://{tenant}.example.com/sse' }] }),
  );
  t.same(unfilled.missing, [
    { kind: 'argument', name: 'tenant', secret: false, description: '{tenant} in the URL' },
  ]);
});

t.test('a package mcpmux runs comes before a remote; one it cannot run is passed over', async (t) => {
  const both = entry({
    packages: [{ registryType: 'nuget', identifier: 'Weather.Mcp', version: '1.2.0' }, npm()],
    remotes: [{ type: 'streamable-http', url: 'https://weather.example.com/mcp' }],
  });
  t.equal(resolveEntry(both).source, 'npm weather-mcp@1.2.0');
  const remoteOnly = entry({
    packages: [
      npm({
        transport: { type: 'streamable-http' },
      }),
    ],
    remotes: [{ type: 'streamable-http', url: 'https://weather.example.com/mcp' }],
  });
  t.equal(
    resolveEntry(remoteOnly).source,
    'remote https://weather.example.com/mcp',
    'a package served over HTTP is not started',
  );
});

t.test('an entry with nothing mcpmux can run says what it offers and what to do', async (t) => {
  t.throws(
    () =>
      resolveEntry(
        entry({
          packages: [
            { registryType: 'mcpb', identifier: 'https://github.com/o/r/releases/download/v1/s.mcpb' },
          ],
        }),
      ),
    {
      code: 'NOT_SUPPORTED',
      message:
        "registry entry 'io.github.example/weather' offers mcpb package https://github.com/o/r/releases/download/v1/s.mcpb; mcpmux runs npm, PyPI and OCI packages over stdio, and streamable-http or SSE remotes: add it with command/args or url yourself",
    },
  );
  t.throws(() => resolveEntry(entry({})), { message: /offers no package and no remote/ });
});
