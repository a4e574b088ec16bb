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
    { kind: 'url', name: 'tenant', secret: false, description: '{tenant} in the URL' },
  ]);
});

t.test(
  "a remote's URL variables: defaults and choices read, a secret asked of the person, never shown",
  async (t) => {
    const remote = entry({
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://{region}.example.com/{api_key}/mcp',
          variables: {
            region: { default: 'eu', choices: ['eu', 'us'], description: 'Where your account is' },
            api_key: { isSecret: true, isRequired: true, description: 'Your API key' },
          },
        },
      ],
    });
    const unanswered = resolveEntry(remote);
    t.same(unanswered.missing, [{ kind: 'url', name: 'api_key', secret: true, description: 'Your API key' }]);
    t.same(unanswered.secrets, ['api_key']);
    t.equal(
      unanswered.source,
      'remote https://{region}.example.com/{api_key}/mcp',
      'the source is the template',
    );
    t.same(
      resolveEntry(remote, { arguments: { api_key: 'from-the-model' } }).missing.map((m) => m.name),
      ['api_key'],
      'a secret is not taken from arguments, where the model puts what it gives',
    );
    const answered = resolveEntry(remote, { env: { api_key: 'k-123' }, arguments: { region: 'us' } });
    t.equal(answered.spec.transport === 'http' && answered.spec.url, 'https://us.example.com/k-123/mcp');
    t.same(answered.secretValues, { api_key: 'k-123' });
    t.same(answered.missing, []);
    t.same(resolveEntry(remote, { arguments: { region: 'mars' } }).outOfChoices, [
      'region must be one of eu, us',
    ]);
    const preview = resolveEntry(remote, { env: { api_key: 'k-123' }, preview: true });
    t.equal(preview.spec.transport === 'http' && preview.spec.url, 'https://eu.example.com/${api_key}/mcp');
  },
);

t.test(
  'a secret that would stand on the command line is noted, however the entry puts it there',
  async (t) => {
    const secretArg = resolveEntry(
      entry({ packages: [npm({ packageArguments: [{ type: 'named', name: '--token', isSecret: true }] })] }),
      { arguments: { '--token': 't' } },
    );
    t.same(secretArg.secretsInArguments, ['--token']);
    const fromVariable = resolveEntry(
      entry({
        packages: [
          npm({
            environmentVariables: [{ name: 'API_KEY', isSecret: true, isRequired: true }],
            packageArguments: [{ type: 'named', name: '--token', value: '{API_KEY}' }],
          }),
        ],
      }),
      { env: { API_KEY: 'k-123' } },
    );
    t.same(fromVariable.secretsInArguments, ['API_KEY'], "an argument made from a secret variable's value");
    const ownVariable = resolveEntry(
      entry({
        packages: [
          npm({
            runtimeArguments: [
              {
                type: 'named',
                name: '--header',
                value: 'Bearer {tok}',
                variables: { tok: { isSecret: true } },
              },
            ],
          }),
        ],
      }),
    );
    t.same(ownVariable.secretsInArguments, ['tok'], 'an argument with a secret variable of its own');
    const headerFromVariable = resolveEntry(
      entry({
        remotes: [
          {
            type: 'streamable-http',
            url: 'https://example.com/mcp',
            headers: [
              { name: 'Authorization', value: 'Bearer {tok}', variables: { tok: { isSecret: true } } },
            ],
          },
        ],
      }),
      { env: { tok: 't-1' } },
    );
    t.same(headerFromVariable.secretsInArguments, [], 'in a header it is where a secret belongs');
    t.same(headerFromVariable.secretValues, { tok: 't-1' });
  },
);

t.test('a package identifier that is not a package name is never run', async (t) => {
  for (const identifier of ['--call=touch /tmp/x', '-y', 'pkg; rm -rf ~', 'pkg name', 'a$(id)', 'pkg\nx'])
    t.throws(
      () => resolveEntry(entry({ packages: [npm({ identifier })] })),
      { code: 'NOT_ALLOWED', message: /is not a package name/ },
      identifier,
    );
  t.doesNotThrow(() => resolveEntry(entry({ packages: [npm({ identifier: '@scope/pkg.name_1' })] })));
});

t.test('a preview: the command with what is not given, and every secret, as ${NAME}', async (t) => {
  const preview = resolveEntry(
    entry({
      packages: [
        npm({
          packageArguments: [{ type: 'positional', valueHint: 'dir', isRequired: true }],
          environmentVariables: [
            { name: 'KEY', isSecret: true, isRequired: true, default: 'sample-key' },
            { name: 'FIXED', value: 'on' },
            { name: 'FIXED_SECRET', value: 'hidden-by-publisher', isSecret: true },
          ],
        }),
      ],
    }),
    { preview: true },
  );
  t.same(preview.spec.transport === 'stdio' && [preview.spec.command, ...preview.spec.args], [
    'npx',
    '-y',
    'weather-mcp@1.2.0',
    '${dir}',
  ]);
  t.same(preview.spec.transport === 'stdio' && preview.spec.env, {
    KEY: '${KEY}',
    FIXED: 'on',
    FIXED_SECRET: '${FIXED_SECRET}',
  });
  t.same(preview.fixedEnv, { FIXED: 'on', FIXED_SECRET: '${FIXED_SECRET}' });
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
