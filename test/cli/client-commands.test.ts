// mcpmux install on a terminal: asked, it writes the values found only on a yes; never asks
// for a dry run or a project's file, and never when there is nothing to write.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runClientCommand, type ClientCommandContext } from '../../src/cli/client-commands.js';

const home = mkdtempSync(join(tmpdir(), 'mcpmux-ask-'));
t.teardown(() => rmSync(home, { recursive: true, force: true }));
mkdirSync(join(home, '.config', 'Claude'), { recursive: true });
writeFileSync(
  join(home, '.config', 'Claude', 'claude_desktop_config.json'),
  JSON.stringify({ mcpServers: { gh: { command: 'gh-mcp', env: { GH_TOKEN: 'ghp-ask-7' } } } }),
);

function context(answer: boolean | undefined) {
  const said = { out: '', err: '', asked: [] as string[] };
  const ctx: ClientCommandContext = {
    places: { home, platform: 'linux', env: { XDG_CONFIG_HOME: join(home, '.config') }, cwd: home },
    launch: { command: '/usr/bin/node', args: ['/opt/mcpmux.js'] },
    invokedAs: 'mcpmux',
    now: new Date('2026-11-29T10:00:00Z'),
    out: (text) => (said.out += text + '\n'),
    err: (text) => (said.err += text + '\n'),
    ...(answer !== undefined && {
      ask: async (question: string) => {
        said.asked.push(question);
        return answer;
      },
    }),
  };
  return { ctx, said };
}
const entryEnv = () =>
  JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers.mcpmux.env as Record<
    string,
    string
  >;

t.test('asked on a terminal: no leaves the secret out, yes writes it', async (t) => {
  t.equal(await runClientCommand('import', [], context(undefined).ctx), 0);

  const dry = context(true);
  t.equal(await runClientCommand('install', ['--client', 'claude-code', '--dry-run'], dry.ctx), 0);
  t.same(dry.said.asked, [], 'a dry run asks nothing');

  const no = context(false);
  t.equal(await runClientCommand('install', ['--client', 'claude-code'], no.ctx), 0);
  t.match(no.said.err, /  GH_TOKEN: from Claude Desktop \(.*claude_desktop_config\.json\) gh env\.GH_TOKEN/);
  t.match(no.said.asked, [/Write them into the "env" of mcpmux's entry in .*\.claude\.json\? \[y\/N\] $/]);
  t.same(entryEnv(), {}, 'no: nothing written');
  t.match(no.said.out, /  gh: GH_TOKEN \(value found\)/);

  const yes = context(true);
  t.equal(await runClientCommand('install', ['--client', 'claude-code'], yes.ctx), 0);
  t.same(entryEnv(), { GH_TOKEN: 'ghp-ask-7' });
  t.match(yes.said.out, /Wrote into the "env" of mcpmux's entry/);
  t.notMatch(yes.said.out + yes.said.err, /ghp-ask-7/, 'the value is never printed');

  const again = context(true);
  t.equal(await runClientCommand('install', ['--client', 'claude-code'], again.ctx), 0);
  t.same(again.said.asked, [], 'nothing left to ask for');
  t.same(entryEnv(), { GH_TOKEN: 'ghp-ask-7' }, 'and what was written stays');

  const project = context(true);
  t.equal(
    await runClientCommand('install', ['--client', 'claude-code', '--scope', 'project'], project.ctx),
    0,
  );
  t.same(project.said.asked, [], "a project's shared file is never offered secrets");
});

t.test(
  'a mistyped flag of import or install is answered with the one it meant, of that command',
  async (t) => {
    const install = context(undefined);
    t.equal(await runClientCommand('install', ['--client', 'cursor', '--with-secret'], install.ctx), 2);
    t.match(
      install.said.err,
      /^mcpmux install: Unknown option '--with-secret'; did you mean '--with-secrets'\?/,
    );
    const imp = context(undefined);
    t.equal(await runClientCommand('import', ['--keep-secret'], imp.ctx), 2);
    t.match(imp.said.err, /^mcpmux import: Unknown option '--keep-secret'; did you mean '--keep-secrets'\?/);
    const other = context(undefined);
    t.equal(await runClientCommand('import', ['--replac'], other.ctx), 2);
    t.notMatch(other.said.err, /did you mean/, "install's own flag is not offered to import");
  },
);
