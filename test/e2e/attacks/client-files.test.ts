// The attacker is another local user, or whoever reads what mcpmux leaves behind. install
// edits a client's config: a config kept as a symlink by a dotfile manager must stay one (the
// edit lands in its target), and the backup that still holds the secrets --replace took out of
// the client's file must be the person's alone. A token on mcpmux's command line is readable
// in the process list: a file or the environment carries it instead, and start-up warns when
// the flag is used; the Authorization scheme is matched as HTTP says, in any case.
import { execFile } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { DIST_MAIN } from '../../helpers/fixtures.js';
import { startMcpmuxHttp } from '../../helpers/mcpmux-process.js';
import { assertNoLeaks, matchLogged, killTaggedProcesses, taggedEnv } from '../../helpers/processes.js';
import { INITIALIZE, post } from '../../helpers/raw-http.js';

t.teardown(() => killTaggedProcesses());
const run = promisify(execFile);

t.test('install edits a symlinked client file at its target, and its backup is 0600', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-install-'));
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
  const home = join(scratch, 'home');
  const dotfiles = join(scratch, 'dotfiles');
  mkdirSync(home, { recursive: true });
  mkdirSync(dotfiles);
  const target = join(dotfiles, 'claude.json');
  writeFileSync(
    target,
    JSON.stringify({
      mcpServers: {
        github: { command: 'npx', args: ['-y', 'github-mcp'], env: { GITHUB_TOKEN: 'ghp-person-secret' } },
      },
    }),
    { mode: 0o644 },
  );
  symlinkSync(target, join(home, '.claude.json'));
  const config = join(scratch, 'servers.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { github: { command: 'npx', args: ['-y', 'github-mcp'] } } }),
  );

  const { stdout } = await run(
    process.execPath,
    [DIST_MAIN, 'install', '--client', 'claude-code', '--replace', '--config', config],
    { cwd: scratch, env: taggedEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config') }) },
  );
  t.match(stdout, /mcpmux/);
  t.ok(lstatSync(join(home, '.claude.json')).isSymbolicLink(), 'the link stays a link');
  const edited = JSON.parse(readFileSync(target, 'utf8'));
  t.same(Object.keys(edited.mcpServers), ['mcpmux'], 'the edit landed in the target');
  t.equal(statSync(target).mode & 0o777, 0o644, 'the target keeps its mode');
  const backups = readdirSync(home).filter((name) => name.includes('mcpmux-backup'));
  t.equal(backups.length, 1);
  const backup = join(home, backups[0]!);
  t.match(readFileSync(backup, 'utf8'), /ghp-person-secret/, 'the backup holds what was taken out');
  t.equal(statSync(backup).mode & 0o777, 0o600, "so it is the person's alone");
});

t.test("install --with-secrets: a client file given the person's secrets is made theirs alone", async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-install-secrets-'));
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
  const home = join(scratch, 'home');
  const desktop = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  mkdirSync(join(home, '.config', 'Claude'), { recursive: true });
  // Claude Desktop's file as many are: readable by every user, and holding a key.
  writeFileSync(
    desktop,
    JSON.stringify({ mcpServers: { gh: { command: 'gh-mcp', env: { GH_TOKEN: 'ghp-copied-secret' } } } }),
    { mode: 0o644 },
  );
  const env = taggedEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config') });
  await run(process.execPath, [DIST_MAIN, 'import'], { cwd: scratch, env });
  // Cursor's file, also readable by all, is where the person has mcpmux installed.
  const cursor = join(home, '.cursor', 'mcp.json');
  mkdirSync(join(home, '.cursor'));
  writeFileSync(cursor, '{ "mcpServers": {} }', { mode: 0o644 });
  const { stdout } = await run(
    process.execPath,
    [DIST_MAIN, 'install', '--client', 'cursor', '--with-secrets'],
    { cwd: scratch, env },
  );
  t.match(stdout, /GH_TOKEN: from Claude Desktop/);
  t.notMatch(stdout, /ghp-copied-secret/, 'the value is not printed');
  t.match(readFileSync(cursor, 'utf8'), /ghp-copied-secret/, 'the value is in the entry');
  t.equal(statSync(cursor).mode & 0o777, 0o600, 'and the file is no longer readable by others');
  const backups = readdirSync(join(home, '.cursor')).filter((name) => name.includes('mcpmux-backup'));
  t.equal(statSync(join(home, '.cursor', backups[0]!)).mode & 0o777, 0o600);

  // A project's file, which the repository shares, is never given secrets.
  const refused = await run(
    process.execPath,
    [DIST_MAIN, 'install', '--client', 'cursor', '--with-secrets', '--scope', 'project'],
    { cwd: scratch, env },
  ).catch((error: { code: number; stderr: string }) => error);
  t.match(refused, { code: 1, stderr: /a project's file shared with whoever has the project/ });
  t.notOk(existsSync(join(scratch, '.cursor', 'mcp.json')), 'nothing was written there');
});

t.test('the bearer token: from a file or the environment; on the command line it is warned of', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-token-'));
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
  const tokenFile = join(scratch, 'token');
  writeFileSync(tokenFile, 'tok-from-file\n', { mode: 0o600 });

  const fromFile = await startMcpmuxHttp(['--auth-token-file', tokenFile]);
  t.equal((await post(fromFile.url, INITIALIZE)).status, 401);
  t.equal((await post(fromFile.url, INITIALIZE, { authorization: 'Bearer tok-from-file' })).status, 200);
  t.equal(
    (await post(fromFile.url, INITIALIZE, { authorization: 'bearer tok-from-file' })).status,
    200,
    "the scheme's name in any case",
  );
  t.equal((await post(fromFile.url, INITIALIZE, { authorization: 'Bearer TOK-FROM-FILE' })).status, 401);
  t.notMatch(fromFile.stderr(), /--auth-token puts the token on the command line/);
  t.notMatch(
    readFileSync(`/proc/${fromFile.process.pid}/cmdline`, 'latin1'),
    /tok-from-file/,
    'not in the process list',
  );
  await fromFile.stop();

  const onFlag = await startMcpmuxHttp(['--auth-token', 'tok-on-flag']);
  // Logged just after the line that says mcpmux serves (what the start waits for): it may come a moment later.
  await matchLogged(
    t,
    () => onFlag.stderr(),
    /warn: --auth-token puts the token on the command line, where every user of this machine can read it/,
  );
  await onFlag.stop();
  await assertNoLeaks(t);
});
