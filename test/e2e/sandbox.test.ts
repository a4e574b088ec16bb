// The OS sandbox, performed against the built mcpmux with real bubblewrap: a server that tries
// to read the user's SSH key and a kept secret, write outside its folder, and reach hosts with
// Node's fetch and with curl, in a home that holds those; then that nothing of a sandbox is left
// after remove, a crash and a SIGKILL of mcpmux; and that a missing bubblewrap starts nothing.
import { createServer, type Server } from 'node:http';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { KeptSecrets } from '../../src/secrets/kept-secrets.js';
import { fixturePath, npmServerPath, ROOT } from '../helpers/fixtures.js';
import { serverStatus, startMcpmux, text, type Session } from '../helpers/mcpmux-process.js';
import { answeringPerson } from '../helpers/person-forms.js';
import { assertNoLeaks, isAlive, taggedProcesses, waitFor } from '../helpers/processes.js';

const HOSTS_PRELOAD = pathToFileURL(join(ROOT, 'test/helpers/hosts-preload.mjs')).href;
const SECRET_KEY = 'PRIVATE-KEY-4c1d9e';
const KEPT_VALUE = 'kept-token-77f0a2';

/** A home with an SSH key, a state folder with a kept secret, a work folder; removed after. */
function machine(t: Test) {
  const root = mkdtempSync(join(tmpdir(), 'mcpmux-sandbox-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const state = join(root, 'state');
  const work = join(root, 'work');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  // A project, as a server's working folder often is: a repository, an editor's settings, a client's servers.
  mkdirSync(join(work, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(work, '.vscode'));
  writeFileSync(join(work, '.mcp.json'), '{"mcpServers": {}}');
  writeFileSync(join(home, '.ssh', 'id_rsa'), SECRET_KEY, { mode: 0o600 });
  new KeptSecrets(join(state, 'mcpmux', 'secrets')).keep('https://registry.example', 'io.example/x', {
    API_TOKEN: KEPT_VALUE,
  });
  return { root, home, state, work, secrets: join(state, 'mcpmux', 'secrets') };
}

/** An HTTP server on 127.0.0.1 that answers with the host it was asked for, and remembers who asked. */
async function api(t: Test) {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.headers.host}${req.url}`);
    res.end(`hello ${req.headers.host}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  return { port, seen };
}

function mcpmuxEnv(m: ReturnType<typeof machine>, extra: Record<string, string> = {}) {
  return {
    HOME: m.home,
    XDG_STATE_HOME: m.state,
    MCPMUX_TEST_HOSTS: 'api.fixture.test=127.0.0.1,other.fixture.test=127.0.0.1',
    NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import=${HOSTS_PRELOAD}`.trim(),
    ...extra,
  };
}

async function addProbe(s: Session, m: ReturnType<typeof machine>, port: number, name = 'probe') {
  return s.call('add_server', {
    name,
    command: process.execPath,
    args: [fixturePath('sandbox-probe')],
    cwd: m.work,
    sandbox: { network: { allowedDomains: ['api.fixture.test', `127.0.0.1:${port}`] } },
  });
}

/** The host pids, living, of this test's processes whose command line holds `marker` (bwrap, a server inside it, socat). */
function sandboxPids(marker: string): number[] {
  return taggedProcesses().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker);
    } catch {
      return false; // gone meanwhile
    }
  });
}

t.test(
  'a sandboxed server reads no credentials, writes only its folder, reaches only listed hosts',
  async (t) => {
    const m = machine(t);
    const { port, seen } = await api(t);
    const s = await startMcpmux([], undefined, mcpmuxEnv(m));
    t.teardown(() => s.process.stop());
    const added = await addProbe(s, m, port);
    t.notOk(added.isError, text(added));

    const read = async (path: string) => text(await s.call('probe__read_file', { path }));
    const key = await read(join(m.home, '.ssh', 'id_rsa'));
    t.match(key, /^error:/, 'the SSH key cannot be read');
    t.notMatch(key, SECRET_KEY);
    const secretFiles = readdirSync(m.secrets);
    t.ok(secretFiles.length > 0, 'a kept secret is on disk');
    for (const file of secretFiles) {
      const kept = await read(join(m.secrets, file));
      t.match(kept, /^error:/, `the kept secret ${file} cannot be read`);
      t.notMatch(kept, KEPT_VALUE);
    }
    t.match(await read('/etc/passwd'), /^ok: root:/, 'the system is readable');

    const write = async (path: string) => text(await s.call('probe__write_file', { path, text: 'x' }));
    t.match(await write(join(m.work, 'inside.txt')), /^ok:/, 'its working folder is writable');
    t.ok(existsSync(join(m.work, 'inside.txt')));
    // What runs outside the sandbox later, in the project it works in: each one there is kept as it is.
    for (const run of ['.git/hooks', '.vscode', '.mcp.json']) {
      const path = run === '.mcp.json' ? join(m.work, run) : join(m.work, run, 'planted');
      t.match(await write(path), /^error:/, `but not ${run} there, which runs outside the sandbox later`);
    }
    t.notOk(existsSync(join(m.work, '.git', 'hooks', 'planted')));
    t.notOk(existsSync(join(m.work, '.vscode', 'planted')));
    t.equal(readFileSync(join(m.work, '.mcp.json'), 'utf8'), '{"mcpServers": {}}');
    t.match(await write(join(m.home, 'outside.txt')), /^error: EROFS/, 'the home folder is not');
    t.notOk(existsSync(join(m.home, 'outside.txt')));
    t.match(await write(join(m.root, 'outside.txt')), /^error:/, 'nor any other folder');
    t.notOk(existsSync(join(m.root, 'outside.txt')));
    const environment = JSON.parse(text(await s.call('probe__environment')));
    t.match(environment.tmpdir, /sandboxes\/probe\/tmp$/, 'its TMPDIR is its own');
    t.match(await write(join(environment.tmpdir, 'scratch')), /^ok:/, 'and writable');

    const listed = `http://api.fixture.test:${port}/listed`;
    t.equal(
      text(await s.call('probe__fetch_url', { url: listed })),
      'ok: 200 hello api.fixture.test:' + port,
      "Node's fetch reaches a listed host",
    );
    t.equal(
      text(await s.call('probe__curl_url', { url: listed })),
      'ok: hello api.fixture.test:' + port,
      'so does curl',
    );
    const before = seen.length;
    const unlisted = `http://other.fixture.test:${port}/unlisted`;
    t.match(
      text(await s.call('probe__fetch_url', { url: unlisted })),
      /^error:/,
      "Node's fetch reaches no unlisted host",
    );
    t.notMatch(text(await s.call('probe__curl_url', { url: unlisted })), /hello/, 'nor does curl');
    t.match(
      text(await s.call('probe__fetch_url', { url: `http://127.0.0.1:${port}/direct` })),
      /^error:/,
      'nor the address itself',
    );
    t.match(text(await s.call('probe__curl_url', { url: `http://127.0.0.1:${port}/direct` })), /^error:/);
    t.equal(seen.length, before, 'no request but the listed ones arrived');

    const status = await serverStatus(s, 'probe');
    t.same(status.sandbox.state, 'on');
    t.same(status.sandbox.domains, ['api.fixture.test', `127.0.0.1:${port}`]);
    t.ok(status.sandbox.writable.includes(m.work));
    t.match(s.stderr(), /audit: spawn server=probe .* sandbox=widened /, 'the audit line names the sandbox');
    await s.call('remove_server', { name: 'probe' });

    // A working folder, or a folder to write, inside what the sandbox hides would show it: refused.
    const probe = { command: process.execPath, args: [fixturePath('sandbox-probe')] };
    const inKeys = await s.call('add_server', {
      name: 'keys',
      ...probe,
      cwd: join(m.home, '.ssh'),
      sandbox: true,
    });
    t.match(text(inKeys), /would write .*\.ssh, which its sandbox hides.*\[NOT_ALLOWED\]/s);
    const toSecrets = await s.call('add_server', {
      name: 'secrets',
      ...probe,
      cwd: m.work,
      sandbox: { filesystem: { allowWrite: [m.secrets] } },
    });
    t.match(text(toSecrets), /which its sandbox hides.*\[NOT_ALLOWED\]/s);
    t.equal(sandboxPids('sandbox-probe.js').length, 0, 'neither started');
  },
);

t.test('server-memory, sandboxed, answers its tools and keeps its file in its folder', async (t) => {
  const m = machine(t);
  const s = await startMcpmux([], undefined, mcpmuxEnv(m));
  t.teardown(() => s.process.stop());
  const added = await s.call('add_server', {
    name: 'memory',
    command: process.execPath,
    args: [npmServerPath('@modelcontextprotocol/server-memory')],
    env: { MEMORY_FILE_PATH: join(m.work, 'memory.jsonl') },
    cwd: m.work,
    sandbox: true,
  });
  t.notOk(added.isError, text(added));
  const created = await s.call('memory__create_entities', {
    entities: [{ name: 'sandbox', entityType: 'fact', observations: ['runs in bubblewrap'] }],
  });
  t.notOk(created.isError, text(created));
  t.match(text(await s.call('memory__read_graph')), /runs in bubblewrap/);
  t.match(readFileSync(join(m.work, 'memory.jsonl'), 'utf8'), /runs in bubblewrap/);
  t.same((await serverStatus(s, 'memory')).sandbox.profile, 'default');
  // SIGTERM: mcpmux drains, stops the server and then the sandbox's proxy; nothing is left.
  process.kill(s.process.pid, 'SIGTERM');
  await s.process.exited;
  await assertNoLeaks(t);
});

t.test('nothing of a sandbox is left after remove, a crash, a reload, and a SIGKILL of mcpmux', async (t) => {
  const m = machine(t);
  const { port } = await api(t);
  const s = await startMcpmux([], undefined, mcpmuxEnv(m));
  t.teardown(() => s.process.stop());
  for (const name of ['gone', 'crashes', 'last']) t.notOk((await addProbe(s, m, port, name)).isError);
  // Each leaves a daemon of its own (a new session), which only the sandbox's end reaches.
  const daemons = await Promise.all(
    ['gone', 'crashes', 'last'].map(async (name) => text(await s.call(`${name}__start_daemon`))),
  );
  t.ok(daemons.every((d) => d.startsWith('ok:')));
  const bwraps = sandboxPids('bwrap');
  t.ok(bwraps.length >= 3, 'bubblewrap runs for each');
  const sleeps = () => sandboxPids('sleep\u0000600');
  t.equal(sleeps().length, 3, 'each daemon runs');

  const goneStatus = await serverStatus(s, 'gone');
  await s.call('remove_server', { name: 'gone' });
  t.notOk(isAlive(goneStatus.pid), 'remove: its bubblewrap is gone');
  t.ok(await waitFor(() => sleeps().length === 2), 'remove: its daemon is gone');

  // A crash: the server inside the sandbox dies; bubblewrap ends, and the daemon with it.
  const crashing = sandboxPids('sandbox-probe.js').filter((pid) => {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    return !cmd.includes('bwrap') && !cmd.includes('bash');
  });
  const crashesStatus = await serverStatus(s, 'crashes');
  const inner = crashing.find(
    (pid) =>
      readFileSync(`/proc/${pid}/status`, 'utf8').includes(`PPid:`) && isDescendant(pid, crashesStatus.pid),
  );
  t.ok(inner, 'the server process inside the sandbox is found');
  process.kill(inner!, 'SIGKILL');
  t.ok(await waitFor(async () => (await serverStatus(s, 'crashes')).status === 'crashed'), 'crashed');
  t.ok(await waitFor(() => sleeps().length === 1), 'crash: its daemon is gone');
  t.notOk(isAlive(crashesStatus.pid), 'crash: its bubblewrap is gone');

  // A reload: the old sandbox ends with its daemon, the new one answers.
  const lastStatus = await serverStatus(s, 'last');
  t.notOk((await s.call('reload_server', { name: 'last' })).isError);
  t.notOk(isAlive(lastStatus.pid), 'reload: the old bubblewrap is gone');
  t.ok(await waitFor(() => sleeps().length === 0), 'reload: its daemon is gone');
  t.match(text(await s.call('last__start_daemon')), /^ok:/, 'the new sandbox answers');

  // SIGKILL of mcpmux: the reaper ends the last sandbox and the proxy's helpers.
  t.ok(sandboxPids('socat').length > 0, "the sandbox's proxy helpers run");
  process.kill(s.process.pid, 'SIGKILL');
  await assertNoLeaks(t, 10_000);
});

t.test(
  'without bubblewrap a server that asks for the sandbox does not start, and says what to install',
  async (t) => {
    const m = machine(t);
    // A PATH with node and the shell's tools but no bwrap.
    const bin = join(m.root, 'bin');
    mkdirSync(bin);
    for (const tool of ['node', 'sh', 'bash', 'which', 'socat', 'rg', 'env'])
      for (const dir of ['/usr/local/bin', '/usr/bin', '/bin'])
        if (existsSync(join(dir, tool)) && !existsSync(join(bin, tool)))
          symlinkSync(join(dir, tool), join(bin, tool));
    const s = await startMcpmux(['--sandbox'], undefined, mcpmuxEnv(m, { PATH: bin }));
    t.teardown(() => s.process.stop());
    const added = await s.call('add_server', {
      name: 'probe',
      command: process.execPath,
      args: [fixturePath('sandbox-probe')],
      cwd: m.work,
    });
    t.ok(added.isError);
    t.match(text(added), /SANDBOX_UNAVAILABLE/);
    t.match(text(added), /bubblewrap \(bwrap\) not installed/);
    t.match(text(added), /apt-get install bubblewrap socat ripgrep/);
    t.equal(sandboxPids('sandbox-probe.js').length, 0, 'nothing started');
    t.equal((await s.json('list_servers')).servers.length, 0, 'and nothing is listed');
  },
);

/** Whether `pid` descends from `ancestor` (by the parents /proc names). */
function isDescendant(pid: number, ancestor: number): boolean {
  for (let at = pid, hops = 0; at > 1 && hops < 50; hops++) {
    if (at === ancestor) return true;
    const ppid = /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${at}/status`, 'utf8'))?.[1];
    if (ppid === undefined) return false;
    at = Number(ppid);
  }
  return false;
}

t.test(
  'under --sandbox the agent neither turns the sandbox off nor widens it without the person',
  async (t) => {
    const m = machine(t);
    const { port, seen } = await api(t);
    const widened = {
      command: process.execPath,
      args: [fixturePath('sandbox-probe')],
      cwd: m.work,
      sandbox: { network: { allowedDomains: ['api.fixture.test', `127.0.0.1:${port}`] } },
    };
    let allow = false;
    const person = answeringPerson(() => ({ action: 'accept', content: { allow_sandbox: allow } }));
    const s = await startMcpmux(['--sandbox'], person.clientSide, mcpmuxEnv(m));
    t.teardown(() => s.process.stop());

    const off = await s.call('add_server', { ...widened, name: 'off', sandbox: false });
    t.ok(off.isError);
    t.match(text(off), /not allowed without the OS sandbox.*\[NOT_ALLOWED\]/s);

    const built = await s.call('add_server', {
      ...widened,
      name: 'built',
      sandbox: true,
      watch: { paths: ['*.js'], build: ['sh', '-c', 'touch planted'] },
    });
    t.match(text(built), /not allowed a watch\.build: a build runs outside the OS sandbox.*\[NOT_ALLOWED\]/s);
    t.notOk(existsSync(join(m.work, 'planted')));

    const declined = await s.call('add_server', { ...widened, name: 'declined' });
    t.ok(declined.isError);
    t.match(text(declined), /the person did not allow it to reach api\.fixture\.test.*\[DECLINED\]/s);
    t.match(person.forms[0]?.message, /• reach api\.fixture\.test/, 'the person was shown the host');
    t.equal(sandboxPids('sandbox-probe.js').length, 0, 'nothing started');

    allow = true;
    t.notOk((await s.call('add_server', { ...widened, name: 'allowed' })).isError);
    t.match(
      text(await s.call('allowed__fetch_url', { url: `http://api.fixture.test:${port}/ok` })),
      /^ok: 200 hello/,
    );
    t.equal(seen.length, 1);
    t.same((await serverStatus(s, 'allowed')).sandbox.profile, 'widened');

    // A client that cannot show the person a form: refused, saying how the operator gives it.
    const formless = await startMcpmux(['--sandbox'], undefined, mcpmuxEnv(m));
    t.teardown(() => formless.process.stop());
    const refused = await formless.call('add_server', { ...widened, name: 'formless' });
    t.match(
      text(refused),
      /only the person may allow that, and this client cannot ask them.*\[NOT_ALLOWED\]/s,
    );
    const plain = await formless.call('add_server', { ...widened, name: 'plain', sandbox: undefined });
    t.notOk(plain.isError, 'without what it asked for it is added, in the default profile');
    t.same((await serverStatus(formless, 'plain')).sandbox.profile, 'default');
  },
);

t.test(
  'a server --sandbox confined is persisted confined: the next start, without the flag, sandboxes it',
  async (t) => {
    const m = machine(t);
    const config = join(m.root, 'servers.json');
    writeFileSync(config, JSON.stringify({ mcpServers: {} }));
    const s = await startMcpmux(['--sandbox', '--config', config], undefined, mcpmuxEnv(m));
    const added = await s.json('add_server', {
      name: 'kept',
      command: process.execPath,
      args: [fixturePath('sandbox-probe')],
      cwd: m.work,
      persist: true,
    });
    t.equal(added.persisted_to, config);
    t.equal(JSON.parse(readFileSync(config, 'utf8')).mcpServers.kept.sandbox, true);
    await s.client.close();
    await s.process.exited;
    const again = await startMcpmux(['--config', config], undefined, mcpmuxEnv(m));
    t.teardown(() => again.process.stop());
    t.ok(await waitFor(async () => (await serverStatus(again, 'kept'))?.status === 'running'));
    t.same((await serverStatus(again, 'kept')).sandbox.state, 'on');
    t.match(text(await again.call('kept__read_file', { path: join(m.home, '.ssh', 'id_rsa') })), /^error:/);
  },
);
