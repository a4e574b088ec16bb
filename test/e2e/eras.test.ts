// Both eras of MCP on stdio, through the built mcpmux: a v2 client pinned to 2026-07-28, one
// that negotiates (auto) and one in the 2025 (legacy) era get the same management tools,
// add a server, hear the change (modern: on its subscriptions/listen stream) and call it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { freshStateEnv } from '../helpers/temp-config.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { writeFileSync } from 'node:fs';
import t from 'tap';
import { addFixtures, recordWireProgress, resultText } from '../helpers/client-calls.js';
import { z } from 'zod';
import { fixture, npmServerPath } from '../helpers/fixtures.js';
import { tempConfigPath } from '../helpers/temp-config.js';
import { mcpmuxStdioTransport, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, logged, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

type Mode = 'legacy' | 'auto' | { pin: '2026-07-28' };

async function connect(mode: Mode, args: string[] = []) {
  const client = new Client({ name: 'era-client', version: '1.0.0' }, { versionNegotiation: { mode } });
  let listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
  const { transport, stderr } = mcpmuxStdioTransport(args);
  await client.connect(transport);
  if (client.getProtocolEra() === 'modern')
    await client.listen({ toolsListChanged: true, promptsListChanged: true });
  return { client, listChanged: () => listChanged, stderr };
}

for (const [mode, era] of [
  [{ pin: '2026-07-28' }, 'modern'],
  ['auto', 'modern'],
  ['legacy', 'legacy'],
] as const) {
  t.test(`a ${JSON.stringify(mode)} client: ${era} era; add_server, list_changed, call`, async (t) => {
    const { client, listChanged } = await connect(mode);
    t.equal(client.getProtocolEra(), era);
    t.equal(client.getNegotiatedProtocolVersion(), era === 'modern' ? '2026-07-28' : '2025-11-25');
    const before = (await client.listTools()).tools.map((x) => x.name);
    t.ok(before.includes('add_server') && before.includes('call_tool'), 'the management tools');
    const added = (await client.callTool({
      name: 'add_server',
      arguments: { name: 'echo', ...fixture('echo-v1') },
    })) as CallToolResult;
    t.notOk(added.isError, 'add_server succeeded');
    t.ok(await waitFor(() => listChanged() === 1), 'one tools/list_changed');
    t.ok(
      (await client.listTools()).tools.some((x) => x.name === 'echo__echo'),
      'the new tools are listed',
    );
    t.equal(
      resultText(await client.callTool({ name: 'echo__echo', arguments: { message: `hi ${era}` } })),
      `hi ${era}`,
    );
    t.equal(
      resultText(
        await client.callTool({
          name: 'call_tool',
          arguments: { name: 'echo__echo', arguments: { message: 'via call_tool' } },
        }),
      ),
      'via call_tool',
    );
    await client.callTool({ name: 'remove_server', arguments: { name: 'echo' } });
    t.ok(await waitFor(() => listChanged() === 2), 'and one when it is removed');
    await client.close();
    await assertNoLeaks(t);
  });
}

t.test(
  "on stdio, a server that speaks both eras is spoken to in the client's: a 2025 client's elicitInput works",
  async (t) => {
    // A server on a v2 SDK serves either era, but refuses its push-style requests (elicitInput,
    // createMessage, listRoots) in 2026-07-28; a 2025 client reaches it as it would directly.
    const eraOf = async (client: Client, name: string) =>
      (
        JSON.parse(resultText(await client.callTool({ name: 'list_servers', arguments: {} }))) as {
          servers: { name: string; protocol_version?: string }[];
        }
      ).servers.find((s) => s.name === name)?.protocol_version;
    const confirm = (client: Client, name: string) =>
      client
        .callTool({ name: `${name}__confirm_push`, arguments: { action: 'deploy' } })
        .then((r) => ({ text: resultText(r), isError: Boolean(r.isError) }));
    for (const mode of ['legacy', 'auto'] as const) {
      const client = new Client(
        { name: 'era-client', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
      );
      client.setRequestHandler('elicitation/create', () => ({
        action: 'accept',
        content: { confirm: true },
      }));
      await client.connect(mcpmuxStdioTransport().transport);
      await addFixtures(client, { v2: 'modern-v2', pinned: { fixture: 'modern-v2', era: 'modern' } });
      if (mode === 'legacy') {
        t.equal(await eraOf(client, 'v2'), '2025-11-25', '2025 client: spoken to in 2025');
        t.same(
          await confirm(client, 'v2'),
          { text: 'deploy: accept', isError: false },
          'its question is answered',
        );
      } else t.equal(await eraOf(client, 'v2'), '2026-07-28', '2026-07-28 client: spoken to in 2026-07-28');
      // Pinned to 2026-07-28 (as an auto client's is), the server refuses to ask, as it would directly.
      t.equal(await eraOf(client, 'pinned'), '2026-07-28', `${mode}: "era": "modern" is kept`);
      t.match(
        await confirm(client, 'pinned'),
        { text: /not available on protocol revision 2026-07-28/ },
        `${mode}: the pinned server refuses to ask`,
      );
      await client.close();
    }
    await assertNoLeaks(t);
  },
);

t.test('a server pinned to 2026-07-28 that takes 11 s to start is waited for, not refused', async (t) => {
  // Its discover is answered once it has started (an npx download, say); the start-up deadline
  // bounds that, not the 10 s after which a server of unknown era is taken for a 2025 one.
  const client = new Client({ name: 'era-client', version: '1.0.0' });
  await client.connect(mcpmuxStdioTransport().transport);
  const added = await client.callTool({
    name: 'add_server',
    arguments: { name: 'slow', ...fixture('modern-v2'), env: { SLOW_START_MS: '11000' }, era: 'modern' },
  });
  t.notOk(added.isError, 'add_server succeeded', { text: resultText(added) });
  t.match(resultText(added), /"protocol_version": "2026-07-28"/, 'spoken to in 2026-07-28');
  await client.close();
  await assertNoLeaks(t);
});

t.test(
  "a modern client with a config: the configured server's tools are there; an auto client's probe starts nothing",
  async (t) => {
    const config = tempConfigPath(t, 'mcpmux-eras');
    writeFileSync(config, JSON.stringify({ mcpServers: { echo: fixture('echo-v1') } }));
    for (const mode of [{ pin: '2026-07-28' } as const, 'auto' as const]) {
      const { client, stderr } = await connect(mode, ['--config', config]);
      t.ok(
        await waitFor(
          async () => (await client.listTools()).tools.some((x) => x.name === 'echo__echo'),
          15_000,
        ),
        `${JSON.stringify(mode)}: the configured server runs`,
      );
      const log = await logged(() => stderr(), /audit: spawn server=echo/);
      t.equal(log.match(/audit: spawn server=echo/g)?.length, 1, 'started once');
      await client.close();
      await assertNoLeaks(t);
    }
  },
);

t.test(
  'a 2026-07-28 client on stdio: a 2025 server is told what the client declared, lists the tools it would list to it directly, and its resources read',
  async (t) => {
    // server-everything lists its sampling, elicitation and roots tools only to a client that declared them.
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    const asking = (names: string[]) =>
      names.filter((name) => /sampling|elicitation|roots/.test(name)).sort();
    for (const capabilities of [{}, { sampling: {} }]) {
      const direct = new Client({ name: 'direct', version: '1.0.0' }, { capabilities });
      await direct.connect(
        new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'] }),
      );
      const expected = asking((await direct.listTools()).tools.map((x) => x.name));
      const uri = (await direct.listResources()).resources[0]!.uri;
      const contents = (await direct.readResource({ uri })).contents;
      await direct.close();
      const client = new Client(
        { name: 'modern', version: '1.0.0' },
        { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(
        // Each run its own state: the server lists other tools to the other client, which would be new to the first's approval.
        mcpmuxStdioTransport(['--', 'ev', process.execPath, everything, 'stdio'], freshStateEnv(t)).transport,
      );
      const listed = asking((await client.listTools()).tools.map((x) => x.name)).map((x) =>
        x.slice('ev__'.length),
      );
      t.same(listed, expected, `declaring ${JSON.stringify(capabilities)}: ${expected.join(', ') || 'none'}`);
      // The 2025 server's read result gets the cache fields a 2026-07-28 result must have.
      t.same((await client.readResource({ uri })).contents, contents, `${uri} reads as directly`);
      await client.close();
    }
    await assertNoLeaks(t);
  },
);

async function connectHttp(url: string, mode: Mode) {
  const client = new Client({ name: 'era-http-client', version: '1.0.0' }, { versionNegotiation: { mode } });
  let listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  if (client.getProtocolEra() === 'modern') await client.listen({ toolsListChanged: true });
  return { client, listChanged: () => listChanged };
}

t.test(
  'over HTTP, a client pinned to 2026-07-28 and a 2025 client share one mcpmux and hear each other',
  async (t) => {
    const served = await startMcpmuxHttp(['--max-result-bytes', '1024']);
    const modern = await connectHttp(served.url, { pin: '2026-07-28' });
    const legacy = await connectHttp(served.url, 'legacy');
    t.equal(modern.client.getProtocolEra(), 'modern');
    t.equal(legacy.client.getProtocolEra(), 'legacy');
    await modern.client.callTool({
      name: 'add_server',
      arguments: { name: 'big', ...fixture('big-result') },
    });
    t.ok(
      await waitFor(() => modern.listChanged() === 1 && legacy.listChanged() === 1),
      'both hear the add once',
    );
    t.ok(
      (await legacy.client.listTools()).tools.some((x) => x.name === 'big__lines'),
      "the legacy client sees the modern one's server",
    );

    // A modern client has no session: a result kept in one request is read in another by its handle.
    const cut = resultText(
      await modern.client.callTool({ name: 'big__lines', arguments: { bytes: 20_000 } }),
    );
    const handle = /kept as handle "(r-[0-9a-f]{32})"/.exec(cut)?.[1];
    t.ok(handle, 'a 128-bit handle');
    const tail = resultText(
      await modern.client.callTool({ name: 'read_result', arguments: { handle, mode: 'tail', lines: 1 } }),
    );
    t.match(tail, /line \d+: the quick brown fox/);

    // A 2026-07-28 session answers like the SDK: a method it has no handler for is not found
    // (HTTP 404), and a tool error is a result, checked against that era's schema.
    await t.rejects(modern.client.request({ method: 'no/such/method' }, z.object({})), {
      code: 'CLIENT_HTTP_NOT_IMPLEMENTED',
      message: /"code":-32601/,
    });
    const unknown = (await modern.client.callTool({
      name: 'nope__nothing',
      arguments: {},
    })) as CallToolResult;
    t.ok(unknown.isError);
    t.match(resultText(unknown), /TOOL_NOT_FOUND/);

    await legacy.client.callTool({ name: 'remove_server', arguments: { name: 'big' } });
    t.ok(await waitFor(() => modern.listChanged() === 2 && legacy.listChanged() === 2), 'and the remove');
    await modern.client.close();
    await legacy.client.close();
    await served.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'over HTTP, a 2026-07-28 client gets progress on its request, cancels by ending it, and no list is cached',
  async (t) => {
    const served = await startMcpmuxHttp([]);
    const modern = await connectHttp(served.url, { pin: '2026-07-28' });
    await modern.client.callTool({
      name: 'add_server',
      arguments: { name: 'slow', ...fixture('slow-call') },
    });

    const progress: number[] = [];
    const wire = recordWireProgress(modern.client);
    const done = await modern.client.callTool(
      { name: 'slow__wait', arguments: { steps: 3, interval_ms: 20 } },
      {
        onprogress: (p) => void progress.push(p.progress),
      },
    );
    t.equal(resultText(done), 'waited 3 steps');
    t.same(
      wire,
      { values: [1, 2, 3], late: 0 },
      "the child's progress reached the client's request, before its answer",
    );
    t.same(progress, [1, 2, 3].slice(0, progress.length), 'what the SDK handed on (see recordWireProgress)');

    // On 2026-07-28 HTTP a cancel is an aborted request: the child hears notifications/cancelled.
    const abort = new AbortController();
    const cancelled = modern.client.callTool(
      { name: 'slow__wait', arguments: { steps: 50, interval_ms: 40 } },
      { signal: abort.signal, onprogress: () => abort.abort() },
    );
    await t.rejects(cancelled);
    t.ok(
      await waitFor(
        async () =>
          resultText(await modern.client.callTool({ name: 'slow__last_wait', arguments: {} })) ===
          'cancelled',
      ),
      'the child saw the call cancelled',
    );

    // Lists say ttlMs 0: no client may serve one from its cache after the children changed.
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      const response = await fetch(served.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method,
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      const body = (await response.json()) as { result: { ttlMs?: number } };
      t.equal(body.result.ttlMs, 0, `${method}: ttlMs 0`);
    }
    await modern.client.close();
    await served.stop();
    await assertNoLeaks(t);
  },
);
