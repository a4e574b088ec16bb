// mcpmux import and install, end to end with the built mcpmux: a home folder holding every
// supported client's config (each dialect, a JSONC comment, a TOML file, duplicates, a
// conflict, secrets, VS Code inputs), imported into one mcpmux config that `mcpmux inspect`
// then starts (real fixture servers, one remote), and mcpmux installed into each client with
// --replace: checked field by field, backups included.
import { execFile } from 'node:child_process';
import {
  existsSync,
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
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import t from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { CLIENT_IDS } from '../../src/clients/client-dialect.js';
import { parseJsonc } from '../../src/clients/jsonc-edit.js';
import { DIST_MAIN, ROOT, fixturePath } from '../helpers/fixtures.js';
import { assertNoLeaks, killTaggedProcesses, taggedEnv, waitFor } from '../helpers/processes.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-import-'));
const home = join(scratch, 'home');
const project = join(scratch, 'project');
const configHome = join(home, '.config');
const out = join(configHome, 'mcpmux', 'servers.json');
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

const node = process.execPath;
const echo = fixturePath('echo-v1');
const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const json = (path: string) => parseJsonc(readFileSync(path, 'utf8'), path) as Record<string, any>;

/** The built mcpmux as the person runs it, in the project folder, with the fake home. */
const mcpmux = (args: string[], env: Record<string, string> = {}) =>
  run(node, [DIST_MAIN, ...args], {
    cwd: project,
    env: taggedEnv({
      HOME: home,
      XDG_CONFIG_HOME: configHome,
      XDG_STATE_HOME: join(scratch, 'state'),
      ...env,
    }),
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

t.test(
  'every client imported into one config, started by inspect, and mcpmux installed in each',
  async (t) => {
    // A remote server that wants a token, as the clients hold it in a header.
    const remote = await ChildProcess.spawn({
      command: node,
      args: [fixturePath('modern-http')],
      env: taggedEnv({ PORT: '0', REQUIRE_HEADER: 'Authorization: Bearer rem-0ae1' }),
    });
    let said = '';
    remote.stderr.on('data', (d) => (said += d));
    await waitFor(() => /listening on (\S+)/.test(said));
    const url = /listening on (\S+)/.exec(said)![1]!;

    const files = {
      claudeDesktop: join(configHome, 'Claude', 'claude_desktop_config.json'),
      claudeCode: join(home, '.claude.json'),
      claudeProject: join(project, '.mcp.json'),
      cursor: join(home, '.cursor', 'mcp.json'),
      vscode: join(configHome, 'Code', 'User', 'mcp.json'),
      windsurf: join(home, '.codeium', 'windsurf', 'mcp_config.json'),
      codex: join(home, '.codex', 'config.toml'),
      gemini: join(home, '.gemini', 'settings.json'),
      opencode: join(configHome, 'opencode', 'opencode.json'),
    };
    write(
      files.claudeDesktop,
      JSON.stringify({
        mcpServers: {
          desk: { command: node, args: [echo], env: { SERVICE_API_KEY: 'sk-desk-1', REGION: 'eu' } },
          shared: { command: node, args: [echo, '--shared'] },
        },
      }),
    );
    write(
      files.claudeCode,
      JSON.stringify({
        numStartups: 7,
        mcpServers: { remote: { type: 'http', url, headers: { Authorization: 'Bearer rem-0ae1' } } },
        projects: { [project]: { mcpServers: { local: { type: 'stdio', command: node, args: [echo] } } } },
      }),
    );
    write(
      files.claudeProject,
      JSON.stringify({ mcpServers: { team: { command: node, args: [echo, '${TEAM_FLAG:-x}'] } } }),
    );
    write(
      files.cursor,
      `{
  // Cursor's servers, edited by hand
  "mcpServers": {
    "shared": { "command": ${JSON.stringify(node)}, "args": [${JSON.stringify(echo)}, "--shared"] },
    "clash": { "command": ${JSON.stringify(node)}, "args": [${JSON.stringify(echo)}, "--from-cursor"] }, // mine
    "cur": { "command": ${JSON.stringify(node)}, "args": [${JSON.stringify(echo)}, "\${userHome}/notes"], "autoApprove": ["echo"] }
  }
}
`,
    );
    write(
      files.vscode,
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'vs-token', description: 'The VS token', password: true }],
        servers: {
          vs: {
            type: 'stdio',
            command: node,
            args: [echo],
            env: { VS_TOKEN: '${input:vs-token}' },
            dev: { watch: 'src/**/*.js' },
          },
          clash: { command: node, args: [echo, '--from-vscode'] },
        },
      }),
    );
    write(
      files.windsurf,
      JSON.stringify({
        mcpServers: {
          wind: { serverUrl: url, headers: { Authorization: 'Bearer rem-0ae1' }, disabledTools: ['confirm'] },
        },
      }),
    );
    write(
      files.codex,
      `# Codex settings
model = "o4"

# the echo server
[mcp_servers.cdx]
command = ${JSON.stringify(node)}
args = [${JSON.stringify(echo)}]
env_vars = ["CDX_HOME"]
enabled_tools = ["echo"]
startup_timeout_sec = 20

[mcp_servers.cdx.env]
CDX_SECRET = "cdx-77"

# kept below
[profiles.fast]
model = "o4-mini"
`,
    );
    write(
      files.gemini,
      JSON.stringify({
        theme: 'dark',
        mcpServers: {
          gem: {
            command: node,
            args: [echo],
            includeTools: ['echo'],
            trust: true,
            env: { GEM_MODE: '$GEM_MODE' },
          },
        },
      }),
    );
    write(
      files.opencode,
      JSON.stringify({
        $schema: 'https://opencode.ai/config.json',
        mcp: {
          oc: {
            type: 'local',
            command: [node, echo],
            environment: { OC_KEY: '{env:OC_KEY}' },
            enabled: true,
          },
          'oc remote': { type: 'remote', url, enabled: false },
        },
      }),
    );
    const originals = Object.fromEntries(Object.entries(files).map(([k, p]) => [k, readFileSync(p, 'utf8')]));

    // The project is named: its shared files are the person's choice to import.
    const imported = await mcpmux(['import', '--project', project]);
    t.equal(imported.code, 0, imported.stderr);
    const report = imported.stdout;
    t.match(report, /Claude Code \(user, .*\.claude\.json\): 1 server/);
    t.match(report, /Claude Code \(local, .*\.claude\.json\): 1 server/);
    t.match(report, /Codex \(user, .*config\.toml\): 1 server/);
    t.match(report, /The same in Claude Desktop \(user\) and Cursor \(user\), added once: shared/);
    t.match(
      report,
      /Differs, not added: 'clash' of VS Code \(user, .*mcp\.json\) differs in args from the one kept, Cursor/,
    );
    t.match(report, /Renamed: 'oc remote' of opencode is 'oc-remote'/);
    t.match(report, /SERVICE_API_KEY: desk env\.SERVICE_API_KEY/);
    t.match(report, /REMOTE_TOKEN: remote headers\.Authorization/);
    t.match(report, /CDX_SECRET: cdx env\.CDX_SECRET/);
    t.match(report, /VS_TOKEN: vs env\.VS_TOKEN/, "a VS Code input's variable is in the list to set");
    // The next command as the person can type it: mcpmux is not on this PATH, so by its file.
    t.match(report, new RegExp(`Next: node \\S+/bin/mcpmux\\.js install --client \\S+ --replace`));
    t.match(report, /cur \(Cursor\): autoApprove: no mcpmux equivalent; not kept/);
    t.match(report, /gem \(Gemini CLI\): trust: no mcpmux equivalent; not kept/);
    t.match(report, /cdx \(Codex\): startup_timeout_sec: no mcpmux equivalent; not kept/);
    t.match(
      report,
      /vs \(VS Code\): \$\{input:vs-token\} \(The VS token\): VS Code asks for it; mcpmux reads it from the variable VS_TOKEN \(a secret\)/,
    );
    t.notMatch(
      report + readFileSync(out, 'utf8'),
      /sk-desk-1|rem-0ae1|cdx-77/,
      'no secret value printed or written',
    );
    t.equal(statSync(out).mode & 0o777, 0o600, 'the new config is 0600');

    const servers = json(out)['mcpServers'];
    t.same(
      Object.keys(servers).sort(),
      [
        'cdx',
        'clash',
        'cur',
        'desk',
        'gem',
        'local',
        'oc',
        'oc-remote',
        'remote',
        'shared',
        'team',
        'vs',
        'wind',
      ].sort(),
    );
    t.same(servers.desk, {
      command: node,
      args: [echo],
      env: { SERVICE_API_KEY: '${SERVICE_API_KEY}', REGION: 'eu' },
    });
    t.same(servers.shared, { command: node, args: [echo, '--shared'] });
    t.same(servers.clash, { command: node, args: [echo, '--from-cursor'] }, "Cursor's, the first found");
    t.same(servers.cur, { command: node, args: [echo, `${home}/notes`] });
    t.same(servers.remote, { url, headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' } });
    t.same(servers.local, { command: node, args: [echo] });
    t.same(servers.team, { command: node, args: [echo, '${TEAM_FLAG:-x}'] }, 'a reference stays one');
    t.same(servers.vs, {
      command: node,
      args: [echo],
      env: { VS_TOKEN: '${VS_TOKEN}' },
      watch: { paths: ['src/**/*.js'] },
    });
    t.same(servers.wind, {
      url,
      headers: { Authorization: 'Bearer ${WIND_TOKEN}' },
      tools: { deny: ['confirm'] },
    });
    t.same(servers.cdx, {
      command: node,
      args: [echo],
      env: { CDX_HOME: '${CDX_HOME}', CDX_SECRET: '${CDX_SECRET}' },
      tools: { allow: ['echo'] },
    });
    t.same(servers.gem, {
      command: node,
      args: [echo],
      tools: { allow: ['echo'] },
      env: { GEM_MODE: '${GEM_MODE}' },
    });
    t.same(servers.oc, { command: node, args: [echo], env: { OC_KEY: '${OC_KEY}' } });
    t.same(servers['oc-remote'], { url, disabled: true });

    // Importing again adds nothing; a dry run writes nothing.
    const again = await mcpmux(['import', '--project', project, '--dry-run']);
    t.match(again.stdout, /Nothing new to add/);
    t.match(again.stdout, /Already in it: .*desk/);

    // mcpmux starts every server of the result, the secrets given as the variables named.
    const secrets = {
      SERVICE_API_KEY: 'sk-desk-1',
      REMOTE_TOKEN: 'rem-0ae1',
      WIND_TOKEN: 'rem-0ae1',
      CDX_SECRET: 'cdx-77',
      CDX_HOME: '/tmp',
      VS_TOKEN: 'v',
      GEM_MODE: 'g',
      OC_KEY: 'o',
    };
    const inspected = await mcpmux(['inspect', '--json', '--config', out], secrets);
    t.equal(inspected.code, 0, inspected.stderr);
    const listed = JSON.parse(inspected.stdout).servers as { name: string; tools: { name: string }[] }[];
    t.same(
      listed.map((s) => s.name).sort(),
      ['cdx', 'clash', 'cur', 'desk', 'gem', 'local', 'oc', 'remote', 'shared', 'team', 'vs', 'wind'].sort(),
      'each enabled server runs (oc-remote is disabled, as it was)',
    );
    t.ok(
      listed.find((s) => s.name === 'wind')?.tools.every((tool) => tool.name !== 'confirm'),
      "wind's filter",
    );

    // Before it installs, a dry run says which servers will wait for a variable not set here.
    const preview = await mcpmux(['install', '--client', 'claude-desktop', '--replace', '--dry-run']);
    t.equal(preview.code, 0, preview.stderr);
    t.match(
      preview.stdout,
      /Would take out \(mcpmux serves them now\): .*desk \(waits behind mcpmux for SERVICE_API_KEY\)/,
    );
    t.match(
      preview.stdout,
      /These servers need variables that are not set where mcpmux starts; they wait for them \(list_servers: needs_config\) while the others run:\n(  .*\n)*  desk: SERVICE_API_KEY \(value found\)\n/,
    );
    t.match(preview.stdout, /  vs: VS_TOKEN\n/, 'an input VS Code asks for has no value in a file');
    t.match(preview.stdout, /install with --with-secrets writes them into mcpmux's entry/);
    t.match(preview.stdout, /Set the others in the "env" of mcpmux's entry in .*claude_desktop_config\.json/);

    // With --with-secrets, the values go where they stood, by server and field: each named with its source, none printed.
    const withSecrets = await mcpmux([
      'install',
      '--client',
      'claude-code',
      '--with-secrets',
      '--dry-run',
      '--project',
      project,
    ]);
    t.equal(withSecrets.code, 0, withSecrets.stderr);
    t.match(
      withSecrets.stdout,
      /Would write into the "env" of mcpmux's entry \(.*\.claude\.json, readable by you only\):/,
    );
    t.match(
      withSecrets.stdout,
      /  SERVICE_API_KEY: from Claude Desktop \(.*claude_desktop_config\.json\) desk env\.SERVICE_API_KEY\n/,
    );
    t.match(
      withSecrets.stdout,
      /  REMOTE_TOKEN: from Claude Code \(.*\.claude\.json\) remote headers\.Authorization\n/,
    );
    t.match(
      withSecrets.stdout,
      /  WIND_TOKEN: from Windsurf \(.*mcp_config\.json\) wind headers\.Authorization\n/,
    );
    t.match(withSecrets.stdout, /  CDX_SECRET: from Codex \(.*config\.toml\) cdx env\.CDX_SECRET\n/);
    const wouldRead = withSecrets.stdout.slice(withSecrets.stdout.indexOf('would read'));
    t.match(
      wouldRead,
      /"SERVICE_API_KEY": "<value of SERVICE_API_KEY>"/,
      'the dry run shows the file it would write, each secret by its name',
    );
    t.notMatch(
      withSecrets.stdout,
      /sk-desk-1|rem-0ae1|cdx-77/,
      'the values are never printed, not even in the preview',
    );
    t.match(withSecrets.stdout, /  vs: VS_TOKEN\n/, 'what no file holds still waits');
    t.notMatch(withSecrets.stdout, /  desk: /, 'desk no longer waits');
    t.match(
      await mcpmux(['install', '--client', 'claude-code', '--with-secrets', '--scope', 'project']),
      {
        code: 1,
        stderr: /--with-secrets would write secret values into .*\.mcp\.json, a project's file shared/,
      },
      'secrets never go into a file the project shares',
    );
    const allSet = await mcpmux(['install', '--client', 'claude-desktop', '--replace', '--dry-run'], secrets);
    t.notMatch(allSet.stdout, /waits|need variables/, 'with every variable set, no server waits');

    // Installed in each client, its servers taken out; everything else as it was.
    for (const client of CLIENT_IDS) {
      const installed = await mcpmux(['install', '--client', client, '--replace']);
      t.equal(installed.code, 0, `${client}: ${installed.stderr}`);
      t.match(installed.stdout, /Backed up .* to .*\.mcpmux-backup-\d{8}T\d{6}Z/, `${client} backed up`);
    }
    const launch = (budget?: number) => [
      join(ROOT, 'bin', 'mcpmux.js'),
      '--config',
      out,
      ...(budget ? ['--max-tool-name', String(budget)] : []),
    ];
    t.same(json(files.claudeDesktop), { mcpServers: { mcpmux: { command: node, args: launch() } } });
    const code = json(files.claudeCode);
    t.same(code['mcpServers'], { mcpmux: { type: 'stdio', command: node, args: launch(51), env: {} } });
    t.equal(code['numStartups'], 7, 'other keys kept');
    t.same(
      code['projects'][project].mcpServers,
      { local: { type: 'stdio', command: node, args: [echo] } },
      'a project scope is left',
    );
    const cursorText = readFileSync(files.cursor, 'utf8');
    t.match(
      cursorText,
      /^\{\n  \/\/ Cursor's servers, edited by hand\n  "mcpServers": \{\n    "mcpmux": \{/,
      'the comment stays',
    );
    t.same(Object.keys(json(files.cursor)['mcpServers']), ['mcpmux']);
    const vs = json(files.vscode);
    t.same(vs['servers'], { mcpmux: { type: 'stdio', command: node, args: launch(53) } });
    t.same(vs['inputs'], [
      { type: 'promptString', id: 'vs-token', description: 'The VS token', password: true },
    ]);
    t.same(json(files.windsurf), { mcpServers: { mcpmux: { command: node, args: launch() } } });
    const codexText = readFileSync(files.codex, 'utf8');
    t.match(codexText, /^# Codex settings\nmodel = "o4"\n/);
    t.match(codexText, /# kept below\n\[profiles\.fast\]\nmodel = "o4-mini"\n/);
    t.notMatch(codexText, /cdx/);
    t.same(parseToml(codexText), {
      model: 'o4',
      profiles: { fast: { model: 'o4-mini' } },
      mcp_servers: { mcpmux: { command: node, args: launch(56) } },
    });
    const gem = json(files.gemini);
    t.same(gem, { theme: 'dark', mcpServers: { mcpmux: { command: node, args: launch() } } });
    t.same(
      json(files.opencode)['mcp'],
      {
        'oc remote': { type: 'remote', url, enabled: false },
        mcpmux: { type: 'local', command: [node, ...launch(57)], enabled: true },
      },
      'a server imported under another name is not taken out by its new one',
    );
    t.same(
      json(files.claudeProject),
      { mcpServers: { team: { command: node, args: [echo, '${TEAM_FLAG:-x}'] } } },
      'project files are not touched',
    );

    // Each backup is the file as it was.
    for (const [key, path] of Object.entries(files)) {
      if (key === 'claudeProject') continue;
      const backups = readdirSync(dirname(path)).filter((f) =>
        f.startsWith(`${path.split('/').pop()}.mcpmux-backup-`),
      );
      t.equal(backups.length, 1, `${key}: one backup`);
      t.equal(
        readFileSync(join(dirname(path), backups[0]!), 'utf8'),
        originals[key],
        `${key}: the backup is the original`,
      );
    }
    await remote.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "import's next step is written as the person types mcpmux: by name once npm link put it on PATH",
  async (t) => {
    const linked = join(scratch, 'linked-bin');
    mkdirSync(linked, { recursive: true });
    // What `npm link` makes: a `mcpmux` on PATH that is a link to the clone's bin/mcpmux.js.
    symlinkSync(join(ROOT, 'bin', 'mcpmux.js'), join(linked, 'mcpmux'));
    // A home of its own, with one server in Claude Desktop's file.
    const ownHome = join(scratch, 'linked-home');
    const desktop = join(ownHome, '.config', 'Claude');
    mkdirSync(desktop, { recursive: true });
    writeFileSync(
      join(desktop, 'claude_desktop_config.json'),
      JSON.stringify({
        mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } },
      }),
    );
    const out = join(scratch, 'linked.json');
    const imported = await mcpmux(['import', '--from', 'claude-desktop', '--out', out], {
      HOME: ownHome,
      XDG_CONFIG_HOME: join(ownHome, '.config'),
      PATH: `${linked}:${process.env['PATH']}`,
    });
    t.equal(imported.code, 0, imported.stderr);
    t.match(imported.stdout, /Next: mcpmux install --client claude-desktop --replace/);
  },
);

t.test('install refuses what it cannot do, and writes nothing then', async (t) => {
  const broken = join(home, '.gemini', 'settings.json');
  writeFileSync(broken, '{ "mcpServers": { "a": 1, } oops');
  const before = readFileSync(broken, 'utf8');
  const refused = await mcpmux(['install', '--client', 'gemini']);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /mcpmux install: .*settings\.json is not valid JSON: .* at line 1/);
  t.equal(readFileSync(broken, 'utf8'), before, 'left as it was');
  t.match(await mcpmux(['install', '--client', 'gemini', '--config', join(scratch, 'none.json')]), {
    code: 1,
    stderr: /there is no mcpmux config at .*none\.json: run 'mcpmux import' first/,
  });
  t.match(await mcpmux(['install']), {
    code: 2,
    stderr: /install needs --client CLIENT, one of claude-desktop, claude-code/,
  });
  t.match(await mcpmux(['import', '--from', 'notepad']), {
    code: 2,
    stderr: /--from 'notepad' is not a client mcpmux reads/,
  });
  t.match(await mcpmux(['import', '--replace']), { code: 2, stderr: /--replace do not go with import/ });
  const inline = join(home, '.codex', 'config.toml');
  writeFileSync(inline, 'mcp_servers = { old = { command = "x" } }\n');
  writeFileSync(join(scratch, 'old.json'), JSON.stringify({ mcpServers: { old: { command: 'x' } } }));
  t.match(
    await mcpmux(['install', '--client', 'codex', '--replace', '--config', join(scratch, 'old.json')]),
    {
      code: 1,
      stderr: /the server 'old' is not written as an \[mcp_servers\.old\] table; remove it by hand/,
    },
  );
  t.equal(readFileSync(inline, 'utf8'), 'mcp_servers = { old = { command = "x" } }\n');
  t.notOk(existsSync(`${inline}.mcpmux-backup`), 'no backup of a file not written');
});
