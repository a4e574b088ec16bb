// Each client's dialect as a pure parse and edit pair: where its files are on each platform,
// its own fields and references read as mcpmux's, and secrets made references.
import t from 'tap';
import { CLIENTS } from '../../src/clients/clients.js';
import type { ClientPlaces } from '../../src/clients/client-dialect.js';
import { serverName } from '../../src/clients/import-servers.js';
import { SecretNames, referencedVariables, secretLookingArgs } from '../../src/clients/secret-references.js';

const places = (platform: NodeJS.Platform, env: Record<string, string> = {}): ClientPlaces => ({
  home: platform === 'win32' ? 'C:\\Users\\ann' : platform === 'darwin' ? '/Users/ann' : '/home/ann',
  platform,
  env,
  project: '/work/app',
});
const userFile = (id: string, p: ClientPlaces) =>
  CLIENTS.get(id as never)!
    .files(p)
    .filter((f) => f.scope === 'user')
    .map((f) => f.path.replaceAll('\\', '/'));

t.test("each client's user files on Linux, macOS and Windows", async (t) => {
  const linux = places('linux');
  const mac = places('darwin');
  const win = places('win32', { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' });
  t.same(userFile('claude-desktop', linux), ['/home/ann/.config/Claude/claude_desktop_config.json']);
  t.same(userFile('claude-desktop', mac), [
    '/Users/ann/Library/Application Support/Claude/claude_desktop_config.json',
  ]);
  t.same(userFile('claude-desktop', win), ['C:/Users/ann/AppData/Roaming/Claude/claude_desktop_config.json']);
  t.same(userFile('claude-code', linux), ['/home/ann/.claude.json']);
  t.same(userFile('claude-code', places('linux', { CLAUDE_CONFIG_DIR: '/cfg' })), ['/cfg/.claude.json']);
  t.same(userFile('vscode', mac), [
    '/Users/ann/Library/Application Support/Code/User/mcp.json',
    '/Users/ann/Library/Application Support/Code - Insiders/User/mcp.json',
  ]);
  t.same(userFile('vscode', places('linux', { XDG_CONFIG_HOME: '/x' })), [
    '/x/Code/User/mcp.json',
    '/x/Code - Insiders/User/mcp.json',
  ]);
  t.same(userFile('cursor', win), ['C:/Users/ann/.cursor/mcp.json']);
  t.same(userFile('windsurf', mac), ['/Users/ann/.codeium/windsurf/mcp_config.json']);
  t.same(userFile('codex', places('linux', { CODEX_HOME: '/c' })), ['/c/config.toml']);
  t.same(userFile('gemini', linux), ['/home/ann/.gemini/settings.json']);
  t.same(userFile('opencode', linux), [
    '/home/ann/.config/opencode/opencode.json',
    '/home/ann/.config/opencode/opencode.jsonc',
  ]);
});

t.test('own fields and references', async (t) => {
  const p = places('linux');
  const read = (id: string, text: string, scope: 'user' | 'project' = 'user') => {
    const dialect = CLIENTS.get(id as never)!;
    const file = dialect.files(p).find((f) => f.scope === scope)!;
    return dialect.read(text, file, p);
  };
  t.match(
    read(
      'gemini',
      JSON.stringify({ mcpServers: { g: { httpUrl: 'https://g/mcp', oauth: { enabled: false } } } }),
    ),
    [{ name: 'g', entry: { url: 'https://g/mcp', oauth: false }, notes: [] }],
  );
  t.match(
    read(
      'gemini',
      JSON.stringify({
        mcpServers: { g: { url: 'https://g/sse', oauth: { clientId: 'c', tokenUrl: 'https://t' } } },
      }),
    ),
    [
      {
        entry: { url: 'https://g/sse', oauth: { client_id: 'c' } },
        notes: [/oauth\.tokenUrl: read from the server's metadata/],
      },
    ],
  );
  t.match(
    read(
      'opencode',
      JSON.stringify({ mcp: { r: { type: 'remote', url: 'https://r', oauth: false, timeout: 5 } } }),
    ),
    [{ entry: { url: 'https://r', oauth: false }, notes: ['timeout: no mcpmux equivalent; not kept'] }],
  );
  t.match(
    read(
      'opencode',
      JSON.stringify({
        mcp: { l: { type: 'local', command: ['uvx', 'srv'], environment: { A: '{file:/k}' } } },
      }),
    ),
    [
      {
        entry: { command: 'uvx', args: ['srv'], env: { A: '{file:/k}' } },
        notes: [/\{file:\/k\}: mcpmux does not read files/],
      },
    ],
  );
  t.match(
    read(
      'cursor',
      JSON.stringify({ mcpServers: { c: { command: 'x', args: ['${workspaceFolder}/a'] } } }),
      'project',
    ),
    [{ entry: { args: ['/work/app/a'] } }],
  );
  t.match(
    read('cursor', JSON.stringify({ mcpServers: { c: { command: 'x', args: ['${workspaceFolder}/a'] } } })),
    [
      {
        entry: { args: ['${PWD:-.}/a'] },
        notes: [/\$\{workspaceFolder\} in the user's file: written as \$\{PWD:-\.\}/],
      },
    ],
  );
  t.match(
    read('claude-code', JSON.stringify({ mcpServers: { s: { type: 'sse', url: 'https://s/sse' } } })),
    [{ entry: { type: 'sse', url: 'https://s/sse' } }],
    'an SSE type is kept',
  );
  t.match(read('claude-code', JSON.stringify({ mcpServers: { s: 'npx x' } })), [
    { entry: {}, notes: ['not an object: nothing to import'] },
  ]);
  t.throws(() => read('codex', '[mcp_servers.x\ncommand = 1'), /config\.toml is not valid TOML/);
});

t.test(
  'secrets become references; a name two servers would give different values is told apart',
  async (t) => {
    const names = new SecretNames();
    const a = names.reference('github', { env: { GITHUB_TOKEN: 'a1', DEBUG: '1' }, headers: {} });
    t.same(a.entry.env, { GITHUB_TOKEN: '${GITHUB_TOKEN}', DEBUG: '1' });
    t.same(a.variables, [{ variable: 'GITHUB_TOKEN', server: 'github', field: 'env.GITHUB_TOKEN' }]);
    t.same(
      names.reference('gh2', { env: { GITHUB_TOKEN: 'a1' } }).entry.env,
      { GITHUB_TOKEN: '${GITHUB_TOKEN}' },
      'the same value, the same name',
    );
    t.same(names.reference('gh3', { env: { GITHUB_TOKEN: 'b2' } }).entry.env, {
      GITHUB_TOKEN: '${GH3_GITHUB_TOKEN}',
    });
    const h = names.reference('my api', {
      headers: { Authorization: 'Basic dXNlcjpwdw==', 'X-Api-Key': 'k', Accept: 'json', 'X-Token': '${T}' },
    });
    t.same(h.entry.headers, {
      Authorization: 'Basic ${MY_API_CREDENTIALS}',
      'X-Api-Key': '${MY_API_X_API_KEY}',
      Accept: 'json',
      'X-Token': '${T}',
    });
    t.same(
      names.reference('docs', { headers: { CONTEXT7_API_KEY: 'c7', 'X-Brave-Token': 'b' } }).entry.headers,
      { CONTEXT7_API_KEY: '${CONTEXT7_API_KEY}', 'X-Brave-Token': '${X_BRAVE_TOKEN}' },
      'a header named for what it holds keeps its own name',
    );
    t.same(
      referencedVariables('vs', {
        command: '${TOOLS}/srv',
        args: ['--root', '${env:ROOT}', '${HOME:-/home}'],
        env: { VS_TOKEN: '${VS_TOKEN}' },
        headers: { Authorization: 'Bearer ${VS_TOKEN}' },
      }),
      [
        { variable: 'TOOLS', server: 'vs', field: 'command' },
        { variable: 'ROOT', server: 'vs', field: 'args[1]' },
        { variable: 'VS_TOKEN', server: 'vs', field: 'env.VS_TOKEN' },
        { variable: 'VS_TOKEN', server: 'vs', field: 'headers.Authorization' },
      ],
      'the variables an entry names already (not one with a default)',
    );
    t.same(
      names.reference('s', { env: { DB_PASSWORD: 'p', SECRET_THING: 's', OPENAI_API_KEY: 'o', MONKEY: 'm' } })
        .entry.env,
      {
        DB_PASSWORD: '${DB_PASSWORD}',
        SECRET_THING: '${SECRET_THING}',
        OPENAI_API_KEY: '${OPENAI_API_KEY}',
        MONKEY: 'm',
      },
    );
    t.same(
      names.reference('db', {
        env: { DATABASE_URL: 'postgres://app:s3cr3t@db:5432/app', PLAIN_URL: 'https://x/y' },
      }).entry.env,
      { DATABASE_URL: '${DATABASE_URL}', PLAIN_URL: 'https://x/y' },
      'a URL with a password in it',
    );
    t.same(secretLookingArgs(['-y', 'srv', '--api-key', 'abc', '--token=x', '--verbose']), [2, 4]);
  },
);

t.test('server names mcpmux takes', async (t) => {
  t.equal(serverName('github'), 'github');
  t.equal(serverName('Brave Search'), 'Brave-Search');
  t.equal(serverName('a__b_'), 'a_b');
  t.equal(serverName('@scope/pkg'), 'scope-pkg');
  t.equal(serverName('***'), 'server');
});

t.test("mcpmux's entry with the variables it sets, written and read back in every dialect", async (t) => {
  const p = places('linux');
  const launch = { command: '/usr/bin/node', args: ['/opt/mcpmux/bin/mcpmux.js', '--config', '/c.json'] };
  const env = { GITHUB_TOKEN: 'ghp "quoted" \\ value', 'ODD-NAME': 'x' };
  for (const client of CLIENTS.values()) {
    const file = client.files(p)[0]!;
    const written = client.edit('', file, { add: { ...launch, env }, remove: [] });
    t.same(client.launchIn(written, file), { ...launch, env }, `${client.id}: env read back`);
    const without = client.edit(written, file, { add: launch, remove: [] });
    t.same(
      { env: {}, ...client.launchIn(without, file) },
      { ...launch, env: {} },
      `${client.id}: an entry given no env has none`,
    );
  }
});
