// The built mcpmux (dist/main.js) started as a user's client starts it, driven by the SDK
// client over its real stdio, with real servers from npm as children. Every byte it
// writes on stdout must be JSON-RPC, and nothing it started may outlive it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { DIST_MAIN, ROOT, fixture, fixturePath, npmServerPath } from '../helpers/fixtures.js';
import { serverStatus, startMcpmux, text } from '../helpers/mcpmux-process.js';
import {
  assertNoLeaks,
  isAlive,
  killTaggedProcesses,
  matchLogged,
  taggedEnv,
  waitFor,
} from '../helpers/processes.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-e2e-'));
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

/** A config whose server `slow` starts only once the file `gate` exists, beside `others`. */
function slowStartConfig(file: string, gate: string, others: Record<string, unknown> = {}): string {
  const config = join(scratch, file);
  const slow = { ...fixture('slow-start'), env: { SLOW_START_GATE: gate } };
  writeFileSync(config, JSON.stringify({ mcpServers: { slow, ...others } }));
  return config;
}

/** A task in a user's words that needs the kubernetes server's tools, never naming them. */
const CLUSTER_TASK =
  'Our web service keeps restarting in the cluster since this morning and customers are complaining. ' +
  'Could you look at what the failing pods printed before they died and tell me what is going on?';

t.test('a session with server-memory and server-everything added at run time', async (t) => {
  const s = await startMcpmux();
  const memory = await s.json('add_server', {
    name: 'memory',
    command: process.execPath,
    args: [npmServerPath('@modelcontextprotocol/server-memory')],
    env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
  });
  t.ok(memory.tools.some((x: { name: string }) => x.name === 'memory__create_entities'));
  await s.json('add_server', {
    name: 'everything',
    command: process.execPath,
    args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
  });
  t.ok(await waitFor(() => s.listChanged() > 0), 'list_changed arrived');

  await s.call('memory__create_entities', {
    entities: [{ name: 'mux', entityType: 'project', observations: ['multiplexes'] }],
  });
  t.match(text(await s.call('memory__read_graph')), /multiplexes/);
  t.match(text(await s.call('everything__echo', { message: 'side by side' })), /side by side/);

  const memPid = (await serverStatus(s, 'memory')).pid;
  process.kill(memPid, 'SIGKILL');
  t.ok(
    await waitFor(async () => (await serverStatus(s, 'memory'))?.status === 'crashed'),
    'a killed child is reported crashed',
  );
  t.match(
    text(await s.call('everything__echo', { message: 'still' })),
    /still/,
    'the other child is unaffected',
  );
  const reloaded = await s.json('reload_server', { name: 'memory' });
  t.not(reloaded.server.pid, memPid);
  t.match(
    text(await s.call('memory__read_graph')),
    /multiplexes/,
    'state persisted by the server survives its reload',
  );

  const evPid = (await serverStatus(s, 'everything')).pid;
  await s.json('remove_server', { name: 'everything' });
  t.notOk(isAlive(evPid), 'the removed child is gone');

  const lastPid = reloaded.server.pid;
  await s.client.close(); // closes mcpmux's stdin
  t.same(await s.process.exited, { code: 0, signal: null }, 'mcpmux exits 0 when its stdin closes');
  t.notOk(isAlive(lastPid), 'its children died with it');
  const notJson = s.stdoutLines.filter((line) => {
    try {
      return JSON.parse(line).jsonrpc !== '2.0';
    } catch {
      return true;
    }
  });
  t.same(notJson, [], 'every stdout line is a JSON-RPC message');
  t.ok(s.stdoutLines.length > 10);
  await assertNoLeaks(t);
});

t.test(
  'a server given on the command line is told what the client can do, and the client answers it',
  async (t) => {
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    const s = await startMcpmux(['--', 'ev', process.execPath, everything, 'stdio'], {
      capabilities: { sampling: {} },
      setup: (client) =>
        client.setRequestHandler('sampling/createMessage', async () => ({
          model: 'm',
          role: 'assistant',
          content: { type: 'text', text: 'from the e2e client' },
        })),
    });
    // server-everything lists its sampling tool only to a client that declared sampling.
    t.ok(
      await waitFor(
        async () => (await s.client.listTools()).tools.some((x) => x.name === 'ev__trigger-sampling-request'),
        30_000,
      ),
      'the sampling tool is listed',
    );
    t.match(text(await s.call('ev__trigger-sampling-request', { prompt: 'hello?' })), /from the e2e client/);
    t.same((await s.client.listPrompts()).prompts.map((p) => p.name).sort(), [
      'ev__args-prompt',
      'ev__completable-prompt',
      'ev__resource-prompt',
      'ev__simple-prompt',
    ]);
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test("the config's mcpmux.expose applies unless --expose is given", async (t) => {
  const config = join(scratch, 'expose.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpmux: { expose: 'search' }, mcpServers: { echo: fixture('echo-v1') } }),
  );
  for (const [flags, listsEcho] of [
    [[], false],
    [['--expose', 'all'], true],
  ] as const) {
    const s = await startMcpmux(['--config', config, ...flags]);
    t.ok(await waitFor(async () => (await serverStatus(s, 'echo'))?.status === 'running', 15_000));
    t.equal(
      (await s.client.listTools()).tools.some((x) => x.name === 'echo__echo'),
      listsEcho,
      flags.join(' ') || 'from the config',
    );
    await s.client.close();
    await s.process.exited;
  }
  await assertNoLeaks(t);
});

t.test(
  'search mode with ten servers: a handful of tools listed, the right one found by the task, called, and a huge result read in pieces',
  async (t) => {
    const s = await startMcpmux(['--expose', 'search']);
    const replayed = [
      'github',
      'filesystem',
      'playwright',
      'memory',
      'sentry',
      'slack',
      'kubernetes',
      'notion',
      'tavily',
    ];
    for (const name of replayed)
      await s.json('add_server', { name, ...fixture('catalog-replay'), env: { REPLAY_SERVER: name } });
    await s.json('add_server', { name: 'big', ...fixture('big-result') });
    t.equal((await s.json('list_servers')).servers.length, 10);
    t.same(
      (await s.client.listTools()).tools.map((x) => x.name),
      [
        'add_server',
        'remove_server',
        'reload_server',
        'list_servers',
        'find_servers',
        'search_tools',
        'call_tool',
        'read_result',
      ],
    );

    const found = await s.json('search_tools', { query: 'show the logs of a crashing pod', limit: 3 });
    t.equal(found.tools[0].name, 'kubernetes__kubectl_logs', 'found by describing the task');
    t.ok(found.tools[0].inputSchema.properties.name, 'with the schema to call it');
    t.match(
      text(
        await s.call('call_tool', {
          name: 'kubernetes__kubectl_logs',
          arguments: { resourceType: 'pod', name: 'web-1' },
        }),
      ),
      /kubectl_logs called with .*web-1/,
    );

    // A whole task (BM25, each of its requests searched too).
    const byTask = await s.json('search_tools', { query: CLUSTER_TASK, limit: 5 });
    t.ok(
      byTask.tools.slice(0, 3).some((x: { name: string }) => x.name.startsWith('kubernetes__')),
      `a task finds its server's tools: ${byTask.tools.map((x: { name: string }) => x.name).join(', ')}`,
    );
    t.ok(
      s.stdoutLines.every((line) => line.trim() === '' || JSON.parse(line).jsonrpc === '2.0'),
      'stdout holds the protocol alone, the embeddings read',
    );

    const [lines] = (await s.json('search_tools', { query: 'numbered lines of text', limit: 1 })).tools;
    t.equal(lines.name, 'big__lines');
    const cut = text(await s.call('call_tool', { name: 'big__lines', arguments: { bytes: 2_000_000 } }));
    const handle = /handle "(r-[0-9a-f]+)"/.exec(cut)?.[1];
    t.ok(handle, `the cut result names a handle: ${cut.slice(-300)}`);
    t.ok(cut.length < 20_000, `the reply is cut (${cut.length} chars)`);
    const stat = await s.json('read_result', { handle, mode: 'stat' });
    t.ok(stat.bytes >= 2_000_000, 'the whole result was kept');
    t.match(
      JSON.stringify(await s.json('read_result', { handle, mode: 'grep', pattern: '^line 30000:' })),
      /line 30000: the quick brown fox/,
    );
    t.match(
      JSON.stringify(await s.json('read_result', { handle, mode: 'tail', lines: 1 })),
      /line \d+: the quick/,
    );
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test(
  '--search-ranker semantic: a task is ranked with the distilled embeddings read from dist/',
  async (t) => {
    const s = await startMcpmux(['--expose', 'search', '--search-ranker', 'semantic']);
    for (const name of ['github', 'kubernetes', 'notion'])
      await s.json('add_server', { name, ...fixture('catalog-replay'), env: { REPLAY_SERVER: name } });
    const byTask = await s.json('search_tools', { query: CLUSTER_TASK, limit: 5 });
    t.ok(
      byTask.tools.slice(0, 3).every((x: { name: string }) => x.name.startsWith('kubernetes__')),
      `the task's server fills the top: ${byTask.tools.map((x: { name: string }) => x.name).join(', ')}`,
    );
    t.match(
      (await s.json('search_tools', { query: 'logs of a pod', limit: 1 })).tools[0],
      { name: 'kubernetes__kubectl_logs' },
      'a few words typed by hand: BM25 alone',
    );
    t.ok(
      s.stdoutLines.every((line) => line.trim() === '' || JSON.parse(line).jsonrpc === '2.0'),
      'stdout holds the protocol alone, the embeddings read',
    );
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test(
  'code mode through the built binary: discover, run one program over two servers, survive hostile programs',
  async (t) => {
    const s = await startMcpmux(['--expose', 'code']);
    await s.json('add_server', {
      name: 'memory',
      command: process.execPath,
      args: [npmServerPath('@modelcontextprotocol/server-memory')],
      env: { MEMORY_FILE_PATH: join(scratch, 'code-memory.jsonl') },
    });
    await s.json('add_server', {
      name: 'everything',
      command: process.execPath,
      args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
    });
    t.ok((await s.client.listTools()).tools.some((x) => x.name === 'execute_code'));
    t.same(
      (await s.json('list_modules')).modules.map((m: { server: string }) => m.server),
      ['memory', 'everything'],
    );
    t.match(
      text(await s.call('read_module', { server: 'memory' })),
      /read_graph\(args\?: MemoryReadGraphArgs\): Promise<MemoryReadGraphResult>;/,
    );
    const program = `
    await tools.memory.create_entities({ entities: [{ name: 'Ada', entityType: 'person', observations: [] }, { name: 'mux', entityType: 'project', observations: [] }] });
    const { entities } = await tools.memory.read_graph();
    const people = entities.filter((e) => e.entityType === 'person').map((e) => e.name);
    return { people, echo: await tools.everything.echo({ message: people.join(',') }) };`;
    const out = await s.json('execute_code', { code: program });
    t.same(out.return_value, { people: ['Ada'], echo: 'Echo: Ada' });
    for (const hostile of [
      'while (true) {}',
      'const a = []; for (;;) a.push({ a });',
      'return globalThis.constructor.constructor("return process")().exit(1)',
    ]) {
      const result = await s.call('execute_code', { code: hostile, timeout_seconds: 2 });
      t.ok(result.isError, hostile);
    }
    t.same(
      (await s.json('execute_code', { code: 'return 1 + 1' })).return_value,
      2,
      'mcpmux is still healthy',
    );
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test('SIGTERM to mcpmux kills every child group, grandchildren included', async (t) => {
  const s = await startMcpmux(['--', 'tree', ...Object.values(fixture('grandchild')).flat()]);
  t.ok(await waitFor(async () => (await serverStatus(s, 'tree'))?.status === 'running'));
  const grandchild = Number(text(await s.call('tree__grandchild_pid')));
  const childPid = (await serverStatus(s, 'tree')).pid;
  process.kill(s.process.pid, 'SIGTERM');
  const exit = await s.process.exited;
  t.equal(exit.code, 143, 'exit status 128 + SIGTERM');
  t.notOk(isAlive(childPid), 'child dead');
  t.notOk(isAlive(grandchild), 'grandchild dead');
  await assertNoLeaks(t);
});

t.test(
  'SIGTERM while a configured server starts: it ends, and its cut-short start is no error',
  async (t) => {
    const config = slowStartConfig('slow.json', join(scratch, 'never-opens'));
    const s = await startMcpmux(['--config', config, '--log-level', 'debug']);
    t.equal((await serverStatus(s, 'slow')).status, 'starting');
    process.kill(s.process.pid, 'SIGTERM');
    t.equal((await s.process.exited).code, 143);
    t.match(
      s.stderr(),
      /mcpmux debug: server 'slow' failed to start: server 'slow' was shut down while it was starting/,
    );
    t.notMatch(s.stderr(), /mcpmux error/, 'nothing logged as an error');
    await assertNoLeaks(t);
  },
);

t.test('SIGKILL of mcpmux: the orphan reaper still ends every child group, and their daemons', async (t) => {
  const s = await startMcpmux([]);
  await s.json('add_server', { name: 'tree', ...fixture('grandchild') });
  await s.json('add_server', { name: 'stubborn', ...fixture('hang-on-shutdown') });
  await s.json('add_server', {
    name: 'd',
    command: process.execPath,
    args: [fixturePath('grandchild'), '--detached'],
  });
  const grandchild = Number(text(await s.call('tree__grandchild_pid')));
  const daemon = Number(text(await s.call('d__grandchild_pid')));
  const children = [(await serverStatus(s, 'tree')).pid, (await serverStatus(s, 'stubborn')).pid];
  process.kill(s.process.pid, 'SIGKILL');
  await s.process.exited;
  // No exit hook runs on SIGKILL: only the reaper can end these (the stubborn one ignores EOF
  // and SIGTERM; the daemon ignores SIGTERM and has left its server's process group).
  t.ok(
    await waitFor(() => [...children, grandchild, daemon].every((pid) => !isAlive(pid)), 10_000),
    'children, grandchild and daemon dead',
  );
  await assertNoLeaks(t);
});

t.test('SIGTERM to mcpmux also ends a daemon a child started outside its group', async (t) => {
  const s = await startMcpmux(['--', 'd', process.execPath, fixturePath('grandchild'), '--detached']);
  t.ok(await waitFor(async () => (await serverStatus(s, 'd'))?.status === 'running'));
  const daemon = Number(text(await s.call('d__grandchild_pid')));
  process.kill(s.process.pid, 'SIGTERM');
  await s.process.exited;
  t.notOk(isAlive(daemon), 'the daemon is dead once mcpmux has exited');
  await assertNoLeaks(t);
});

t.test(
  'a config file: initialize is answered at once, a failing server is reported, the others run',
  async (t) => {
    const gate = join(scratch, 'slow-may-start');
    const config = slowStartConfig('mcp.json', gate, {
      broken: fixture('exit-on-start'),
      echo: fixture('echo-v1'),
    });
    const s = await startMcpmux(['--config', config]);
    t.equal(
      (await serverStatus(s, 'slow')).status,
      'starting',
      'initialize was answered while a child is still starting',
    );
    writeFileSync(gate, '');
    t.ok(
      await waitFor(async () => (await serverStatus(s, 'slow'))?.status === 'running', 10_000),
      'the slow server comes up',
    );
    t.ok(
      await waitFor(async () => (await serverStatus(s, 'echo'))?.status === 'running', 10_000),
      'so does echo',
    );
    t.ok(
      await waitFor(async () => (await serverStatus(s, 'broken'))?.status === 'crashed', 10_000),
      'the broken one is reported',
    );
    const broken = await serverStatus(s, 'broken');
    t.match(broken, { status: 'crashed', last_error: /exited \(exit 3\)[\s\S]*missing API key DEMO_KEY/ });
    await matchLogged(t, () => s.stderr(), /server 'broken' failed to start/);
    t.match(text(await s.call('echo__echo', { message: 'configured' })), 'configured');
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

const execFileAsync = promisify(execFile);
async function runMcpmux(args: string[]) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [DIST_MAIN, ...args], {
      env: taggedEnv(),
      timeout: 10_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

t.test('bad flags and bad config exit 2 with one clear message, before anything is spawned', async (t) => {
  const unknown = await runMcpmux(['--frobnicate']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /Unknown option '--frobnicate'[\s\S]*mcpmux --help/);
  t.equal(unknown.stdout, '', 'nothing on stdout');
  const missing = await runMcpmux(['--config', join(scratch, 'nope.json')]);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /cannot read config file .*no such file/);
  // (An unset variable is no longer a bad config: its server waits, test/e2e/waiting-config.test.ts.)
  const unreadable = join(scratch, 'unreadable.json');
  writeFileSync(
    unreadable,
    JSON.stringify({ mcpServers: { gh: { command: 'x', env: { T: '${input:token}' } } } }),
  );
  const unreadableRun = await runMcpmux(['--config', unreadable]);
  t.equal(unreadableRun.code, 2);
  t.match(
    unreadableRun.stderr,
    /mcpServers\.gh\.env\.T: \$\{input:token\} is not a variable mcpmux can expand/,
  );
  const help = await runMcpmux(['--help']);
  t.equal(help.code, 0);
  t.ok(help.stdout.split('\n').length <= 30, 'the help fits a screen');
  const all = await runMcpmux(['help', 'all']);
  t.equal(all.code, 0);
  t.match(all.stdout, /--config FILE[\s\S]*--max-tool-name/);
  const topic = await runMcpmux(['help', 'serving']);
  t.match(topic.stdout, /^Serving over HTTP:\n  --http PORT/);
  const mistyped = await runMcpmux(['help', 'polcy']);
  t.equal(mistyped.code, 2);
  t.match(mistyped.stderr, /no topic 'polcy'; did you mean 'policy'\?/);
  const sub = await runMcpmux(['imprt']);
  t.equal(sub.code, 2);
  t.match(sub.stderr, /'imprt' is not a subcommand; did you mean 'mcpmux import'\?/);
  await assertNoLeaks(t);
});

t.test('the command the README writes runs from the clone: npx mcpmux', async (t) => {
  const npx = join(dirname(process.execPath), 'npx');
  const { stdout } = await execFileAsync(npx, ['--offline', 'mcpmux', '--version'], {
    cwd: ROOT,
    env: taggedEnv({ PATH: `${dirname(process.execPath)}:${process.env['PATH']}` }),
    timeout: 60_000,
  });
  t.equal(stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  await assertNoLeaks(t);
});
