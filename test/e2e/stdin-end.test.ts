// A client that writes its requests and closes mcpmux's stdin at once (a script piped in,
// `printf … | mcpmux`, a one-shot harness) gets every answer before mcpmux stops, as from any
// server built on an MCP SDK: mcpmux had stopped at the end of its input and answered
// nothing, not even initialize. What it asks such a client can never be answered, so it
// fails at once rather than at its timeout.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { DIST_MAIN, fixturePath, npmServerPath } from '../helpers/fixtures.js';
import {
  LEAK_TAG_VAR,
  assertNoLeaks,
  killTaggedProcesses,
  taggedEnv,
  waitFor,
} from '../helpers/processes.js';
import { tempConfigPath } from '../helpers/temp-config.js';

t.teardown(() => killTaggedProcesses());

/** Runs mcpmux with `args`, writes `messages` and closes its stdin; its answers by id, once it has exited. */
async function pipedScript(args: string[], messages: object[]) {
  const mcpmux = await ChildProcess.spawn({
    command: process.execPath,
    args: [DIST_MAIN, '--pass-env', LEAK_TAG_VAR, ...args],
    env: taggedEnv(),
  });
  let stdout = '';
  let stderr = '';
  mcpmux.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  mcpmux.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  mcpmux.stdin.end(messages.map((m) => JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n').join(''));
  const exit = await mcpmux.exited;
  const answers = new Map<unknown, Record<string, any>>();
  for (const line of stdout.split('\n').filter(Boolean)) {
    const message = JSON.parse(line);
    if (message.id !== undefined && message.method === undefined) answers.set(message.id, message);
  }
  return { exit, answers, stderr };
}

const opening = (capabilities: object) => [
  {
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'script', version: '1' } },
  },
  { method: 'notifications/initialized' },
];
const call = (id: number, name: string, args: object = {}) => ({
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

t.test('a script piped in whole: every request is answered, then mcpmux stops', async (t) => {
  const config = tempConfigPath(t, 'stdin-end');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        ev: { command: process.execPath, args: [npmServerPath('@modelcontextprotocol/server-everything')] },
        slow: { command: process.execPath, args: [fixturePath('slow-call')] },
      },
    }),
  );
  const { exit, answers, stderr } = await pipedScript(
    ['--config', config],
    [
      ...opening({ sampling: {} }),
      { id: 2, method: 'tools/list' },
      call(3, 'ev__echo', { message: 'piped' }), // the fast path
      call(4, 'list_servers'), // mcpmux's own tool, on the SDK's path
      call(5, 'slow__wait', { steps: 3, interval_ms: 150 }), // still running when the input ends
      call(6, 'ev__trigger-sampling-request', { prompt: 'hi', maxTokens: 5 }), // asks the client
    ],
  );
  t.equal(exit.code, 0, 'mcpmux exits with 0');
  t.ok(answers.get(1)?.result?.serverInfo, 'initialize');
  const tools = (answers.get(2)?.result?.tools ?? []).map((tool: { name: string }) => tool.name);
  t.ok(tools.includes('ev__echo') && tools.includes('slow__wait'), "tools/list holds both servers' tools");
  t.match(answers.get(3), { result: { content: [{ type: 'text', text: 'Echo: piped' }] } }, "a child's tool");
  t.match(answers.get(4)?.result?.content?.[0]?.text, /"name": ?"slow"/, 'list_servers');
  t.match(
    answers.get(5),
    { result: { content: [{ text: 'waited 3 steps' }] } },
    'a call in flight at the end',
  );
  t.match(
    answers.get(6),
    { result: { isError: true, content: [{ text: /closed its input/ }] } },
    'a question to the client fails at once, saying why',
  );
  t.match(stderr, /shutting down \(stdin closed\)/);
  await assertNoLeaks(t);
});

t.test('a client that closes its input with nothing asked: mcpmux stops at once', async (t) => {
  const { exit, answers, stderr } = await pipedScript(
    ['--', 'echo', process.execPath, fixturePath('echo-v1')],
    [...opening({}), { id: 2, method: 'ping' }],
  );
  t.equal(exit.code, 0);
  t.same(answers.get(2)?.result, {}, 'the ping is answered');
  t.notMatch(stderr, /unanswered/, 'nothing was left open');
  await assertNoLeaks(t);
});

t.test(
  'a client that closes its input and is gone: mcpmux does not wait for the calls it left',
  async (t) => {
    const log = join(mkdtempSync(join(tmpdir(), 'stdin-end-')), 'mcpmux.log');
    t.teardown(() => rmSync(dirname(log), { recursive: true, force: true }));
    // The client: starts mcpmux, asks for a 30 s call, closes mcpmux's stdin and exits at once.
    const client = `
    const { spawn } = require('node:child_process');
    const { openSync } = require('node:fs');
    const mcpmux = spawn(process.execPath, ${JSON.stringify([DIST_MAIN, '--pass-env', LEAK_TAG_VAR, '--', 'slow', process.execPath, fixturePath('slow-call')])},
      { stdio: ['pipe', 'ignore', openSync(${JSON.stringify(log)}, 'w')], detached: true });
    const lines = ${JSON.stringify(
      [...opening({}), call(2, 'slow__wait', { steps: 300, interval_ms: 100 })].map((m) =>
        JSON.stringify({ jsonrpc: '2.0', ...m }),
      ),
    )};
    mcpmux.stdin.end(lines.join('\\n') + '\\n', () => setTimeout(() => process.exit(0), 1500));
  `;
    const parent = await ChildProcess.spawn({
      command: process.execPath,
      args: ['-e', client],
      env: taggedEnv(),
    });
    await parent.exited;
    t.ok(
      await waitFor(() => /shutting down \(stdin closed\)/.test(readFileSync(log, 'utf8')), 20_000),
      'mcpmux shuts down',
    );
    t.match(
      readFileSync(log, 'utf8'),
      /request\(s\) still unanswered when the client was gone end with the shutdown/,
    );
    await assertNoLeaks(t);
  },
);
