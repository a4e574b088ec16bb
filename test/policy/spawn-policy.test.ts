// The spawn policy: which commands add_server may run, what environment and cwd children
// get, and the audit line of each spawn. Unit checks first, then through a real mcpmux with
// real children.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createLogger } from '../../src/log.js';
import { SpawnPolicy } from '../../src/policy/spawn-policy.js';
import type { StdioServerSpec } from '../../src/server-spec.js';
import { fixture, npmServerPath } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { LEAK_TAG_VAR, taggedEnv } from '../helpers/processes.js';

const logger = createLogger({ level: 'error', sink: () => {} });
const spec = (command: string, extra: Partial<StdioServerSpec> = {}): StdioServerSpec => ({ transport: 'stdio', command, args: [], env: {}, ...extra });
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-policy-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

t.test('--allow-command: globs match the command as given or its base name', async (t) => {
  const policy = new SpawnPolicy({ allowCommands: ['npx', '/opt/servers/**'], logger });
  t.doesNotThrow(() => policy.admitRuntimeAdd('a', spec('npx')));
  t.doesNotThrow(() => policy.admitRuntimeAdd('b', spec('/usr/local/bin/npx')), 'by base name');
  t.doesNotThrow(() => policy.admitRuntimeAdd('c', spec('/opt/servers/x/run.sh')));
  t.throws(() => policy.admitRuntimeAdd('d', spec('python3')), { code: 'NOT_ALLOWED', message: "command 'python3' is not allowed by --allow-command (allowed: npx, /opt/servers/**)" });
  t.throws(() => policy.admitRuntimeAdd('e', { transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: {} }), { code: 'NOT_ALLOWED' });
  t.doesNotThrow(() => new SpawnPolicy({ logger }).admitRuntimeAdd('f', spec('anything')), 'no patterns: anything');
});

t.test('--no-runtime-add refuses every add_server', async (t) => {
  const policy = new SpawnPolicy({ runtimeAdd: false, logger });
  t.throws(() => policy.admitRuntimeAdd('x', spec('node')), { code: 'NOT_ALLOWED', message: /--no-runtime-add/ });
});

t.test("children's environment: minimal by default, named extras, or everything when asked", async (t) => {
  const environment = { PATH: '/bin', HOME: '/home/u', AWS_SECRET_ACCESS_KEY: 'secret', EXTRA: 'x', BASH_FUNC_f: '() { :; }' };
  t.same(new SpawnPolicy({ environment, logger }).baseEnv, { PATH: '/bin', HOME: '/home/u' });
  t.same(new SpawnPolicy({ environment, passEnv: ['EXTRA'], logger }).baseEnv, { PATH: '/bin', HOME: '/home/u', EXTRA: 'x' });
  t.same(new SpawnPolicy({ environment, inheritEnv: true, logger }).baseEnv, environment);
});

t.test('--root confines cwd and is the default cwd', async (t) => {
  const root = join(scratch, 'root');
  mkdirSync(join(root, 'sub'), { recursive: true });
  const policy = new SpawnPolicy({ root, logger });
  t.equal(policy.workingDirectory('a', spec('node')), root);
  t.equal(policy.workingDirectory('a', spec('node', { cwd: 'sub' })), join(root, 'sub'), 'relative to the root');
  t.equal(policy.workingDirectory('a', spec('node', { cwd: join(root, 'sub') })), join(root, 'sub'));
  t.throws(() => policy.workingDirectory('a', spec('node', { cwd: '..' })), { code: 'NOT_ALLOWED', message: /cwd '\.\.' is outside --root/ });
  t.throws(() => policy.workingDirectory('a', spec('node', { cwd: '/etc' })), { code: 'NOT_ALLOWED' });
});

t.test('through mcpmux: a refused command leaves nothing behind, and the message names the policy', async (t) => {
  const h = await startHarness(t, { policy: { allowCommands: ['npx'] } });
  const result = await h.call('add_server', { name: 'e', ...fixture('echo-v1') });
  t.ok(result.isError);
  t.match(textOf(result), /is not allowed by --allow-command \(allowed: npx\) \[NOT_ALLOWED\]/);
  t.same((await h.callJson('list_servers')).servers, []);
  await h.close();
});

t.test('through mcpmux: a child does not see a secret of our environment unless passed; each spawn is audited without env values', async (t) => {
  const environment = { ...taggedEnv(), MCPMUX_TEST_SECRET: 'hunter2' };
  const everything = { command: process.execPath, args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'] };

  const strict = await startHarness(t, { policy: { inheritEnv: false, passEnv: [LEAK_TAG_VAR], environment } });
  await strict.callJson('add_server', { name: 'ev', ...everything, env: { API_KEY: 'k-123' } });
  const env = textOf(await strict.call('ev__get-env'));
  t.notMatch(env, /MCPMUX_TEST_SECRET|hunter2/, 'the secret stays with mcpmux');
  t.match(env, /"PATH"/, 'PATH is passed');
  t.match(env, /"API_KEY": "k-123"/, "the server's own env is given");
  const audit = strict.logs.filter((l) => l.startsWith('mcpmux audit: spawn server=ev '));
  t.equal(audit.length, 1, 'one audit line per spawn');
  t.match(audit[0], /pid=\d+ command=".*node.*" args=\[.*server-everything.*\] env=API_KEY$/);
  t.notMatch(audit[0], /k-123/, 'no env value in the audit line');
  await strict.close();

  const open = await startHarness(t, { policy: { inheritEnv: true, environment } });
  await open.callJson('add_server', { name: 'ev', ...everything });
  t.match(textOf(await open.call('ev__get-env')), /MCPMUX_TEST_SECRET/, '--inherit-env passes everything');
  await open.close();
});

t.test('through mcpmux: a cwd outside --root is refused before anything runs', async (t) => {
  const root = join(scratch, 'jail');
  mkdirSync(root, { recursive: true });
  const h = await startHarness(t, { policy: { root } });
  const result = await h.call('add_server', { name: 'e', ...fixture('echo-v1'), cwd: '/' });
  t.match(textOf(result), /cwd '\/' is outside --root .*\[NOT_ALLOWED\]/);
  t.same((await h.callJson('list_servers')).servers, []);
  t.notOk(h.logs.some((l) => l.includes('audit: spawn server=e ')), 'nothing was spawned');
  await h.close();
});
