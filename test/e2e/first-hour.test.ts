// The first hour, end to end: a home folder with the servers a person set up in Claude
// Desktop, Cursor and VS Code (one that needs a secret, one remote with an API key header,
// the memory server from npm), moved behind mcpmux with `mcpmux import` and
// `mcpmux install --client claude-code --replace` exactly as the README gives them; then the
// entry install wrote is started as Claude Code starts it — its command, args and env, with
// nothing from this shell but HOME and PATH. Without the secrets, memory answers and the two
// servers that need a value wait, named with their variables; after `install --with-secrets`
// every server starts, each with its own key.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import t from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { StdioChildTransport } from '../../src/child/process/stdio-child-transport.js';
import { DIST_MAIN, fixturePath, npmServerPath } from '../helpers/fixtures.js';
import { isAlive, killTaggedProcesses, taggedEnv, waitFor } from '../helpers/processes.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-first-hour-'));
const home = join(scratch, 'home');
const project = join(scratch, 'work');
mkdirSync(project, { recursive: true });
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

const node = process.execPath;
const GITHUB_KEY = 'ghp-first-hour-51c2';
const DOCS_KEY = 'ctx7-first-hour-9e0d';
const sha = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;
const write = (path: string, value: unknown) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2));
};
/** The person's shell: this home, nothing of the test's own. */
const shell = { HOME: home, PATH: process.env['PATH'] ?? '/usr/bin:/bin' };
const mcpmux = (args: string[]) =>
  run(node, [DIST_MAIN, ...args], { cwd: project, env: taggedEnv(shell), timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

/** mcpmux started from Claude Code's entry, as Claude Code starts it, with an MCP client on it. */
async function startInstalled() {
  const entry = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers.mcpmux as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  const proc = await ChildProcess.spawn({
    command: entry.command,
    args: entry.args,
    env: taggedEnv({ ...shell, ...entry.env }),
  });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'claude-code', version: '2.0.0' });
  await client.connect(new StdioChildTransport(proc));
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  type Listed = { name: string; status: string; missing?: string[]; pid?: number };
  const servers = async () =>
    ((await call('list_servers')).structuredContent as { servers: Listed[] }).servers;
  const stop = async () => {
    const pids = (await servers()).flatMap((s) => (s.pid ? [s.pid] : []));
    await client.close();
    await proc.exited;
    return pids;
  };
  return { entry, call, text, servers, stop, stderr: () => stderr };
}

t.test('import, install, and the client starts mcpmux with every server it can', async (t) => {
  // The remote server a Cursor entry reaches with its API key in a header.
  const remote = await ChildProcess.spawn({
    command: node,
    args: [fixturePath('needs-key')],
    env: taggedEnv({ NEEDS_KEY_HTTP: '1' }),
  });
  t.teardown(() => remote.stop());
  let said = '';
  remote.stderr.on('data', (d) => (said += d));
  t.ok(await waitFor(() => /listening on (\S+)/.test(said)), 'the remote server listens');
  const url = /listening on (\S+)/.exec(said)![1]!;
  const memoryFile = join(scratch, 'memory.jsonl');

  write(join(home, '.config', 'Claude', 'claude_desktop_config.json'), {
    mcpServers: {
      memory: {
        command: node,
        args: [npmServerPath('@modelcontextprotocol/server-memory')],
        env: { MEMORY_FILE_PATH: memoryFile },
      },
      github: { command: node, args: [fixturePath('needs-key')], env: { FIXTURE_API_KEY: GITHUB_KEY } },
    },
  });
  write(join(home, '.cursor', 'mcp.json'), {
    mcpServers: { docs: { url, headers: { 'X-Api-Key': DOCS_KEY } } },
  });
  write(join(home, '.config', 'Code', 'User', 'mcp.json'), {
    servers: { echo: { type: 'stdio', command: node, args: [fixturePath('echo-v1')] } },
  });

  const imported = await mcpmux(['import']);
  t.equal(imported.code, 0, imported.stderr);
  t.match(imported.stdout, /  FIXTURE_API_KEY: github env\.FIXTURE_API_KEY\n/);
  t.match(imported.stdout, /  DOCS_X_API_KEY: docs headers\.X-Api-Key\n/);
  const installed = await mcpmux(['install', '--client', 'claude-code', '--replace']);
  t.equal(installed.code, 0, installed.stderr);
  t.match(installed.stdout, /  github: FIXTURE_API_KEY \(value found\)\n/);
  t.match(installed.stdout, /  docs: DOCS_X_API_KEY \(value found\)\n/);
  t.match(installed.stdout, /install with --with-secrets writes them/);
  t.notMatch(installed.stdout + installed.stderr, new RegExp(`${GITHUB_KEY}|${DOCS_KEY}`));

  // Started as the client starts it: memory answers; the servers that need a value wait for it, by name.
  const first = await startInstalled();
  t.same(first.entry.env, {}, 'no secret was written without asking');
  t.ok(
    await waitFor(
      async () => (await first.servers()).find((s) => s.name === 'memory')?.status === 'running',
      20_000,
    ),
    'memory runs',
    { stderr: first.stderr() },
  );
  const created = await first.call('memory__create_entities', {
    entities: [{ name: 'mcpmux', entityType: 'tool', observations: ['installed in Claude Code'] }],
  });
  t.notOk(created.isError, first.text(created));
  t.match(first.text(await first.call('memory__read_graph')), /installed in Claude Code/, 'memory answers');
  t.match(readFileSync(memoryFile, 'utf8'), /mcpmux/, 'in the file its entry named');
  t.match(first.text(await first.call('echo__echo', { message: 'from VS Code' })), 'from VS Code');
  const waiting = await first.servers();
  t.match(
    waiting.find((s) => s.name === 'github'),
    { status: 'needs_config', missing: ['FIXTURE_API_KEY'] },
  );
  t.match(
    waiting.find((s) => s.name === 'docs'),
    { status: 'needs_config', missing: ['DOCS_X_API_KEY'] },
  );
  const firstPids = await first.stop();
  t.ok(firstPids.length >= 2);

  // --with-secrets: the values go into the entry's env, and the file becomes the person's alone.
  const withSecrets = await mcpmux(['install', '--client', 'claude-code', '--with-secrets']);
  t.equal(withSecrets.code, 0, withSecrets.stderr);
  t.match(withSecrets.stdout, /Updated mcpmux in Claude Code/);
  t.match(withSecrets.stdout, /  FIXTURE_API_KEY: from Claude Desktop .* github env\.FIXTURE_API_KEY\n/);
  t.match(withSecrets.stdout, /  DOCS_X_API_KEY: from Cursor .* docs headers\.X-Api-Key\n/);
  t.notMatch(withSecrets.stdout, /need variables/, 'nothing waits now');
  t.equal(statSync(join(home, '.claude.json')).mode & 0o777, 0o600);

  const second = await startInstalled();
  t.same(second.entry.env, { FIXTURE_API_KEY: GITHUB_KEY, DOCS_X_API_KEY: DOCS_KEY });
  t.ok(
    await waitFor(async () => (await second.servers()).every((s) => s.status === 'running'), 20_000),
    'every server runs',
    { servers: await second.servers() },
  );
  t.equal(second.text(await second.call('github__key_hash')), sha(GITHUB_KEY), 'github has its key');
  t.equal(second.text(await second.call('docs__key_hash')), sha(DOCS_KEY), 'docs has its own');
  t.match(
    second.text(await second.call('memory__read_graph')),
    /installed in Claude Code/,
    'memory kept its graph',
  );
  const secondPids = await second.stop();

  // A variable the person set in the entry by hand stays through another install.
  const state = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'));
  state.mcpServers.mcpmux.env.LOG_STYLE = 'plain';
  writeFileSync(join(home, '.claude.json'), JSON.stringify(state));
  t.equal((await mcpmux(['install', '--client', 'claude-code'])).code, 0);
  t.same(JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers.mcpmux.env, {
    FIXTURE_API_KEY: GITHUB_KEY,
    DOCS_X_API_KEY: DOCS_KEY,
    LOG_STYLE: 'plain',
  });
  t.ok(
    await waitFor(() => [...firstPids, ...secondPids].every((pid) => !isAlive(pid)), 10_000),
    'every child mcpmux started has ended',
  );
});
