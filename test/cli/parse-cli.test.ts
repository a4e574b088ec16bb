// Flags and inline servers; every mistake is a CliError with a clear message.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CliError } from '../../src/cli/cli-options.js';
import { parseCli } from '../../src/cli/parse-cli.js';

t.test('defaults', async (t) => {
  t.match(parseCli([], {}), {
    help: false,
    version: false,
    inline: [],
    logLevel: 'info',
    maxToolName: 64,
    startupTimeoutMs: 60_000,
    callTimeoutMs: 300_000,
  });
  t.equal(parseCli([], { MCPMUX_LOG_LEVEL: 'debug' }).logLevel, 'debug');
  t.equal(
    parseCli(['--log-level', 'warn'], { MCPMUX_LOG_LEVEL: 'debug' }).logLevel,
    'warn',
    'the flag wins over the env',
  );
});

t.test('flags', async (t) => {
  const o = parseCli(
    ['-c', 'cfg.json', '--max-tool-name', '51', '--startup-timeout', '90', '--call-timeout', '1.5'],
    {},
  );
  t.match(o, { configPath: 'cfg.json', maxToolName: 51, startupTimeoutMs: 90_000, callTimeoutMs: 1500 });
  t.equal(o.waitForServersMs, undefined, 'the first lists wait for every configured server unless told');
  t.equal(parseCli(['--wait-for-servers', '0'], {}).waitForServersMs, 0);
  t.equal(parseCli(['--wait-for-servers', '2.5'], {}).waitForServersMs, 2500);
});

t.test('spawn policy and ping flags', async (t) => {
  t.match(parseCli([], {}), {
    allowCommands: [],
    allowEnv: [],
    runtimeAdd: true,
    inheritEnv: false,
    passEnv: [],
    pingIntervalMs: 30_000,
  });
  const o = parseCli(
    [
      '--allow-command',
      'npx',
      '--allow-command',
      '/opt/**',
      '--allow-env',
      'NODE_OPTIONS',
      '--no-runtime-add',
      '--inherit-env',
      '--pass-env',
      'HTTP_PROXY',
      '--root',
      '/srv',
      '--ping-interval',
      '0',
    ],
    {},
  );
  t.match(o, {
    allowCommands: ['npx', '/opt/**'],
    allowEnv: ['NODE_OPTIONS'],
    runtimeAdd: false,
    inheritEnv: true,
    passEnv: ['HTTP_PROXY'],
    root: '/srv',
    pingIntervalMs: 0,
  });
  t.throws(() => parseCli(['--ping-interval', 'often'], {}), /--ping-interval must be a number of seconds/);
  t.equal(parseCli(['-c', 'f.json', '--watch-config'], {}).watchConfig, true);
  t.throws(() => parseCli(['--watch-config'], {}), /--watch-config needs --config FILE/);
});

t.test('inline servers after --, separated by --', async (t) => {
  const o = parseCli(
    [
      '--log-level',
      'error',
      '--',
      'mem',
      'npx',
      '-y',
      'server-memory',
      '--',
      'ev',
      'node',
      'ev.js',
      '--flag',
    ],
    {},
  );
  t.same(o.inline, [
    { name: 'mem', spec: { transport: 'stdio', command: 'npx', args: ['-y', 'server-memory'], env: {} } },
    { name: 'ev', spec: { transport: 'stdio', command: 'node', args: ['ev.js', '--flag'], env: {} } },
  ]);
});

t.test(
  "the inline forms of wrapper servers' configs: NAME -- CMD, and --transport http URL -H",
  async (t) => {
    const o = parseCli(
      [
        '--',
        'mem',
        '--',
        'npx',
        '-y',
        'server-memory',
        '--',
        'gh',
        '--transport',
        'http',
        'https://api.example.com/mcp',
        '-H',
        'Authorization: Bearer s3cret',
        '--header',
        'X-Team:  core ',
        '--',
        'local',
        '--transport',
        'stdio',
        'node',
        'x.js',
      ],
      {},
    );
    t.same(o.inline, [
      { name: 'mem', spec: { transport: 'stdio', command: 'npx', args: ['-y', 'server-memory'], env: {} } },
      {
        name: 'gh',
        spec: {
          transport: 'http',
          url: 'https://api.example.com/mcp',
          headers: { Authorization: 'Bearer s3cret', 'X-Team': 'core' },
        },
      },
      { name: 'local', spec: { transport: 'stdio', command: 'node', args: ['x.js'], env: {} } },
    ]);
    const cases: Array<[string[], RegExp]> = [
      [['--', 'r', '--transport', 'ftp', 'x'], /--transport must be http, sse or stdio, not 'ftp'/],
      [['--', 'r', '--transport', 'http'], /needs the server's http\(s\) URL/],
      [['--', 'r', '--transport', 'http', 'file:///x'], /needs the server's http\(s\) URL/],
      [
        ['--', 'r', '--transport', 'http', 'http://h/mcp', '-X', 'y'],
        /only -H "Name: value" may follow, not '-X'/,
      ],
      [['--', 'r', '--transport', 'http', 'http://h/mcp', '-H', 'no colon secret'], /-H takes "Name: value"/],
      [['--', 'r', '--transport', 'http', 'http://h/mcp', '-H'], /-H takes "Name: value"/],
      [['--', 'r', '--transport', 'stdio'], /--transport stdio needs a command/],
    ];
    for (const [argv, message] of cases) {
      const error = (() => {
        try {
          parseCli(argv, {});
        } catch (e) {
          return e as Error;
        }
        return undefined;
      })();
      t.match(error, { name: 'CliError', message }, argv.join(' '));
      t.notMatch(error?.message ?? '', /secret/, 'a header value is never in an error');
    }
  },
);

t.test('mistakes', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['--nope'], /^Unknown option '--nope'$/],
    [['--call-timout', '5'], /^Unknown option '--call-timout'; did you mean '--call-timeout'\?$/],
    [['--max-session', '5'], /did you mean '--max-sessions'\?$/],
    [['--confg', 'x.json'], /did you mean '--config'\?$/],
    [
      ['stray'],
      /^'stray' is not a subcommand \(inspect, call, auth, import, install, secrets, help\); servers go after --/,
    ],
    [['--log-level', 'loud'], /--log-level must be one of error, warn, info, debug/],
    [['--max-tool-name', 'ten'], /--max-tool-name must be a whole number/],
    [['--max-tool-name', '8'], /at least 16/],
    [['--startup-timeout=-1'], /--startup-timeout must be positive/],
    [['--startup-timeout', '-1'], /argument is ambiguous/],
    [['--wait-for-servers=-1'], /--wait-for-servers must be 0 or more/],
    [['--wait-for-servers', 'soon'], /--wait-for-servers must be a number of seconds/],
    [['--'], /needs a name and a command/],
    [['--', 'onlyname'], /needs a name and a command/],
    [['--', 'a__b', 'cmd'], /contains '__'/],
    [['--', 'a', 'x', '--', 'a', 'y'], /'a' is given twice/],
  ];
  for (const [argv, message] of cases)
    t.throws(() => parseCli(argv, {}), { name: 'CliError', message }, argv.join(' '));
  t.type(new CliError('x'), Error);
});

t.test('the inspect and call subcommands', async (t) => {
  t.match(parseCli(['inspect', '--json', '-c', 'f.json'], {}), {
    command: 'inspect',
    json: true,
    configPath: 'f.json',
    logLevel: 'warn',
  });
  t.match(parseCli(['call', 'dev__echo', '{"message":"hi"}', '--', 'dev', 'node', 'x.js'], {}), {
    command: 'call',
    call: { tool: 'dev__echo', arguments: { message: 'hi' } },
    inline: [{ name: 'dev', spec: { command: 'node', args: ['x.js'] } }],
  });
  t.same(parseCli(['call', 'a__b'], {}).call, { tool: 'a__b', arguments: {} });
  t.equal(parseCli([], {}).command, 'serve');
  t.throws(() => parseCli(['--json'], {}), /--json goes with inspect/);
  t.throws(() => parseCli(['call', 'a__b', '{}', 'extra'], {}), /unexpected 'extra'/);
  t.throws(() => parseCli(['inspect', 'stray'], {}), /Unexpected argument 'stray'/);
});

t.test('--http, --host, --auth-token and the front door', async (t) => {
  const defaults = {
    allowedHosts: [],
    allowedOrigins: [],
    sessionIdleTimeoutMs: 1_800_000,
    maxSessions: 100,
    drainMs: 10_000,
  };
  t.same(parseCli(['--http', '8080'], {}).http, { port: 8080, host: '127.0.0.1', ...defaults });
  t.same(parseCli(['--http', '0', '--host', '::1', '--auth-token', 't'], {}).http, {
    port: 0,
    host: '::1',
    authToken: 't',
    authTokenFrom: 'flag',
    ...defaults,
  });
  t.same(parseCli(['--http', '1', '--host', '0.0.0.0'], { MCPMUX_AUTH_TOKEN: 'env-token' }).http, {
    port: 1,
    host: '0.0.0.0',
    authToken: 'env-token',
    authTokenFrom: 'env',
    ...defaults,
  });
  const tokenFile = join(mkdtempSync(join(tmpdir(), 'mcpmux-token-')), 'token');
  writeFileSync(tokenFile, 'file-token\nignored second line\n', { mode: 0o600 });
  t.match(parseCli(['--http', '1', '--host', '0.0.0.0', '--auth-token-file', tokenFile], {}).http, {
    authToken: 'file-token',
    authTokenFrom: 'file',
  });
  t.throws(
    () => parseCli(['--http', '1', '--auth-token-file', tokenFile, '--auth-token', 'x'], {}),
    /give --auth-token-file or --auth-token, not both/,
  );
  t.throws(
    () => parseCli(['--http', '1', '--auth-token-file', `${tokenFile}.missing`], {}),
    /--auth-token-file .*token\.missing cannot be read \(ENOENT\)/,
  );
  t.throws(
    () => parseCli(['--http', '1', '--host', '0.0.0.0'], {}),
    /refusing to serve on 0\.0\.0\.0 without --auth-token-file FILE/,
  );
  t.throws(() => parseCli(['--http', 'web'], {}), /--http must be a port number/);
  t.throws(() => parseCli(['--host', '127.0.0.1'], {}), /^--host goes with --http PORT$/);
  t.throws(
    () => parseCli(['--max-sessions', '3', '--allowed-host', 'x'], {}),
    /^--allowed-host, --max-sessions go with --http PORT$/,
  );
  t.match(
    parseCli(
      [
        '--http',
        '1',
        '--allowed-host',
        'mux.example.com',
        '--allowed-host',
        'proxy:8443',
        '--allowed-origin',
        'https://app.example.com',
        '--session-idle-timeout',
        '90',
        '--max-sessions',
        '7',
      ],
      {},
    ).http,
    {
      allowedHosts: ['mux.example.com', 'proxy:8443'],
      allowedOrigins: ['https://app.example.com'],
      sessionIdleTimeoutMs: 90_000,
      maxSessions: 7,
    },
  );
  t.equal(
    parseCli(['--http', '1', '--session-idle-timeout', '0'], {}).http?.sessionIdleTimeoutMs,
    0,
    '0: never',
  );
  t.throws(() => parseCli(['--http', '1', '--max-sessions', '0'], {}), /--max-sessions must be at least 1/);
  t.throws(
    () => parseCli(['--http', '1', '--session-idle-timeout', 'soon'], {}),
    /--session-idle-timeout must be a number of seconds/,
  );
  t.throws(
    () => parseCli(['--http', '1', '--allowed-origin', 'http://'], {}),
    /--allowed-origin takes a host name \(app\.example\.com\) or an origin/,
  );
  t.throws(() => parseCli(['inspect', '--http', '1'], {}), /--http goes with serving, not with inspect/);
});

t.test('--expose and --active-pool', async (t) => {
  t.match(parseCli([], {}), { expose: 'all', activePoolSize: 15 });
  t.match(parseCli(['--expose', 'search', '--active-pool', '5'], {}), {
    expose: 'search',
    activePoolSize: 5,
  });
  t.match(parseCli(['--expose', 'code'], {}), { expose: 'code' });
  t.throws(() => parseCli(['--expose', 'some'], {}), /--expose must be all, search, code or agent/);
  t.throws(() => parseCli(['--active-pool', '0'], {}), /--active-pool must be at least 1/);
});

t.test('auth NAME [--logout]', async (t) => {
  t.match(parseCli(['auth', 'github', '--config', 'f.json'], {}), {
    command: 'auth',
    auth: { server: 'github', logout: false },
    configPath: 'f.json',
  });
  t.match(parseCli(['auth', '--logout', 'github'], {}), { auth: { server: 'github', logout: true } });
  t.throws(
    () => parseCli(['auth'], {}),
    /auth takes one server: mcpmux auth \[--logout\] NAME --config FILE/,
  );
  t.throws(() => parseCli(['auth', 'a', 'b'], {}), /auth takes one server/);
  t.throws(() => parseCli(['--logout'], {}), /--logout goes with auth/);
});

t.test('--search-ranker', async (t) => {
  t.match(parseCli([], {}), { searchRanker: 'auto' });
  for (const choice of ['auto', 'bm25', 'semantic'])
    t.match(parseCli(['--search-ranker', choice], {}), { searchRanker: choice });
  t.throws(
    () => parseCli(['--search-ranker', 'vectors'], {}),
    /--search-ranker must be auto, bm25 or semantic/,
  );
});

t.test('--code-memory and --code-max-calls', async (t) => {
  t.match(parseCli([], {}), { codeMemoryMb: 128, codeMaxToolCalls: 200 });
  t.match(parseCli(['--expose', 'code', '--code-memory', '64', '--code-max-calls', '10'], {}), {
    codeMemoryMb: 64,
    codeMaxToolCalls: 10,
  });
  t.throws(() => parseCli(['--code-memory', '4'], {}), /--code-memory must be at least 8 \(MB\)/);
  t.throws(() => parseCli(['--code-max-calls', 'many'], {}), /--code-max-calls must be a whole number/);
});

t.test('--max-message-bytes', async (t) => {
  t.equal(parseCli([], {}).maxMessageBytes, 16 * 1024 * 1024);
  t.equal(parseCli(['--max-message-bytes', '65536'], {}).maxMessageBytes, 65_536);
  t.throws(() => parseCli(['--max-message-bytes', '10'], {}), /--max-message-bytes must be at least 4096/);
});

t.test('--max-result-bytes', async (t) => {
  t.equal(parseCli([], {}).maxResultBytes, 16_384);
  t.equal(parseCli(['--max-result-bytes', '0'], {}).maxResultBytes, 0);
  t.throws(() => parseCli(['--max-result-bytes', '10'], {}), /must be 0 \(never cut\) or at least 1024/);
});

t.test('agent flags: defaults, the key from the environment only, and their mistakes', async (t) => {
  t.same(parseCli([], {}).agent, {
    provider: 'auto',
    model: 'claude-sonnet-4-5',
    maxToolCalls: 100,
    timeoutMs: 1_800_000,
    concurrency: 4,
  });
  t.same(
    parseCli(
      [
        '--agent-provider',
        'anthropic',
        '--agent-model',
        'claude-x',
        '--agent-dir',
        '/tmp/a',
        '--agent-max-tool-calls',
        '7',
        '--agent-timeout',
        '60',
        '--agent-concurrency',
        '2',
      ],
      { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'https://gw.example.com' },
    ).agent,
    {
      provider: 'anthropic',
      apiKey: 'k',
      model: 'claude-x',
      baseUrl: 'https://gw.example.com',
      dir: '/tmp/a',
      maxToolCalls: 7,
      timeoutMs: 60_000,
      concurrency: 2,
    },
  );
  t.equal(parseCli([], { ANTHROPIC_MODEL: 'claude-env' }).agent.model, 'claude-env');
  t.equal(parseCli(['--expose', 'agent'], {}).expose, 'agent');
  const cases: Array<[string[], RegExp]> = [
    [['--agent-provider', 'openai'], /--agent-provider must be auto, sampling or anthropic/],
    [['--agent-provider', 'anthropic'], /needs the API key in the environment variable ANTHROPIC_API_KEY/],
    [['--agent-max-tool-calls', '0'], /--agent-max-tool-calls must be at least 1/],
    [['--agent-timeout', 'soon'], /--agent-timeout must be a number of seconds/],
    [['--agent-concurrency', '1.5'], /--agent-concurrency must be a whole number/],
    [['--agent-base-url', 'not a url'], /--agent-base-url must be a URL/],
  ];
  for (const [argv, message] of cases)
    t.throws(() => parseCli(argv, {}), { name: 'CliError', message }, argv.join(' '));
});

t.test('--sandbox alone is added; it takes added, all or off; default off', async (t) => {
  t.equal(parseCli([], {}).sandbox, 'off');
  t.equal(parseCli(['--sandbox'], {}).sandbox, 'added');
  t.equal(parseCli(['--sandbox', 'all'], {}).sandbox, 'all');
  t.equal(parseCli(['--sandbox=off'], {}).sandbox, 'off');
  const inline = parseCli(['--sandbox', '--', 'memory', 'npx', '-y', 'x'], {});
  t.equal(inline.sandbox, 'added', 'a bare --sandbox before the servers');
  t.equal(inline.inline[0]?.name, 'memory');
  t.same(
    parseCli(['--', 'probe', 'node', '--sandbox'], {}).inline[0]?.spec,
    { transport: 'stdio', command: 'node', args: ['--sandbox'], env: {} },
    "a server's own --sandbox is its argument",
  );
  t.throws(
    () => parseCli(['--sandbox=everything'], {}),
    new CliError('--sandbox must be added, all or off (--sandbox alone: added)'),
  );
});

t.test(
  '--redis makes a replica: its cluster, its name, the state key; its flags alone are refused',
  async (t) => {
    const key = { MCPMUX_STATE_KEY: 'k'.repeat(44) };
    t.equal(parseCli(['--http', '0'], key).cluster, undefined, 'no --redis: one mcpmux on its own');
    const replica = parseCli(
      ['--http', '0', '--redis', 'redis://redis:6379', '--replica', 'pod-1'],
      key,
    ).cluster!;
    t.same(replica, {
      redisUrl: 'redis://redis:6379',
      name: 'mcpmux',
      replica: 'pod-1',
      stateKey: 'k'.repeat(44),
    });
    const fromEnv = parseCli(['--http', '0', '--cluster', 'team'], {
      ...key,
      MCPMUX_REDIS_URL: 'rediss://r:6380',
    });
    t.equal(fromEnv.cluster!.redisUrl, 'rediss://r:6380');
    t.equal(fromEnv.cluster!.name, 'team');
    t.match(fromEnv.cluster!.replica, /^[A-Za-z0-9][A-Za-z0-9._-]*-\d+$/, 'a default name: host and pid');
    t.throws(() => parseCli(['--http', '0', '--cluster', 'team'], key), /--cluster go with --redis URL/);
    t.throws(() => parseCli(['--redis', 'redis://r'], key), /give --http PORT too/);
    t.throws(
      () => parseCli(['--http', '0', '--redis', 'r:6379'], key),
      /must be a redis:\/\/ or rediss:\/\/ URL/,
    );
    t.throws(() => parseCli(['--http', '0', '--redis', 'redis://r'], {}), /a cluster needs MCPMUX_STATE_KEY/);
    t.throws(
      () => parseCli(['--http', '0', '--redis', 'redis://r'], { MCPMUX_STATE_KEY: 'short' }),
      /has 5 characters; it needs at least 32/,
    );
    t.throws(
      () => parseCli(['--http', '0', '--redis', 'redis://r', '--replica', 'a b'], key),
      /--replica 'a b' must be letters, digits/,
    );
  },
);
