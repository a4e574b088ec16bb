// Config files in the formats clients use, with variable expansion and clear errors.
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import {
  ConfigError,
  loadConfigFile,
  loadConfigSettings,
  parseConfig,
  readConfigJson,
  type ConfiguredServer,
} from '../../src/config/load-config.js';
import { expandVariables } from '../../src/config/expand-variables.js';
import { serverNameProblem } from '../../src/router/tool-names.js';
import { tempConfigPath } from '../helpers/temp-config.js';

const parse = (value: unknown, env: Record<string, string> = {}) =>
  parseConfig(value, 'mcp.json', env, (n) => serverNameProblem(n));
/** What the first server waits for (an unset variable does not fail the config: that server waits). */
const waitsFor = (servers: ConfiguredServer[]) => servers[0]?.spec.unconfigured?.problems.join('\n');

t.test('mcpServers entries become specs; unknown fields of other clients are ignored', async (t) => {
  const servers = parse(
    {
      mcpServers: {
        memory: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { A: '1' },
          autoApprove: [],
        },
        off: { command: 'x', disabled: true },
      },
    },
    {},
  );
  t.same(servers, [
    {
      name: 'memory',
      spec: {
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        env: { A: '1' },
      },
    },
  ]);
});

t.test("VS Code's servers format, and remote entries", async (t) => {
  const servers = parse(
    {
      servers: {
        web: {
          type: 'http',
          url: 'http://127.0.0.1:3000/mcp',
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
      },
    },
    { TOKEN: 'abc' },
  );
  t.same(servers, [
    {
      name: 'web',
      spec: { transport: 'http', url: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer abc' } },
    },
  ]);
});

t.test('variables expand in command, args, env, cwd; unset ones are named', async (t) => {
  const env = { HOME_DIR: '/home/u', KEY: 'k1' };
  const [s] = parse(
    {
      mcpServers: {
        a: {
          command: '${HOME_DIR}/bin/srv',
          args: ['--key=${env:KEY}', '${MISSING:-fallback}'],
          env: { K: '${KEY}' },
          cwd: '${HOME_DIR}',
        },
      },
    },
    env,
  );
  t.same(s?.spec, {
    transport: 'stdio',
    command: '/home/u/bin/srv',
    args: ['--key=k1', 'fallback'],
    env: { K: 'k1' },
    cwd: '/home/u',
  });
  const waiting = parse({ mcpServers: { a: { command: 'x', env: { T: '${GITHUB_TOKEN}' } } } });
  t.match(waiting[0]?.spec.unconfigured, {
    missing: ['GITHUB_TOKEN'],
    problems: [/^env\.T: \$\{GITHUB_TOKEN\} is not set in mcpmux's environment$/],
  });
});

t.test('every problem of a file is reported at once, with where it is', async (t) => {
  const error = t.throws(() =>
    parse({
      mcpServers: {
        bad__name: { command: 'x' },
        noCmd: { args: [] },
        both: { command: 'x', url: 'http://127.0.0.1/' },
        typo: { command: 5 },
      },
    }),
  ) as ConfigError;
  t.match(error.message, /mcpServers\.bad__name: .*'__'/);
  t.match(error.message, /mcpServers\.noCmd: command is required/);
  t.match(error.message, /mcpServers\.both: give either command .* or url/);
  t.match(error.message, /mcpServers\.typo\.command: /);
});

t.test('files that are not configs say what is expected', async (t) => {
  await t.rejects(
    readConfigJson('{nope', 'f.json'),
    /config file 'f.json' is not valid JSON \(nor JSON with comments\) at line 1, column 2: a character that cannot be here/,
  );
  await t.rejects(
    readConfigJson('{"mcpServers": {\n  "a": {"command": "x"}\n  "b": {}\n}}', 'f.json'),
    /at line 3, column 3: a comma is missing/,
    'where it is, as an editor counts',
  );
  t.throws(() => parse({ servers_typo: {} }), /must be an object with "mcpServers"/);
  t.throws(() => parse({ mcpServers: { w: { url: 'ftp://x' } } }), /not an absolute http\(s\) URL/);
  await t.rejects(
    loadConfigFile('/nonexistent/mcp.json', {}, () => undefined),
    /cannot read config file '\/nonexistent\/mcp.json': no such file/,
  );
  const file = tempConfigPath(t, 'mcpmux-config');
  writeFileSync(file, JSON.stringify({ mcpServers: { m: { command: 'node' } } }));
  t.same(await loadConfigFile(file, {}, () => undefined), [
    { name: 'm', spec: { transport: 'stdio', command: 'node', args: [], env: {} } },
  ]);
});

t.test('expandVariables forms', async (t) => {
  t.same(expandVariables('a${X}b${env:Y}c', { X: '1', Y: '2' }), { value: 'a1b2c', problems: [], unset: [] });
  t.same(expandVariables('${X:-d}', {}), { value: 'd', problems: [], unset: [] });
  t.same(
    expandVariables('${X:-d}', { X: '' }),
    { value: 'd', problems: [], unset: [] },
    'empty counts as unset for a default',
  );
  t.match(expandVariables('${input:token}', {}).problems[0], /not a variable mcpmux can expand/);
  t.same(
    expandVariables('no vars $HOME', {}),
    { value: 'no vars $HOME', problems: [], unset: [] },
    'bare $VAR is left alone',
  );
});

t.test('a tools filter in an entry is kept; a malformed one is named', async (t) => {
  const servers = parse({
    mcpServers: { fs: { command: 'fs-server', tools: { allow: ['read_*'], deny: ['read_secret'] } } },
  });
  t.same(servers[0]?.spec.toolFilter, { allow: ['read_*'], deny: ['read_secret'] });
  t.throws(
    () => parse({ mcpServers: { fs: { command: 'fs-server', tools: { allow: 'read_*' } } } }),
    /mcpServers\.fs\.tools\.allow: /,
  );
  t.throws(
    () => parse({ mcpServers: { fs: { command: 'fs-server', tools: { only: ['x'] } } } }),
    /mcpServers\.fs\.tools: Unrecognized key: "only"/,
  );
});

t.test("mcpmux's own settings block", async (t) => {
  const dir = dirname(tempConfigPath(t, 'mcpmux-settings'));
  const file = (name: string, value: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };
  t.same(
    await loadConfigSettings(
      file('a.json', { mcpmux: { expose: 'search', quarantine: 'all-added' }, mcpServers: {} }),
    ),
    { expose: 'search', quarantine: 'all-added' },
  );
  await t.rejects(
    loadConfigSettings(file('q.json', { mcpmux: { quarantine: 'none' }, mcpServers: {} })),
    /mcpmux\.quarantine: /,
  );
  t.same(await loadConfigSettings(file('b.json', { mcpServers: {} })), {}, 'no block: no settings');
  await t.rejects(
    loadConfigSettings(file('c.json', { mcpmux: { expose: 'some' }, mcpServers: {} })),
    /mcpmux\.expose: /,
  );
  await t.rejects(
    loadConfigSettings(file('d.json', { mcpmux: { exposed: 'search' }, mcpServers: {} })),
    /mcpmux: Unrecognized key: "exposed"/,
  );
});

t.test('a prefix of its own ("" for none), checked like add_server checks it', async (t) => {
  const servers = parse({
    mcpServers: {
      ref: { url: 'http://127.0.0.1:3000/mcp', prefix: '' },
      mem: { command: 'npx', args: ['-y', 'm'], prefix: 'm_' },
    },
  });
  t.match(servers, [
    { name: 'ref', spec: { transport: 'http', prefix: '' } },
    { name: 'mem', spec: { transport: 'stdio', prefix: 'm_' } },
  ]);
  t.throws(
    () => parse({ mcpServers: { bad: { command: 'x', prefix: 'a/b' } } }),
    /prefix may only contain letters, digits/,
  );
});

t.test('oauth settings of a remote server, with ${VAR} in its client id and secret', async (t) => {
  const [github] = parse(
    {
      mcpServers: {
        github: {
          url: 'https://api.example.com/mcp',
          oauth: {
            client_id: '${GH_CLIENT}',
            client_secret: '${GH_SECRET}',
            scopes: ['repo', 'read:org'],
            redirect_port: 8765,
          },
        },
      },
    },
    { GH_CLIENT: 'client-1', GH_SECRET: 's3cret' },
  );
  t.same(github!.spec, {
    transport: 'http',
    url: 'https://api.example.com/mcp',
    headers: {},
    oauth: { clientId: 'client-1', clientSecret: 's3cret', scopes: ['repo', 'read:org'], redirectPort: 8765 },
  });
  t.match(parse({ mcpServers: { a: { url: 'https://a.example/mcp', oauth: {} } } }), [
    { spec: { oauth: {} } },
  ]);
  t.throws(
    () => parse({ mcpServers: { a: { command: 'x', oauth: {} } } }),
    /oauth applies to a url, not to a command/,
  );
  t.throws(
    () => parse({ mcpServers: { a: { url: 'https://a.example/mcp', oauth: { redirect_port: 70000 } } } }),
    /redirect_port must be a port number/,
  );
  t.throws(
    () => parse({ mcpServers: { a: { url: 'https://a.example/mcp', oauth: { secret: 'x' } } } }),
    /oauth: Unrecognized key: "secret"|oauth.*secret/,
  );
  t.match(
    waitsFor(
      parse({ mcpServers: { a: { url: 'https://a.example/mcp', oauth: { client_secret: '${NOPE}' } } } }),
    ),
    /oauth\.client_secret: \$\{NOPE\} is not set/,
  );
});

t.test('a machine client (client_credentials) gives its id and one secret or key', async (t) => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const url = 'https://api.example.com/mcp';
  const machine = (oauth: Record<string, unknown>, env = {}) =>
    parse({ mcpServers: { m: { url, oauth: { grant_type: 'client_credentials', ...oauth } } } }, env);
  t.match(machine({ client_id: 'c', private_key: '${KEY}' }, { KEY: pem }), [
    { spec: { oauth: { grantType: 'client_credentials', clientId: 'c', privateKey: pem } } },
  ]);
  t.match(machine({ client_id: 'c', client_secret: 's', scopes: ['read'] }), [
    {
      spec: {
        oauth: { grantType: 'client_credentials', clientId: 'c', clientSecret: 's', scopes: ['read'] },
      },
    },
  ]);
  t.throws(
    () => machine({ client_secret: 's' }),
    /needs the client_id the authorization server knows this client by/,
  );
  t.throws(() => machine({ client_id: 'c' }), /needs one of client_secret and private_key/);
  t.throws(
    () => machine({ client_id: 'c', client_secret: 's', private_key: pem }),
    /give one of client_secret and private_key, not both/,
  );
  t.throws(
    () => machine({ client_id: 'c', private_key: 'not a key' }),
    /oauth.private_key is not a private key in PEM/,
  );
  t.throws(
    () => machine({ client_id: 'c', client_secret: 's', signing_algorithm: 'ES256' }),
    /signing_algorithm applies to a private_key/,
  );
  t.throws(
    () => parse({ mcpServers: { m: { url, oauth: { private_key: pem } } } }),
    /apply to a machine client \("grant_type": "client_credentials" or "jwt_bearer"\)/,
  );
  t.match(
    waitsFor(machine({ client_id: 'c', private_key: '${NOKEY}' })),
    /oauth\.private_key: \$\{NOKEY\} is not set/,
  );
  t.throws(
    () => parse({ mcpServers: { m: { url, oauth: { grant_type: 'password' } } } }),
    /oauth: grant_type: Invalid option/,
  );
});

t.test('"dpop": false asks for bearer tokens; true is the default, so it is not kept', async (t) => {
  const url = 'https://api.example.com/mcp';
  t.match(parse({ mcpServers: { a: { url, oauth: { dpop: false } } } }), [
    { spec: { oauth: { dpop: false } } },
  ]);
  const [on] = parse({ mcpServers: { a: { url, oauth: { dpop: true } } } });
  t.notOk('dpop' in (on!.spec as { oauth: object }).oauth);
  t.throws(
    () => parse({ mcpServers: { a: { url, oauth: { dpop: 'no' } } } }),
    /oauth: dpop: Invalid input: expected boolean/,
  );
});

t.test('a workload (jwt_bearer) gives its id and the file its platform writes its token to', async (t) => {
  const url = 'https://api.example.com/mcp';
  const workload = (oauth: Record<string, unknown>, env = {}) =>
    parse({ mcpServers: { w: { url, oauth } } }, env);
  t.match(
    workload(
      { grant_type: 'jwt_bearer', client_id: 'ci', assertion_file: '${TOKEN_FILE}' },
      { TOKEN_FILE: '/var/run/secrets/tokens/mcp' },
    ),
    [
      {
        spec: {
          oauth: { grantType: 'jwt_bearer', clientId: 'ci', assertionFile: '/var/run/secrets/tokens/mcp' },
        },
      },
    ],
  );
  t.match(
    workload({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      client_id: 'ci',
      assertion_file: '/t',
    }),
    [{ spec: { oauth: { grantType: 'jwt_bearer' } } }],
    "RFC 7523's name for it",
  );
  t.throws(
    () => workload({ grant_type: 'jwt_bearer', client_id: 'ci' }),
    /"jwt_bearer" needs assertion_file: the file the platform writes the workload's token to/,
  );
  t.throws(
    () => workload({ grant_type: 'jwt_bearer', assertion_file: '/t' }),
    /"jwt_bearer" needs the client_id/,
  );
  t.throws(
    () =>
      workload({
        grant_type: 'client_credentials',
        client_id: 'c',
        client_secret: 's',
        assertion_file: '/t',
      }),
    /oauth.assertion_file applies to "grant_type": "jwt_bearer"/,
  );
  t.match(
    waitsFor(workload({ grant_type: 'jwt_bearer', client_id: 'c', assertion_file: '${NOFILE}' })),
    /oauth\.assertion_file: \$\{NOFILE\} is not set/,
  );
});

t.test(
  'a person of an organisation (idp): the identity provider that trades their ID token for the grant',
  async (t) => {
    const url = 'https://api.example.com/mcp';
    const corp = (oauth: Record<string, unknown>, env = {}) =>
      parse({ mcpServers: { c: { url, oauth } } }, env);
    const idp = { issuer: 'https://acme.okta.com', client_id: 'mcpmux', id_token_file: '${ID_TOKEN}' };
    t.match(
      corp(
        { client_id: 'c', client_secret: '${S}', idp: { ...idp, client_secret: '${IDP_S}' } },
        { ID_TOKEN: '/run/sso/id-token', S: 'server-secret', IDP_S: 'idp-secret' },
      ),
      [
        {
          spec: {
            oauth: {
              grantType: 'jwt_bearer',
              clientId: 'c',
              clientSecret: 'server-secret',
              idp: {
                issuer: 'https://acme.okta.com',
                clientId: 'mcpmux',
                clientSecret: 'idp-secret',
                idTokenFile: '/run/sso/id-token',
              },
            },
          },
        },
      ],
      'jwt_bearer is implied, and ${VAR} expanded inside idp',
    );
    const [given] = corp(
      {
        grant_type: 'jwt_bearer',
        client_id: 'c',
        idp: { ...idp, token_endpoint: 'https://acme.okta.com/token' },
      },
      { ID_TOKEN: '/t' },
    );
    t.match(given!.spec, { oauth: { idp: { tokenEndpoint: 'https://acme.okta.com/token' } } });
    const env = { ID_TOKEN: '/t' };
    t.throws(() => corp({ idp }, env), /"jwt_bearer" needs the client_id/);
    t.throws(
      () => corp({ grant_type: 'client_credentials', client_id: 'c', client_secret: 's', idp }, env),
      /oauth\.idp applies to "grant_type": "jwt_bearer"/,
    );
    t.throws(
      () => corp({ client_id: 'c', assertion_file: '/w', idp }, env),
      /give one of assertion_file \(a workload's token\) and idp/,
    );
    t.throws(
      () => corp({ client_id: 'c', idp: { ...idp, issuer: 'http://acme.okta.com' } }, env),
      /oauth\.idp\.issuer 'http:\/\/acme\.okta\.com' is not an https URL/,
    );
    t.throws(
      () => corp({ client_id: 'c', idp: { ...idp, token_endpoint: 'token' } }, env),
      /oauth\.idp\.token_endpoint 'token' is not an https URL/,
    );
    t.ok(
      corp({ client_id: 'c', idp: { ...idp, issuer: 'http://127.0.0.1:9000' } }, env),
      'http on this machine (a test IdP)',
    );
    t.same(
      corp({ client_id: 'c', idp: { issuer: 'https://a.example', client_id: 'm' } }, env)[0]!.spec,
      {
        transport: 'http',
        url,
        headers: {},
        oauth: {
          grantType: 'jwt_bearer',
          clientId: 'c',
          idp: { issuer: 'https://a.example', clientId: 'm' },
        },
      },
      'no id_token_file: mcpmux signs the person in to the provider',
    );
    t.throws(() => corp({ client_id: 'c', idp: { ...idp, scope: 'x' } }, env), /scope/);
    t.match(waitsFor(corp({ client_id: 'c', idp })), /oauth\.idp\.id_token_file: \$\{ID_TOKEN\} is not set/);
  },
);

t.test(
  'a Gemini CLI entry: its includeTools/excludeTools filter tools, its camelCase oauth is ours',
  async (t) => {
    const [gemini] = parse(
      {
        mcpServers: {
          g: {
            httpUrl: 'https://api.example.com/mcp',
            includeTools: ['read_*', 'search'],
            excludeTools: ['read_secret'],
            trust: true,
            timeout: 30000,
            oauth: {
              enabled: true,
              clientId: 'gem-client',
              clientSecret: '${GEM_SECRET}',
              scopes: ['read'],
              authorizationUrl: 'https://auth.example.com/authorize',
              tokenUrl: 'https://auth.example.com/token',
            },
          },
        },
      },
      { GEM_SECRET: 's3' },
    );
    t.same(gemini!.spec, {
      transport: 'http',
      url: 'https://api.example.com/mcp',
      headers: {},
      oauth: { clientId: 'gem-client', clientSecret: 's3', scopes: ['read'] },
      toolFilter: { allow: ['read_*', 'search'], deny: ['read_secret'] },
    });
    const [off] = parse({
      mcpServers: { g: { httpUrl: 'https://api.example.com/mcp', oauth: { enabled: false } } },
    });
    t.equal(off!.spec.transport === 'http' && off!.spec.oauth, false, 'enabled: false is "oauth": false');
    const [bare] = parse({ mcpServers: { b: { url: 'https://api.example.com/mcp' } } });
    t.equal(
      bare!.spec.transport === 'http' && bare!.spec.oauth,
      undefined,
      'a bare url has no oauth block: it signs in if the server asks',
    );
    t.throws(
      () => parse({ mcpServers: { t: { url: 'https://api.example.com/mcp', oauth: true } } }),
      /mcpServers\.t\.oauth: oauth must be an object \(\{\} or its settings\) or false \(no sign-in\)/,
    );
    t.throws(
      () => parse({ mcpServers: { g: { command: 'x', tools: { deny: ['a'] }, excludeTools: ['b'] } } }),
      /give tools or Gemini CLI's includeTools\/excludeTools, not both/,
    );
    t.throws(
      () => parse({ mcpServers: { g: { command: 'x', includeTools: 'read' } } }),
      /mcpServers\.g\.includeTools/,
      'a list is expected',
    );
  },
);

t.test('a field that is a slip of one mcpmux reads is a problem that names the field meant', async (t) => {
  const problems = (entry: Record<string, unknown>) => {
    try {
      parse({ mcpServers: { s: entry } });
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };
  t.match(
    problems({ command: 'x', arg: ['--port'] }),
    /mcpServers\.s\.arg: not a field mcpmux knows; did you mean "args"\?/,
  );
  t.match(problems({ Command: 'x' }), /did you mean "command"/);
  t.match(problems({ command: 'x', environment: { A: '1' } }), /did you mean "env"/, 'a synonym');
  t.match(problems({ command: 'x', enviroment: { A: '1' } }), /did you mean "env"/, 'a slip of a synonym');
  t.match(problems({ comand: 'x' }), /did you mean "command"/);
  t.match(problems({ command: 'x', envfile: '.env' }), /did you mean "envFile"/);
  t.match(problems({ uri: 'https://a.example/mcp' }), /did you mean "url"/);
  t.match(problems({ command: 'x', headres: {} }), /did you mean "headers"/, 'two letters swapped');
  for (const foreign of [
    { dev: { watch: 'src/**' } },
    { auth: { CLIENT_ID: 'x' } },
    { autoApprove: ['a'] },
    { alwaysAllow: [] },
    { disabledTools: [] },
    { transportType: 'stdio' },
    { timeout: 1000 },
    { trust: true },
    { description: 'd' },
    { name: 'n' },
  ])
    t.equal(
      problems({ command: 'x', ...foreign }),
      '',
      `${Object.keys(foreign)[0]} is another client's, and ignored`,
    );
});

t.test('a restart policy in a config entry is kept', async (t) => {
  const [server] = parse({
    mcpServers: { s: { command: 'x', restart: { on: 'failure', max_attempts: 2, backoff_seconds: [1] } } },
  });
  t.same(server!.spec.restart, { maxAttempts: 2, backoffMs: [1000] });
});

t.test('files as editors and VS Code write them: a byte-order mark, comments, trailing commas', async (t) => {
  const bom = '\uFEFF{"mcpServers": {"m": {"command": "node"}}}';
  t.same(await readConfigJson(bom, 'f.json'), { mcpServers: { m: { command: 'node' } } }, 'a BOM is skipped');
  const vscode = `{
  // VS Code's .vscode/mcp.json is JSON with comments
  "inputs": [],
  "servers": {
    /* the memory server */
    "memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory",], },
  },
}`;
  const json = await readConfigJson(vscode, 'mcp.json');
  t.same(
    parseConfig(json, 'mcp.json', {}, () => undefined),
    [
      {
        name: 'memory',
        spec: {
          transport: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: {},
        },
      },
    ],
  );
  const file = tempConfigPath(t, 'mcpmux-config');
  writeFileSync(file, vscode);
  t.equal((await loadConfigFile(file, {}, () => undefined))[0]?.name, 'memory', 'read from a file');
  writeFileSync(file, `\uFEFF{ "mcpmux": { "expose": "search" }, // mcpmux's own settings\n "servers": {} }`);
  t.same(await loadConfigSettings(file), { expose: 'search' }, "and mcpmux's settings from such a file");
});

t.test("other clients' names for a url: Windsurf's serverUrl, Gemini CLI's httpUrl", async (t) => {
  const servers = parse({
    mcpServers: {
      windsurf: { serverUrl: 'http://127.0.0.1:3000/mcp' },
      gemini: { httpUrl: 'http://127.0.0.1:3001/mcp', headers: { A: 'b' } },
      same: { url: 'http://127.0.0.1:3002/mcp', serverUrl: 'http://127.0.0.1:3002/mcp' },
    },
  });
  t.same(
    servers.map(({ name, spec }) => [name, spec.transport === 'http' ? spec.url : undefined]),
    [
      ['windsurf', 'http://127.0.0.1:3000/mcp'],
      ['gemini', 'http://127.0.0.1:3001/mcp'],
      ['same', 'http://127.0.0.1:3002/mcp'],
    ],
  );
  t.throws(
    () =>
      parse({ mcpServers: { two: { url: 'http://127.0.0.1:1/mcp', httpUrl: 'http://127.0.0.1:2/mcp' } } }),
    { message: /mcpServers\.two: url and httpUrl name different servers; give one url/ },
  );
});

t.test("VS Code's and Cursor's envFile: its variables under the entry's env", async (t) => {
  const config = tempConfigPath(t, 'env-file');
  const envFile = join(dirname(config), '.env');
  writeFileSync(envFile, '# secrets\nTOKEN=from-file\nQUOTED="a b"\nSHARED=file\n');
  const servers = parse(
    {
      servers: {
        local: { command: 'x', envFile: '${DIR}/.env', env: { SHARED: 'entry' } },
      },
    },
    { DIR: dirname(config) },
  );
  t.same(servers[0]?.spec, {
    transport: 'stdio',
    command: 'x',
    args: [],
    env: { TOKEN: 'from-file', QUOTED: 'a b', SHARED: 'entry' },
  });
  t.throws(
    () => parse({ servers: { local: { command: 'x', envFile: join(dirname(config), 'none.env') } } }),
    {
      message: /servers\.local: envFile '.*none\.env' cannot be read: no such file/,
    },
  );
  t.throws(() => parse({ servers: { web: { url: 'http://127.0.0.1:1/mcp', envFile: envFile } } }), {
    message: /servers\.web: envFile applies to a command, not to a url/,
  });
});

t.test('"trust" is read from a config entry; Gemini CLI\'s boolean one means nothing here', async (t) => {
  const servers = parse({
    mcpServers: {
      held: { command: 'npx', args: ['-y', 'x'], trust: 'held' },
      dev: { command: 'node', args: ['build/index.js'], trust: 'follow' },
      gemini: { command: 'node', args: ['s.js'], trust: true },
    },
  });
  t.same(
    servers.map((s) => [s.name, s.spec.trust]),
    [
      ['held', 'held'],
      ['dev', 'follow'],
      ['gemini', undefined],
    ],
  );
  t.throws(() => parse({ mcpServers: { x: { command: 'node', trust: 'yes' } } }), {
    message: /mcpServers\.x\.trust: trust must be "approved", "follow" or "held"/,
  });
});
