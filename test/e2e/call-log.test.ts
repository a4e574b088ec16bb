// --call-log through the built mcpmux over HTTP: four sessions at once call tools (one that
// fails), read a resource and get a prompt; each leaves one whole JSON line with what a harness
// needs, no line is torn, nothing secret is written (the bearer token, a child's environment
// value), content only with --call-log-content, and SIGHUP reopens the file after a rotation.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { fixture, npmServerPath } from '../helpers/fixtures.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, isAlive, killTaggedProcesses, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const TOKEN = 'call-log-test-token-5d41402abc4b2a76';
const CHILD_SECRET = 'child-env-secret-7d793037a0760186';

const scratch = (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-call-log-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

async function session(url: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

async function startLogged(t: Test, file: string, extra: string[] = []) {
  const echo = fixture('echo-meta');
  const mux = await startMcpmuxHttp(
    [
      '--auth-token',
      TOKEN,
      '--call-log',
      file,
      '--pass-env',
      'ECHO_SECRET',
      ...extra,
      '--',
      'echo',
      echo.command,
      ...echo.args,
      '--',
      'everything',
      process.execPath,
      npmServerPath('@modelcontextprotocol/server-everything'),
    ],
    { env: { ECHO_SECRET: CHILD_SECRET } },
  );
  t.teardown(async () => {
    if (isAlive(mux.process.pid)) await mux.stop();
  });
  return mux;
}

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);

t.test('four sessions at once: a whole line per call, and nothing secret', async (t) => {
  const file = join(scratch(t), 'calls.jsonl');
  const mux = await startLogged(t, file);
  const clients = await Promise.all([1, 2, 3, 4].map((n) => session(mux.url, `harness-${n}`)));
  await Promise.all(
    clients.map(async (client, n) => {
      for (let i = 0; i < 5; i++) await client.callTool({ name: 'echo__meta', arguments: {} });
      await client.callTool({ name: 'echo__fail', arguments: { message: `no ${n}` } });
      await client.callTool({ name: 'list_servers', arguments: {} });
      await client
        .readResource({ uri: 'demo://resource/static/document/architecture.md' })
        .catch(() => undefined);
      await client.getPrompt({ name: 'everything__simple-prompt' });
      await client.callTool({ name: 'nope__nothing', arguments: {} }).catch(() => undefined);
    }),
  );
  const logged = lines(file);
  t.equal(logged.length, 4 * 10, 'one line per call, read, get and unknown tool');
  t.equal(statSync(file).mode & 0o777, 0o600);
  const sessions = new Set(logged.map((l) => l['session']));
  t.equal(sessions.size, 4, 'each session named');
  const meta = logged.filter((l) => l['tool'] === 'echo__meta');
  t.equal(meta.length, 20);
  t.match(meta[0], {
    method: 'tools/call',
    server: 'echo',
    outcome: 'ok',
    bytes_in: 2,
    client: /^harness-\d$/,
    time: /^\d{4}-\d\d-\d\dT/,
  });
  t.ok(meta.every((l) => typeof l['duration_ms'] === 'number' && l['bytes_out'] > 0));
  t.notOk('arguments' in meta[0]! || 'result' in meta[0]!, 'no content without --call-log-content');
  t.match(
    logged.find((l) => l['tool'] === 'echo__fail'),
    { outcome: 'tool_error', server: 'echo' },
  );
  t.match(
    logged.find((l) => l['tool'] === 'list_servers'),
    { outcome: 'ok', server: 'mcpmux' },
  );
  t.match(
    logged.find((l) => l['method'] === 'prompts/get'),
    {
      prompt: 'everything__simple-prompt',
      server: 'everything',
      outcome: 'ok',
    },
  );
  t.match(
    logged.find((l) => l['method'] === 'resources/read'),
    { server: 'everything' },
  );
  t.match(
    logged.find((l) => l['tool'] === 'nope__nothing'),
    { outcome: /error/, error_code: /./ },
  );
  const text = readFileSync(file, 'utf8');
  t.equal(text.indexOf(TOKEN), -1, 'no bearer token');
  t.equal(text.indexOf(CHILD_SECRET), -1, "no child's environment value");
  await Promise.all(clients.map((c) => c.close()));
  await mux.stop();
  await assertNoLeaks(t);
});

t.test('--call-log-content, and SIGHUP reopens the file after a rotation', async (t) => {
  const dir = scratch(t);
  const file = join(dir, 'calls.jsonl');
  const mux = await startLogged(t, file, ['--call-log-content']);
  const client = await session(mux.url, 'rotating');
  await client.callTool({ name: 'echo__fail', arguments: { message: 'before' } });
  renameSync(file, join(dir, 'calls.jsonl.1'));
  process.kill(mux.process.pid, 'SIGHUP');
  t.ok(await waitFor(() => existsSync(file), 5_000), 'a new file at the path');
  await client.callTool({ name: 'echo__fail', arguments: { message: 'after' } });
  const rotated = lines(join(dir, 'calls.jsonl.1'));
  const current = lines(file);
  t.same(
    [...rotated, ...current].map((l) => l['arguments'].message),
    ['before', 'after'],
    'every line once, each in its file',
  );
  t.match(current.at(-1), {
    arguments: { message: 'after' },
    result: { isError: true, content: [{ text: 'after' }] },
  });
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.match(mux.stderr(), /serving MCP over HTTP/);
  t.ok(isAlive(mux.process.pid), 'SIGHUP did not end mcpmux');
  await client.close();
  await mux.stop();
  await assertNoLeaks(t);
});
