// The spawn policy: which commands add_server may run, what environment and cwd children
// get, and the audit line of each spawn. Unit checks first, then through a real mcpmux with
// real children.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import t from 'tap';
import { createLogger } from '../../src/common/log.js';
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio';
import { INHERITED_ENV_VARS, SpawnPolicy, type SpawnPolicyOptions } from '../../src/policy/spawn-policy.js';
import type { StdioServerSpec } from '../../src/child/server-spec.js';
import { fixture, fixturePath, npmServerPath } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { LEAK_TAG_VAR, taggedEnv } from '../helpers/processes.js';

const logger = createLogger({ level: 'error', sink: () => {} });
const spec = (command: string, extra: Partial<StdioServerSpec> = {}): StdioServerSpec => ({
  transport: 'stdio',
  command,
  args: [],
  env: {},
  ...extra,
});
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-policy-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

// A directory of look-alikes: a script named like an allowed program, a symlink to the real one.
const ownPath = `${dirname(process.execPath)}${delimiter}/usr/bin${delimiter}/bin`;
const lookalikes = join(scratch, 'bin');
mkdirSync(lookalikes, { recursive: true });
writeFileSync(join(lookalikes, 'node'), '#!/bin/sh\necho pwned\n', { mode: 0o755 });
const linked = join(scratch, 'linked');
mkdirSync(linked, { recursive: true });
symlinkSync(process.execPath, join(linked, 'node'));
const allowedOf = (allowCommands: string[], extra: Partial<SpawnPolicyOptions> = {}) =>
  new SpawnPolicy({ allowCommands, environment: { PATH: ownPath }, cwd: scratch, logger, ...extra });

t.test("the variables a child inherits by default are the SDK's", async (t) => {
  t.same(INHERITED_ENV_VARS, DEFAULT_INHERITED_ENV_VARS);
});

t.test('--allow-command judges the file that will run, not the name that was typed', async (t) => {
  const policy = allowedOf(['node']);
  const admitted = policy.admitRuntimeAdd('a', spec('node'));
  t.equal(admitted.command, process.execPath, 'the admitted spec runs the absolute path that was judged');
  t.doesNotThrow(() => policy.admitRuntimeAdd('b', spec(process.execPath)), 'the same file by its path');
  t.throws(
    () => policy.admitRuntimeAdd('c', spec(join(lookalikes, 'node'))),
    { code: 'NOT_ALLOWED', message: /'.*\/bin\/node' is not allowed by --allow-command \(allowed: node\)/ },
    'a look-alike named node',
  );
  t.doesNotThrow(
    () => policy.admitRuntimeAdd('d', spec(join(linked, 'node'))),
    'a symlink to the allowed file',
  );
  t.throws(
    () => policy.admitRuntimeAdd('e', spec('./bin/node')),
    { code: 'NOT_ALLOWED' },
    'a relative path resolves against the cwd: the look-alike',
  );
  t.throws(
    () => policy.admitRuntimeAdd('f', spec('./bin/node', { cwd: scratch })),
    { code: 'NOT_ALLOWED' },
    "against the server's own cwd as well",
  );
  t.throws(
    () => policy.admitRuntimeAdd('g', spec('node', { env: { PATH: lookalikes } })),
    { code: 'NOT_ALLOWED', message: /its env sets PATH \(it changes where programs are found\)/ },
    "a PATH of the server's own is refused under a policy",
  );
  const withPath = allowedOf(['node'], { allowEnv: ['PATH'] });
  t.throws(
    () => withPath.admitRuntimeAdd('g2', spec('node', { env: { PATH: lookalikes } })),
    { code: 'NOT_ALLOWED', message: /it runs .*bin\/node/ },
    "with PATH admitted, the server's own PATH finds the look-alike, which is judged",
  );
  t.doesNotThrow(
    () => withPath.admitRuntimeAdd('h', spec('node', { env: { PATH: linked } })),
    "a PATH of the server's own that finds the allowed file",
  );
  t.throws(() => policy.admitRuntimeAdd('i', spec('no-such-program-here')), {
    code: 'NOT_ALLOWED',
    message: /no executable file 'no-such-program-here' on the server's PATH/,
  });
  t.throws(() => policy.admitRuntimeAdd('j', spec('sh')), { code: 'NOT_ALLOWED' }, 'another program');
  t.throws(
    () => policy.admitRuntimeAdd('k', { transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: {} }),
    { code: 'NOT_ALLOWED', message: /remote server 'k' refused/ },
  );
  t.doesNotThrow(
    () => new SpawnPolicy({ logger }).admitRuntimeAdd('l', spec('anything')),
    'no patterns: anything',
  );
});

t.test(
  'under --allow-command, variables that change what a program loads are refused unless --allow-env admits them',
  async (t) => {
    const policy = allowedOf(['node']);
    for (const variable of [
      'NODE_OPTIONS',
      'node_options',
      'LD_PRELOAD',
      'DYLD_INSERT_LIBRARIES',
      'npm_config_registry',
      'NPM_CONFIG_USERCONFIG',
      'UV_INDEX_URL',
      'PIP_EXTRA_INDEX_URL',
      'PYTHONPATH',
      'BASH_ENV',
      'BASH_FUNC_ls%%',
      'JAVA_TOOL_OPTIONS',
      'DOCKER_HOST',
      'GIT_SSH_COMMAND',
      'HOME',
    ])
      t.throws(
        () => policy.admitRuntimeAdd('a', spec('node', { env: { [variable]: 'x' } })),
        {
          code: 'NOT_ALLOWED',
          message: new RegExp(`its env sets ${variable.replace(/[%$]/g, '\\$&')} \\(.*--allow-env NAME`),
        },
        variable,
      );
    t.throws(
      () =>
        policy.admitRuntimeAdd('b', {
          ...spec('node', { env: { NODE_OPTIONS: 'x', API_KEY: 'secret-value' } }),
          registryEntry: 'io.github.x/y',
        }),
      {
        code: 'NOT_ALLOWED',
        message:
          /^server 'b' is not allowed: registry entry 'io.github.x\/y' sets NODE_OPTIONS \(Node.js loads code through it\),/,
      },
    );
    t.notMatch(
      (() => {
        try {
          policy.admitRuntimeAdd('c', spec('node', { env: { NODE_OPTIONS: 'secret-value' } }));
        } catch (error) {
          return (error as Error).message;
        }
        return '';
      })(),
      /secret-value/,
      'no value is shown',
    );
    t.doesNotThrow(
      () =>
        policy.admitRuntimeAdd(
          'd',
          spec('node', { env: { API_KEY: 'x', NODE_ENV: 'production', LOG_LEVEL: 'debug' } }),
        ),
      'variables outside the family pass',
    );
    t.doesNotThrow(
      () =>
        allowedOf(['node'], { allowEnv: ['NODE_*'] }).admitRuntimeAdd(
          'e',
          spec('node', { env: { NODE_OPTIONS: 'x' } }),
        ),
      '--allow-env admits by glob',
    );
    t.doesNotThrow(
      () => new SpawnPolicy({ logger }).admitRuntimeAdd('f', spec('node', { env: { NODE_OPTIONS: 'x' } })),
      'without a policy nothing changes',
    );
  },
);

t.test(
  "a runner's package is judged as a package: its name and version, and where it comes from",
  async (t) => {
    // uvx, pipx, bunx and docker as files on mcpmux's PATH (npx is the real one, beside node).
    const runners = join(scratch, 'runners');
    mkdirSync(runners, { recursive: true });
    for (const name of ['uvx', 'pipx', 'bunx', 'docker'])
      writeFileSync(join(runners, name), '#!/bin/sh\n', { mode: 0o755 });
    const policy = new SpawnPolicy({
      allowCommands: [
        'npx -y @modelcontextprotocol/*',
        'npx -y exact-server',
        `npx -y ${scratch}/local-servers/* ...`,
        'bunx @modelcontextprotocol/*',
        'uvx mcp-server-*',
        'pipx run mcp-server-*',
        'docker run -i --rm ...',
        'docker run -i --rm --network=host ...',
      ],
      environment: { PATH: `${ownPath}${delimiter}${runners}` },
      cwd: scratch,
      logger,
    });
    const admits = (command: string, ...args: string[]) =>
      policy.admitRuntimeAdd('x', spec(command, { args }));
    for (const args of [
      ['-y', '@modelcontextprotocol/server-memory'],
      ['-y', '@modelcontextprotocol/server-memory@2026.8.31'],
      ['-y', '@modelcontextprotocol/server-memory@^2026'],
      ['-y', '@modelcontextprotocol/server-memory@latest'],
      ['-y', 'exact-server@1.0.0'],
      ['-y', `${scratch}/local-servers/mine`, '--port=1'],
    ])
      t.doesNotThrow(() => admits('npx', ...args), `npx ${args.join(' ')}`);
    t.doesNotThrow(() => admits('bunx', '@modelcontextprotocol/server-memory@1.0.0'));
    t.doesNotThrow(() => admits('uvx', 'mcp-server-time==0.6.2'));
    t.doesNotThrow(() => admits('uvx', 'mcp-server-time@latest'));
    t.doesNotThrow(() => admits('pipx', 'run', 'mcp-server-time'));
    t.doesNotThrow(() => admits('docker', 'run', '-i', '--rm', '-e', 'KEY', 'ghcr.io/x/y:1'));
    t.doesNotThrow(
      () => admits('docker', 'run', '-i', '--rm', '--network=host', 'ghcr.io/x/y:1'),
      'named by a pattern',
    );

    const refusals: [string, string[], RegExp][] = [
      [
        'npx',
        ['-y', '@modelcontextprotocol/x@file:localdir'],
        /a local folder or file, not a package from the registry/,
      ],
      ['npx', ['-y', '@modelcontextprotocol/x@x-1.0.0.tgz'], /a local folder or file/],
      ['npx', ['-y', '@modelcontextprotocol/x@npm:other'], /an alias of another package/],
      ['npx', ['-y', '@modelcontextprotocol/x@git+https://host/x.git'], /a git repository/],
      ['npx', ['-y', '@modelcontextprotocol/x@https://host/x.tgz'], /a download from a URL/],
      ['npx', ['-y', '@modelcontextprotocol/x@github:o/r'], /a git repository/],
      ['npx', ['-y', 'exact-server-evil'], /is not allowed by --allow-command/],
      ['npx', ['-y', 'exact-server@file:../x'], /a local folder or file/],
      ['npx', ['-y', './elsewhere/mine'], /a local folder or file/],
      ['bunx', ['@modelcontextprotocol/x@file:dir'], /a local folder or file/],
      ['uvx', ['mcp-server-x @ https://host/x.whl'], /is not allowed/],
      ['uvx', ['--from', 'git+https://host/x', 'mcp-server-x'], /is not allowed/],
      [
        'uvx',
        ['--index-url=https://evil', 'mcp-server-x'],
        /--index-url \(it changes where the package comes from/,
      ],
      ['uvx', ['./mcp-server-local'], /is not allowed/],
      ['pipx', ['run', '--spec', './dir', 'mcp-server-x'], /is not allowed/],
      [
        'docker',
        ['run', '-i', '--rm', '--privileged', 'img'],
        /--privileged \(it gives the container every device/,
      ],
      ['docker', ['run', '-i', '--rm', '-v', '/:/host', 'img'], /-v \(it mounts a host path/],
      ['docker', ['run', '-i', '--rm', '-v/:/host', 'img'], /-v \(it mounts a host path/],
      ['docker', ['run', '-itv/:/host', '--rm', 'img'], /-v \(it mounts a host path/],
      ['docker', ['run', '-i', '--rm', '--volume=/:/host', 'img'], /--volume \(it mounts/],
      ['docker', ['run', '-i', '--rm', '--privileged=true', 'img'], /--privileged/],
      ['docker', ['run', '-i', '--rm', '--pid=host', 'img'], /--pid \(it shares the host's process table/],
      ['docker', ['run', '-i', '--rm', '--cap-add', 'SYS_ADMIN', 'img'], /--cap-add/],
      [
        'docker',
        ['run', '-i', '--rm', '--network', 'host', 'img'],
        /--network \(it shares the host's network/,
      ],
    ];
    for (const [command, args, message] of refusals)
      t.throws(
        () => admits(command, ...args),
        { code: 'NOT_ALLOWED', message },
        `${command} ${args.join(' ')}`,
      );
    t.throws(
      () => allowedOf(['npx']).admitRuntimeAdd('y', spec('npx', { args: ['-c', 'touch /tmp/x'] })),
      {
        message: /-c \(it runs a shell command\)/,
      },
      'even a pattern with free arguments does not take npx -c',
    );
    t.throws(
      () =>
        allowedOf(['npx']).admitRuntimeAdd('z', spec('npx', { args: ['--registry=https://evil', 'pkg'] })),
      { message: /--registry \(it is one of npm's settings/ },
    );
  },
);

t.test(
  '--allow-command path patterns match the real file; a symlink out of an allowed directory does not count',
  async (t) => {
    const servers = join(scratch, 'servers');
    mkdirSync(join(servers, 'x'), { recursive: true });
    writeFileSync(join(servers, 'x', 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync(join(lookalikes, 'node'), join(servers, 'escape'));
    const policy = allowedOf([`${servers}/**`]);
    t.doesNotThrow(() => policy.admitRuntimeAdd('a', spec(join(servers, 'x', 'run.sh'))));
    t.doesNotThrow(() => policy.admitRuntimeAdd('b', spec('./servers/x/run.sh')), 'relative to the cwd');
    t.throws(() => policy.admitRuntimeAdd('c', spec(join(servers, 'escape'))), {
      code: 'NOT_ALLOWED',
      message: /it runs .*bin\/node/,
    });
    t.throws(
      () => policy.admitRuntimeAdd('d', spec(join(servers, 'x', '..', '..', 'bin', 'node'))),
      { code: 'NOT_ALLOWED' },
      '.. does not climb out',
    );
  },
);

t.test('--allow-command argument patterns', async (t) => {
  const mcp = join(scratch, 'mcp');
  mkdirSync(mcp, { recursive: true });
  writeFileSync(join(mcp, 'server.js'), '');
  writeFileSync(join(scratch, 'evil.js'), '');
  symlinkSync(join(scratch, 'evil.js'), join(mcp, 'sneaky.js'));
  const policy = allowedOf(['npx -y @modelcontextprotocol/*', `node ${mcp}/**`, `node ${mcp}/tools/* ...`]);
  t.doesNotThrow(() =>
    policy.admitRuntimeAdd('a', spec('npx', { args: ['-y', '@modelcontextprotocol/server-memory'] })),
  );
  t.throws(() => policy.admitRuntimeAdd('b', spec('npx', { args: ['-y', 'evil-package'] })), {
    code: 'NOT_ALLOWED',
    message:
      /^command 'npx -y evil-package' \(it runs \/.*npx.*\) is not allowed by --allow-command \(allowed: npx -y @modelcontextprotocol\/\*, /ms,
  });
  t.throws(
    () =>
      policy.admitRuntimeAdd(
        'c',
        spec('npx', { args: ['-y', '--package=evil', '@modelcontextprotocol/server-memory'] }),
      ),
    { code: 'NOT_ALLOWED' },
    'an extra argument',
  );
  t.throws(
    () => policy.admitRuntimeAdd('d', spec('npx', { args: ['-y', '@modelcontextprotocol/..'] })),
    { code: 'NOT_ALLOWED' },
    '* matches no dot name',
  );
  t.throws(
    () => policy.admitRuntimeAdd('e', spec('npx', { args: ['-y'] })),
    { code: 'NOT_ALLOWED' },
    'a missing argument',
  );
  t.doesNotThrow(() => policy.admitRuntimeAdd('f', spec('node', { args: [join(mcp, 'server.js')] })));
  t.doesNotThrow(
    () => policy.admitRuntimeAdd('g', spec('node', { args: ['server.js'], cwd: mcp })),
    'a path argument resolves against the cwd',
  );
  t.throws(
    () => policy.admitRuntimeAdd('h', spec('node', { args: ['-e', 'process.exit(3)'] })),
    { code: 'NOT_ALLOWED' },
    'an interpreter flag',
  );
  t.throws(() => policy.admitRuntimeAdd('i', spec('node', { args: [join(mcp, '..', 'evil.js')] })), {
    code: 'NOT_ALLOWED',
  });
  t.throws(
    () => policy.admitRuntimeAdd('j', spec('node', { args: [join(mcp, 'sneaky.js')] })),
    { code: 'NOT_ALLOWED' },
    'a symlink out of the directory',
  );
  t.throws(
    () => policy.admitRuntimeAdd('k', spec('node', { args: [join(mcp, 'server.js'), '--flag'] })),
    { code: 'NOT_ALLOWED' },
    'exact arity without ...',
  );
  mkdirSync(join(mcp, 'tools'), { recursive: true });
  writeFileSync(join(mcp, 'tools', 't.js'), '');
  t.doesNotThrow(
    () => policy.admitRuntimeAdd('l', spec('node', { args: [join(mcp, 'tools', 't.js'), '--flag', 'x'] })),
    '... allows more',
  );
  t.throws(
    () => policy.admitRuntimeAdd('m', spec(join(lookalikes, 'node'), { args: [join(mcp, 'server.js')] })),
    { code: 'NOT_ALLOWED' },
    'the arguments do not excuse the program',
  );
});

t.test('--allow-command: a build command is judged too; names not on the PATH are reported', async (t) => {
  const warnings: string[] = [];
  const policy = allowedOf(['node', 'no-such-tool-anywhere'], {
    logger: createLogger({ level: 'warn', sink: (l) => warnings.push(l) }),
  });
  t.match(warnings, [
    /--allow-command "no-such-tool-anywhere": 'no-such-tool-anywhere' is not on mcpmux's PATH, so this pattern allows nothing/,
  ]);
  const watch = { paths: ['*.js'], debounceMs: 10 };
  t.throws(
    () =>
      policy.admitRuntimeAdd(
        'a',
        spec('node', { watch: { ...watch, build: { command: 'sh', args: ['-c', 'id'] } } }),
      ),
    { code: 'NOT_ALLOWED', message: /^build command 'sh -c id'/ },
  );
  const admitted = policy.admitRuntimeAdd(
    'b',
    spec('node', { watch: { ...watch, build: { command: 'node', args: ['build.js'] } } }),
  );
  t.equal(admitted.watch?.build?.command, process.execPath);
  const globbed = allowedOf(['nod*']);
  t.doesNotThrow(() => globbed.admitRuntimeAdd('c', spec('node')), 'a name glob finds the files on the PATH');
  t.throws(() => globbed.admitRuntimeAdd('d', spec(join(lookalikes, 'node'))), { code: 'NOT_ALLOWED' });
});

t.test('--no-runtime-add refuses every add_server', async (t) => {
  const policy = new SpawnPolicy({ runtimeAdd: false, logger });
  t.throws(() => policy.admitRuntimeAdd('x', spec('node')), {
    code: 'NOT_ALLOWED',
    message: /--no-runtime-add/,
  });
});

t.test("children's environment: minimal by default, named extras, or everything when asked", async (t) => {
  const environment = {
    PATH: '/bin',
    HOME: '/home/u',
    AWS_SECRET_ACCESS_KEY: 'secret',
    EXTRA: 'x',
    BASH_FUNC_f: '() { :; }',
  };
  t.same(new SpawnPolicy({ environment, logger }).baseEnv, { PATH: '/bin', HOME: '/home/u' });
  t.same(new SpawnPolicy({ environment, passEnv: ['EXTRA'], logger }).baseEnv, {
    PATH: '/bin',
    HOME: '/home/u',
    EXTRA: 'x',
  });
  t.same(new SpawnPolicy({ environment, inheritEnv: true, logger }).baseEnv, environment);
});

t.test('--root confines cwd and is the default cwd', async (t) => {
  const root = join(scratch, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
  const policy = new SpawnPolicy({ root, logger });
  t.equal(policy.workingDirectory('a', spec('node')), root);
  t.equal(
    policy.workingDirectory('a', spec('node', { cwd: 'sub' })),
    join(root, 'sub'),
    'relative to the root',
  );
  t.equal(policy.workingDirectory('a', spec('node', { cwd: join(root, 'sub') })), join(root, 'sub'));
  t.throws(() => policy.workingDirectory('a', spec('node', { cwd: '..' })), {
    code: 'NOT_ALLOWED',
    message: /cwd '\.\.' is outside --root/,
  });
  t.throws(() => policy.workingDirectory('a', spec('node', { cwd: '/etc' })), { code: 'NOT_ALLOWED' });
});

t.test(
  'through mcpmux: a refused command leaves nothing behind, and the message names the policy',
  async (t) => {
    const h = await startHarness(t, { policy: { allowCommands: ['npx'] } });
    const result = await h.call('add_server', { name: 'e', ...fixture('echo-v1') });
    t.ok(result.isError);
    t.match(
      textOf(result),
      /^command '.*node .*echo-v1\.js' is not allowed by --allow-command \(allowed: npx\) \[NOT_ALLOWED\]/,
    );
    t.same((await h.callJson('list_servers')).servers, []);
    await h.close();
  },
);

t.test(
  'through mcpmux: a look-alike never runs; a symlink to the allowed program runs, audited with the real path',
  async (t) => {
    const h = await startHarness(t, {
      policy: { allowCommands: ['node'], environment: { ...taggedEnv(), PATH: ownPath } },
    });
    const refused = await h.call('add_server', {
      name: 'fake',
      command: join(lookalikes, 'node'),
      args: [fixturePath('echo-v1')],
    });
    t.match(textOf(refused), /is not allowed by --allow-command \(allowed: node\) \[NOT_ALLOWED\]/);
    const shadowed = await h.call('add_server', {
      name: 'shadow',
      command: 'node',
      args: [fixturePath('echo-v1')],
      env: { PATH: lookalikes },
    });
    t.match(
      textOf(shadowed),
      /its env sets PATH \(it changes where programs are found\).*\[NOT_ALLOWED\]/,
      "a PATH in the server's env does not shadow the allowed program",
    );
    t.notOk(
      h.logs.some((l) => l.includes('audit: spawn server=fake') || l.includes('audit: spawn server=shadow')),
      'nothing was spawned',
    );
    const added = await h.callJson('add_server', {
      name: 'viaLink',
      command: join(linked, 'node'),
      args: [fixturePath('echo-v1')],
    });
    t.equal(added.server.status, 'running');
    t.equal(added.server.command, join(linked, 'node'), 'the path that was judged is the one spawned');
    t.match(
      h.logs.find((l) => l.includes('audit: spawn server=viaLink')),
      `path=${JSON.stringify(process.execPath)}`,
    );
    await h.close();
  },
);

t.test(
  'through mcpmux: a child does not see a secret of our environment unless passed; each spawn is audited without env values',
  async (t) => {
    const environment = { ...taggedEnv(), MCPMUX_TEST_SECRET: 'hunter2' };
    const everything = {
      command: process.execPath,
      args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
    };

    // The whole environment must come back: a large one would be cut at the result size and hide the secret.
    const mux = { maxResultBytes: 0 };
    const strict = await startHarness(t, {
      mux,
      policy: { inheritEnv: false, passEnv: [LEAK_TAG_VAR], environment },
    });
    await strict.callJson('add_server', { name: 'ev', ...everything, env: { API_KEY: 'k-123' } });
    const env = textOf(await strict.call('ev__get-env'));
    t.notMatch(env, /MCPMUX_TEST_SECRET|hunter2/, 'the secret stays with mcpmux');
    t.match(env, /"PATH"/, 'PATH is passed');
    t.match(env, /"API_KEY": "k-123"/, "the server's own env is given");
    const audit = strict.logs.filter((l) => l.startsWith('mcpmux audit: spawn server=ev '));
    t.equal(audit.length, 1, 'one audit line per spawn');
    t.match(
      audit[0],
      /pid=\d+ command=".*node.*" path=".*node.*" args=\[.*server-everything.*\] env=API_KEY$/,
    );
    t.notMatch(audit[0], /k-123/, 'no env value in the audit line');
    await strict.close();

    const open = await startHarness(t, { mux, policy: { inheritEnv: true, environment } });
    await open.callJson('add_server', { name: 'ev', ...everything });
    t.match(textOf(await open.call('ev__get-env')), /MCPMUX_TEST_SECRET/, '--inherit-env passes everything');
    await open.close();
  },
);

t.test('through mcpmux: a cwd outside --root is refused before anything runs', async (t) => {
  const root = join(scratch, 'jail');
  mkdirSync(root, { recursive: true });
  const h = await startHarness(t, { policy: { root } });
  const result = await h.call('add_server', { name: 'e', ...fixture('echo-v1'), cwd: '/' });
  t.match(textOf(result), /cwd '\/' is outside --root .*\[NOT_ALLOWED\]/);
  t.same((await h.callJson('list_servers')).servers, []);
  t.notOk(
    h.logs.some((l) => l.includes('audit: spawn server=e ')),
    'nothing was spawned',
  );
  await h.close();
});
