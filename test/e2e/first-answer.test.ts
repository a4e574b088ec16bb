// A client that lists once, at connect, and never listens for list_changed (the MCP
// Inspector's CLI, one-shot clients) still sees every configured server: the first lists
// and calls wait until each server given at start has started or failed.
import { rmSync, writeFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { assertEverythingInstructions, resultText } from '../helpers/client-calls.js';
import { DIST_MAIN, fixturePath, npmServerPath } from '../helpers/fixtures.js';
import { tempConfigPath } from '../helpers/temp-config.js';
import { startMcpmux, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  assertNoLeaks,
  killTaggedProcesses,
  LEAK_TAG_VAR,
  taggedEnv,
  waitFor,
} from '../helpers/processes.js';
import { rawMcpmux } from '../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

/** A config entry running fixture `name`. */
const entry = (name: string, env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [fixturePath(name as never)],
  env,
});

function writeConfig(t: Test): string {
  const config = tempConfigPath(t, 'mcpmux-first-answer');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        slow: entry('slow-start', { SLOW_START_MS: '3000' }),
        echo: entry('echo-v1'),
        broken: entry('exit-on-start'),
        lc: entry('list-changed'),
      },
    }),
  );
  return config;
}

t.test(
  'over stdio, the first tools/list holds every configured server, even one that takes 3 s',
  async (t) => {
    const started = Date.now();
    // The initialize answer waits for them (up to 5 s), so that it carries their instructions.
    const session = await startMcpmux(['--config', writeConfig(t)]);
    const tools = (await session.client.listTools()).tools.map((x) => x.name);
    t.ok(tools.includes('slow__ready') && tools.includes('echo__echo'), 'the first answer has them all', {
      tools,
      stderr: session.stderr(),
    });
    t.ok(Date.now() - started >= 2000, 'it waited for the slow one');
    t.notOk(
      tools.some((x) => x.startsWith('broken__')),
      'a server that failed holds nothing back',
    );
    t.same(
      (await session.client.listPrompts()).prompts.map((p) => p.name),
      ['lc__hello'],
      'prompts too',
    );
    await session.client.close();
    await session.process.exited;
    await assertNoLeaks(t);
  },
);

t.test(
  'over stdio, the initialize answer carries the instructions of the configured servers, once they have started',
  async (t) => {
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    const config = tempConfigPath(t, 'mcpmux-first-answer');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          ev: { command: process.execPath, args: [everything, 'stdio'] },
          echo: entry('echo-v1'),
          broken: entry('exit-on-start'),
        },
      }),
    );
    const session = await startMcpmux(['--config', config]);
    const instructions = session.client.getInstructions() ?? '';
    assertEverythingInstructions(t, instructions);
    t.equal(
      instructions.match(/Instructions of server/g)?.length,
      1,
      'a server that gives none adds nothing',
    );
    t.ok(
      (await session.client.listTools()).tools.some((tool) => tool.name === 'ev__echo'),
      'its tools are listed',
    );
    await session.client.close();
    await session.process.exited;
    await assertNoLeaks(t);
  },
);

t.test(
  "a 2026-07-28 client that opens with server/discover is given the configured servers' instructions in its answer",
  async (t) => {
    // That revision has no initialize: a client reads instructions only in its discover answer.
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    const config = tempConfigPath(t, 'mcpmux-first-answer');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [DIST_MAIN, '--pass-env', LEAK_TAG_VAR, '--config', config],
        env: taggedEnv(),
        stderr: 'pipe',
      }),
    );
    t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28', 'it speaks 2026-07-28');
    assertEverythingInstructions(t, client.getInstructions() ?? '');
    await client.close();
    await assertNoLeaks(t);
  },
);

t.test(
  "over HTTP too, a 2026-07-28 client's discover as mcpmux starts is answered with the servers' instructions",
  async (t) => {
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    const mux = await startMcpmuxHttp(['--', 'ev', process.execPath, everything, 'stdio']);
    // Connected the moment mcpmux listens: server-everything is still starting.
    const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(mux.url)));
    t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28', 'it speaks 2026-07-28');
    assertEverythingInstructions(t, client.getInstructions() ?? '');
    await client.close();
    await mux.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'a 2026-07-28 client that opens with its first real request gets them in its first answer too',
  async (t) => {
    // The SDK's stdio client pinned to 2026-07-28 sends no handshake: its tools/list is the
    // first line mcpmux reads, and the servers' handshakes must not wait for an initialize.
    const client = new Client(
      { name: 'pinned', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [DIST_MAIN, '--config', writeConfig(t), '--pass-env', LEAK_TAG_VAR],
      env: taggedEnv(),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await client.connect(transport);
    const tools = (await client.listTools({}, { timeout: 20_000 })).tools.map((x) => x.name);
    t.ok(tools.includes('slow__ready') && tools.includes('echo__echo'), 'the first answer has them all', {
      tools,
      stderr,
    });
    t.equal(resultText(await client.callTool({ name: 'echo__echo', arguments: { message: 'hi' } })), 'hi');
    await client.close();
    await assertNoLeaks(t);
  },
);

t.test(
  'over HTTP, a one-shot call right after connecting reaches a configured server still starting',
  async (t) => {
    const served = await startMcpmuxHttp(['--config', writeConfig(t)]);
    const client = new Client({ name: 'one-shot', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    t.equal(resultText(await client.callTool({ name: 'slow__ready', arguments: {} })), 'ready');
    await client.close();
    await served.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'a client that never sends notifications/initialized is served once it asks: its list holds the configured servers',
  async (t) => {
    const answers = new Map<unknown, Record<string, any>>();
    const { mcpmux, send } = await rawMcpmux(
      ['--', 'echo', process.execPath, fixturePath('echo-v1')],
      'echo',
      (m) => void (m.id !== undefined && answers.set(m.id, m)),
      { initialized: false },
    );
    send({ id: 2, method: 'tools/list' });
    t.ok(await waitFor(() => answers.has(2), 15_000), 'the list is answered');
    t.ok(
      (answers.get(2)?.result?.tools as { name: string }[]).some((tool) => tool.name === 'echo__echo'),
      "with the configured server's tools",
    );
    send({ id: 3, method: 'tools/call', params: { name: 'echo__echo', arguments: { message: 'hi' } } });
    t.ok(await waitFor(() => answers.has(3)), 'a call is answered');
    t.equal(answers.get(3)?.result?.content?.[0]?.text, 'hi');
    mcpmux.stdin.end();
    await mcpmux.exited;
    await assertNoLeaks(t);
  },
);

t.test(
  '--wait-for-servers bounds the wait: the first list has what runs, and list_changed tells of the rest',
  async (t) => {
    const config = tempConfigPath(t, 'mcpmux-wait-bound');
    const gate = `${config}.gate`;
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { slow: entry('slow-start', { SLOW_START_GATE: gate }), echo: entry('echo-v1') },
      }),
    );
    for (const bound of ['0', '0.5']) {
      const session = await startMcpmux(['--config', config, '--wait-for-servers', bound]);
      let told = 0;
      session.client.setNotificationHandler('notifications/tools/list_changed', () => void told++);
      const first = (await session.client.listTools()).tools.map((x) => x.name);
      t.ok(first.includes('add_server'), `${bound}: mcpmux's own tools are in the first list`);
      t.notOk(first.includes('slow__ready'), `${bound}: not the server still starting`, { first });
      writeFileSync(gate, '');
      t.ok(await waitFor(() => told > 0, 15_000), `${bound}: list_changed once it runs`);
      t.ok(
        await waitFor(async () =>
          (await session.client.listTools()).tools.some((x) => x.name === 'slow__ready'),
        ),
        `${bound}: and the list has it`,
      );
      await session.client.close();
      await session.process.exited;
      rmSync(gate);
    }
    await assertNoLeaks(t);
  },
);

t.test(
  'a configured server that asks the client during its start: the client is asked once it has said initialized',
  async (t) => {
    // MCP's lifecycle: nothing but pings and logs goes to a client before its initialization
    // is done; and the initialize answer, held for the servers given at start, is not held for
    // one that waits on the client.
    const order: string[] = [];
    let called: unknown;
    const { mcpmux, send } = await rawMcpmux(
      ['--', 'early', process.execPath, fixturePath('asks-on-start')],
      'early',
      (message, answer) => {
        order.push(message.method ?? `answer ${message.id}`);
        if (message.id === 2) called = message.result?.content?.[0]?.text;
        if (message.method === 'roots/list')
          answer({ id: message.id, result: { roots: [{ uri: 'file:///work', name: 'work' }] } });
      },
      { capabilities: { roots: {} }, initialized: false },
    );
    t.ok(await waitFor(() => order.includes('answer 1')), 'initialize is answered');
    // Time for a request that would follow the answer at once, as it did.
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.same(order, ['answer 1'], 'and nothing asked of the client before it says initialized');
    send({ method: 'notifications/initialized' });
    t.ok(await waitFor(() => order.includes('roots/list')), 'then the server asks');
    send({ id: 2, method: 'tools/call', params: { name: 'early__roots', arguments: {} } });
    t.ok(await waitFor(() => called !== undefined));
    t.equal(called, 'file:///work', 'the server got the roots it asked for, and runs');
    mcpmux.stdin.end();
    await mcpmux.exited;
    await assertNoLeaks(t);
  },
);

t.test('a client that never says initialized is asked all the same, after a while', async (t) => {
  const order: string[] = [];
  const { mcpmux, send } = await rawMcpmux(
    ['--', 'early', process.execPath, fixturePath('asks-on-start')],
    'early',
    (message, answer) => {
      order.push(message.method ?? `answer ${message.id}`);
      if (message.method === 'roots/list') answer({ id: message.id, result: { roots: [] } });
    },
    { capabilities: { roots: {} }, initialized: false },
  );
  t.ok(await waitFor(() => order.includes('roots/list'), 20_000), 'the server is not left waiting for ever');
  send({ id: 2, method: 'tools/call', params: { name: 'early__roots', arguments: {} } });
  t.ok(await waitFor(() => order.includes('answer 2')), 'and runs');
  t.same(order.slice(0, 2), ['answer 1', 'roots/list']);
  mcpmux.stdin.end();
  await mcpmux.exited;
  await assertNoLeaks(t);
});
