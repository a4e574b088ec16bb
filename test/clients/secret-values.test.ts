// The values behind import's ${VAR} references, found again in the clients' files by the
// server and field each stood in — never by the variable's name, which another set of files
// would give to another server's secret.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import type { ClientPlaces } from '../../src/clients/client-dialect.js';
import { CLIENTS } from '../../src/clients/clients.js';
import { valuesFromClients } from '../../src/clients/secret-values.js';

const home = mkdtempSync(join(tmpdir(), 'mcpmux-values-'));
t.teardown(() => rmSync(home, { recursive: true, force: true }));
const places: ClientPlaces = { home, platform: 'linux', env: {}, project: join(home, 'work') };
const write = (path: string, value: unknown) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
};
const clients = [...CLIENTS.values()];

t.test('a value is found where it stood: same server, same field, the template filled in', async (t) => {
  write(join(home, '.config', 'Claude', 'claude_desktop_config.json'), {
    mcpServers: {
      github: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'ghp-1' } },
      // The same variable name in another server: its value is that server's alone.
      other: { command: 'o', env: { GITHUB_TOKEN: 'ghp-OTHER' } },
    },
  });
  write(join(home, '.cursor', 'mcp.json'), {
    mcpServers: {
      docs: { url: 'https://d', headers: { Authorization: 'Bearer doc-2' } },
      'my tool': { command: 'x', env: { API_KEY: 'k-3' } },
    },
  });
  const served = {
    github: { command: 'gh-mcp', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
    docs: { url: 'https://d', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
    'my-tool': { command: 'x', env: { API_KEY: '${MY_TOOL_API_KEY}' } },
    vs: { command: 'v', env: { VS_TOKEN: '${VS_TOKEN}' } },
  };
  const wanted = [
    { server: 'github', missing: ['GITHUB_TOKEN'] },
    { server: 'docs', missing: ['DOCS_TOKEN'] },
    { server: 'my-tool', missing: ['MY_TOOL_API_KEY'] },
    { server: 'vs', missing: ['VS_TOKEN'] },
  ];
  const { found, differing } = valuesFromClients(served, wanted, clients, places, false);
  t.same(
    Object.fromEntries(found.map((f) => [f.variable, f.value])),
    { GITHUB_TOKEN: 'ghp-1', DOCS_TOKEN: 'doc-2', MY_TOOL_API_KEY: 'k-3' },
    "the scheme stays out, a renamed server is found by import's name, and no other server's value is taken",
  );
  t.match(
    found.find((f) => f.variable === 'DOCS_TOKEN')!.from,
    /^Cursor \(.*mcp\.json\) docs headers\.Authorization$/,
  );
  t.same(differing, []);
});

t.test('two files that give one variable different values: neither is written', async (t) => {
  write(join(home, '.codeium', 'windsurf', 'mcp_config.json'), {
    mcpServers: { github: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'ghp-CHANGED' } } },
  });
  const { found, differing } = valuesFromClients(
    { github: { command: 'gh-mcp', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } },
    [{ server: 'github', missing: ['GITHUB_TOKEN'] }],
    clients,
    places,
    false,
  );
  t.same(found, []);
  t.same(differing, ['GITHUB_TOKEN']);
});

t.test('a template that does not fit the literal gives nothing', async (t) => {
  const { found } = valuesFromClients(
    {
      // The client's value is not "Token …", so no part of it is the token.
      docs: { url: 'https://d', headers: { Authorization: 'Token ${DOCS_TOKEN}' } },
      // A served entry that is a prototype's name is no server.
      constructor: { command: 'x', env: { K: '${K}' } },
    },
    [
      { server: 'docs', missing: ['DOCS_TOKEN'] },
      { server: 'constructor', missing: ['K'] },
    ],
    clients,
    places,
    false,
  );
  t.same(found, []);
});

t.test(
  "what install --replace took out is read from the file's latest backup; a current file wins",
  async (t) => {
    const state = join(home, '.claude.json');
    write(state, { mcpServers: { mcpmux: { command: 'node', args: [] } } });
    // Two backups of one second, and an older one: the newest is <time>-2.
    write(`${state}.mcpmux-backup-20261129T100000Z`, {
      mcpServers: { notes: { command: 'n', env: { NOTES_TOKEN: 'old' } } },
    });
    write(`${state}.mcpmux-backup-20261129T110000Z`, {
      mcpServers: { notes: { command: 'n', env: { NOTES_TOKEN: 'mid' } } },
    });
    write(`${state}.mcpmux-backup-20261129T110000Z-2`, {
      mcpServers: {
        notes: { command: 'n', env: { NOTES_TOKEN: 'newest' } },
        github: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'ghp-stale' } },
      },
    });
    const { found, differing } = valuesFromClients(
      {
        notes: { command: 'n', env: { NOTES_TOKEN: '${NOTES_TOKEN}' } },
        github: { command: 'gh-mcp', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } },
      },
      [
        { server: 'notes', missing: ['NOTES_TOKEN'] },
        { server: 'github', missing: ['GITHUB_TOKEN'] },
      ],
      clients,
      places,
      false,
    );
    const byName = Object.fromEntries(found.map((f) => [f.variable, f]));
    t.match(byName['NOTES_TOKEN'], {
      value: 'newest',
      from: /\.claude\.json\.mcpmux-backup-20261129T110000Z-2\) notes env\.NOTES_TOKEN$/,
    });
    // The current files hold GITHUB_TOKEN (two of them differently, from the test above): the backup's is not read.
    t.notOk(byName['GITHUB_TOKEN'], 'not from the backup');
    t.same(differing, ['GITHUB_TOKEN']);
  },
);
