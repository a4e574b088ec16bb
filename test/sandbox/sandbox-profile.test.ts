// The default profile and what a server's `sandbox` object adds to it: which paths it may not
// read, which it may write, which hosts it may reach.
import { join } from 'node:path';
import t from 'tap';
import { sandboxField, sandboxSetting, sandboxWire } from '../../src/child/sandbox-setting.js';
import { specFromWire } from '../../src/child/server-spec.js';
import { CREDENTIAL_PATHS, sandboxProfile } from '../../src/sandbox/sandbox-profile.js';

const ownEnv = { HOME: '/home/ada', XDG_STATE_HOME: '/home/ada/.local/state' };
const base = { name: 'probe', command: 'node', cwd: '/home/ada/project', ownEnv };

t.test(
  'the default profile: its folders writable, credentials and mcpmux state unreadable, no host',
  async (t) => {
    const p = sandboxProfile({ ...base, setting: true, configPath: '/etc/mcpmux.json' });
    t.same(p.allowWrite, ['/home/ada/project', '/home/ada/.cache/mcpmux/sandboxes/probe']);
    for (const path of [
      '.ssh',
      '.aws',
      '.config/gcloud',
      '.kube',
      '.docker',
      '.npmrc',
      '.netrc',
      '.bash_history',
      '.mozilla',
    ])
      t.ok(p.denyRead.includes(join('/home/ada', path)), `~/${path} is not readable`);
    t.ok(p.denyRead.includes('/home/ada/.local/state/mcpmux'), "mcpmux's state (secrets, tokens, pins)");
    t.ok(p.denyRead.includes('/home/ada/.cache/mcpmux/sandboxes'), "other servers' private folders");
    t.ok(p.denyRead.includes('/etc/mcpmux.json'), "mcpmux's config file");
    t.same(p.allowRead, ['/home/ada/.cache/mcpmux/sandboxes/probe'], 'its own private folder is read back');
    t.same(p.allowedDomains, []);
    t.equal(p.tmpDir, '/home/ada/.cache/mcpmux/sandboxes/probe/tmp');
    t.equal(p.env['npm_config_cache'], '/home/ada/.cache/mcpmux/sandboxes/probe/npm');
    t.equal(p.cwdReadOnly, false);
    for (const name of ['.bashrc', '.git/hooks', '.git/config', '.vscode', '.mcp.json'])
      t.ok(
        p.denyWrite.includes(join('/home/ada/project', name)),
        `${name} in its working folder is not writable`,
      );
    t.ok(CREDENTIAL_PATHS.length >= 30);
  },
);

t.test('a working folder that is / or holds the home folder stays read-only', async (t) => {
  for (const cwd of ['/', '/home', '/home/ada']) {
    const p = sandboxProfile({ ...base, cwd, setting: true });
    t.ok(p.cwdReadOnly, cwd);
    t.notOk(p.allowWrite.includes(cwd), `${cwd} is not writable`);
  }
  t.notOk(
    sandboxProfile({ ...base, cwd: '/home/adam', setting: true }).cwdReadOnly,
    'a sibling of home is a folder like any',
  );
});

t.test("a server's object widens the default; a package runner may reach its registry", async (t) => {
  const p = sandboxProfile({
    ...base,
    setting: { allowWrite: ['out', '~/notes'], denyRead: ['/srv/keys'], allowedDomains: ['api.example.com'] },
  });
  t.ok(p.allowWrite.includes('/home/ada/project/out'), 'relative to its working folder');
  t.ok(p.allowWrite.includes('/home/ada/notes'), '~ is the home folder');
  t.ok(p.denyRead.includes('/srv/keys'));
  t.same(p.allowedDomains, ['api.example.com']);
  t.same(sandboxProfile({ ...base, command: '/usr/bin/npx', setting: true }).allowedDomains, [
    'registry.npmjs.org',
  ]);
  t.same(sandboxProfile({ ...base, command: 'uvx', setting: true }).allowedDomains, [
    'pypi.org',
    'files.pythonhosted.org',
  ]);
  t.same(
    sandboxProfile({ ...base, command: 'docker', setting: true }).allowedDomains,
    [],
    'a container reaches nothing',
  );
  const mirror = { npm_config_registry: 'https://npm.internal.example:8443/repo/' };
  t.same(
    sandboxProfile({ ...base, command: 'npx', setting: true, childEnv: mirror }).allowedDomains,
    ['npm.internal.example:8443'],
    'the registry its environment names',
  );
});

t.test('a folder to write inside a hidden one is named, so that the server does not start', async (t) => {
  t.same(sandboxProfile({ ...base, cwd: '/home/ada/.ssh', setting: true }).writesHidden, ['/home/ada/.ssh']);
  t.same(
    sandboxProfile({ ...base, setting: { allowWrite: ['/home/ada/.local/state/mcpmux/pins'] } }).writesHidden,
    ['/home/ada/.local/state/mcpmux/pins'],
  );
  t.same(sandboxProfile({ ...base, setting: true }).writesHidden, []);
});

t.test('the child home is hidden too when its variables name another', async (t) => {
  const p = sandboxProfile({ ...base, setting: true, childEnv: { HOME: '/srv/home' } });
  t.ok(p.denyRead.includes('/srv/home/.ssh'));
  t.ok(p.denyRead.includes('/home/ada/.ssh'));
});

t.test('the wire form: true, false or an object of known fields, said plainly when wrong', async (t) => {
  t.equal(sandboxField.parse(true), true);
  const wire = { filesystem: { allowWrite: ['a'] }, network: { allowedDomains: ['x.example'] } };
  t.same(sandboxSetting(sandboxField.parse(wire)), { allowWrite: ['a'], allowedDomains: ['x.example'] });
  t.same(sandboxWire(sandboxSetting(wire)), wire, 'written back as given');
  const typo = sandboxField.safeParse({ network: { allowDomains: ['x'] } });
  t.notOk(typo.success);
  t.same(typo.error?.issues[0]?.path, ['network'], 'the field that is wrong is named');
  t.match(typo.error?.issues[0]?.message, /Unrecognized key: "allowDomains"/);
  t.match(sandboxField.safeParse('yes').error?.issues[0]?.message, /sandbox must be true, false or/);
  t.equal(
    specFromWire({ url: 'https://example.com/mcp', sandbox: true }),
    'sandbox applies to a command: a remote server runs on another machine, not as a process mcpmux could sandbox',
  );
  t.match(specFromWire({ command: 'node', sandbox: false }), { sandbox: false });
});
