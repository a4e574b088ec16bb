// Which servers start held: the agent's adds from strangers' code under the default, every
// add under all-added, config servers too under all; a config entry's own trust wins; a
// server under development follows its own lists.
import t from 'tap';
import type { ServerSpec, StdioServerSpec } from '../../src/child/server-spec.js';
import { fromStrangers, initialTrust } from '../../src/trust/quarantine.js';

const command = (cmd: string, ...args: string[]): StdioServerSpec => ({
  transport: 'stdio',
  command: cmd,
  args,
  env: {},
});
const url = (u: string): ServerSpec => ({ transport: 'http', url: u, headers: {} });

t.test("strangers' code: registry entries, package runners, URLs off this machine", async (t) => {
  for (const spec of [
    command('npx', '-y', '@scope/server'),
    command('/usr/local/bin/npx', '-y', 'server'),
    command('uvx', 'mcp-server-fetch'),
    command('pipx', 'run', 'mcp-server'),
    command('bunx', 'server'),
    command('npm', 'exec', 'server'),
    command('pnpm', 'dlx', 'server'),
    command('docker', 'run', '-i', '--rm', 'mcp/fetch'),
    command('npx.cmd', 'server'),
    url('https://mcp.example.com/mcp'),
    url('http://10.0.0.5:8080/mcp'),
    { ...command('node', 'dist/index.js'), registryEntry: 'io.github.owner/server' },
  ])
    t.ok(
      fromStrangers(spec),
      `${spec.transport === 'http' ? spec.url : [spec.command, ...spec.args].join(' ')}`,
    );
  for (const spec of [
    command('node', 'build/index.js'),
    command('/home/me/bin/my-server'),
    command('python', '-m', 'my_server'),
    command('npm', 'run', 'serve'),
    command('docker', 'ps'),
    url('http://127.0.0.1:8080/mcp'),
    url('http://localhost:3000/mcp'),
    url('http://[::1]:3000/mcp'),
  ])
    t.notOk(
      fromStrangers(spec),
      `${spec.transport === 'http' ? spec.url : [spec.command, ...spec.args].join(' ')}`,
    );
});

t.test("the mode decides who starts held; a config entry's trust wins", async (t) => {
  const local = command('node', 'build/index.js');
  const stranger = command('npx', '-y', 'server');
  t.equal(initialTrust(local, 'agent', 'strangers'), 'approved');
  t.equal(initialTrust(stranger, 'agent', 'strangers'), 'held');
  t.equal(initialTrust(local, 'agent', 'all-added'), 'held');
  t.equal(
    initialTrust(stranger, 'operator', 'strangers'),
    'approved',
    "the operator's servers are trusted as written",
  );
  t.equal(initialTrust(stranger, 'operator', 'all'), 'held');
  t.equal(initialTrust({ ...stranger, trust: 'approved' }, 'operator', 'all'), 'approved');
  t.equal(initialTrust({ ...local, trust: 'held' }, 'operator', 'strangers'), 'held');
  t.equal(
    initialTrust({ ...local, watch: { paths: ['src/**'], debounceMs: 300 } }, 'agent', 'strangers'),
    'follow',
    'a server under development follows its lists',
  );
  t.equal(
    initialTrust({ ...stranger, watch: { paths: ['src/**'], debounceMs: 300 } }, 'agent', 'strangers'),
    'held',
    "watch does not let strangers' code past",
  );
});
