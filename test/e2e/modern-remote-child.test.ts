// A remote child on the current SDK line behind createMcpHandler (stateless 2026-07-28: a
// server per request, changes published on listen streams), reached by one mcpmux --http
// that a 2026-07-28 client and a 2025 client use side by side: both call it, both are asked
// its question (each in its era), both hear a tool it adds and a resource it updates.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import t from 'tap';
import { resultText } from '../helpers/client-calls.js';
import { mcpmuxCommand, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { freshStateEnv } from '../helpers/temp-config.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { startRemoteFixture } from '../helpers/remote-fixtures.js';

t.teardown(() => killTaggedProcesses());

function newClient(mode: 'legacy' | { pin: '2026-07-28' }) {
  const client = new Client(
    { name: 'remote-child-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  const heard = { listChanged: 0, updates: [] as string[] };
  client.setNotificationHandler('notifications/tools/list_changed', () => void heard.listChanged++);
  client.setNotificationHandler(
    'notifications/resources/updated',
    (n) => void heard.updates.push(n.params.uri),
  );
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));
  return { client, heard };
}

t.test(
  'a createMcpHandler child serves a 2026-07-28 client and a 2025 client through one mcpmux',
  async (t) => {
    const remote = await startRemoteFixture('modern-http');
    const url = remote.url;

    const served = await startMcpmuxHttp([]);
    const modern = newClient({ pin: '2026-07-28' });
    const legacy = newClient('legacy');
    await modern.client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await legacy.client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await modern.client.listen({ toolsListChanged: true });

    const added = (await modern.client.callTool({
      name: 'add_server',
      arguments: { name: 'remote', url },
    })) as CallToolResult;
    t.notOk(added.isError, 'add_server succeeded');
    const status = JSON.parse(
      resultText(await legacy.client.callTool({ name: 'list_servers', arguments: {} })),
    ) as { servers: { name: string; protocol_version?: string }[] };
    t.equal(
      status.servers.find((s) => s.name === 'remote')?.protocol_version,
      '2026-07-28',
      'spoken to in 2026-07-28',
    );

    for (const [label, { client }] of [
      ['2026-07-28', modern],
      ['2025', legacy],
    ] as const) {
      t.equal(
        resultText(await client.callTool({ name: 'remote__echo', arguments: { message: label } })),
        label,
      );
      t.equal(
        resultText(await client.callTool({ name: 'remote__confirm', arguments: { action: label } })),
        `${label}: accept {"confirm":true}`,
        `${label}: the child's question was answered`,
      );
    }

    // A tool added at the child: mcpmux hears it on its listen stream and tells both clients.
    const before = [modern.heard.listChanged, legacy.heard.listChanged];
    await legacy.client.callTool({ name: 'remote__add_tool', arguments: { name: 'late' } });
    t.ok(
      await waitFor(() => modern.heard.listChanged > before[0]! && legacy.heard.listChanged > before[1]!),
      'both clients hear the change',
    );
    t.equal(resultText(await modern.client.callTool({ name: 'remote__late', arguments: {} })), 'late');

    // Its resource: the 2025 client subscribes, the 2026-07-28 client listens; both hear it change.
    await legacy.client.subscribeResource({ uri: 'memo://remote' });
    await modern.client.listen({ resourceSubscriptions: ['memo://remote'] });
    await modern.client.callTool({ name: 'remote__touch', arguments: {} });
    t.ok(
      await waitFor(() => modern.heard.updates.length > 0 && legacy.heard.updates.length > 0),
      'both hear the update',
    );
    t.same([...new Set([...modern.heard.updates, ...legacy.heard.updates])], ['memo://remote']);

    await modern.client.close();
    await legacy.client.close();
    await served.stop();
    await remote.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "a tool's x-mcp-header arguments travel in Mcp-Param-* headers, to the child and from the client",
  async (t) => {
    const remote = await startRemoteFixture('modern-http');
    const state = freshStateEnv(t);
    const served = await startMcpmuxHttp([], { env: state });
    const modern = newClient({ pin: '2026-07-28' });
    const legacy = newClient('legacy');
    await modern.client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await legacy.client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await legacy.client.callTool({ name: 'add_server', arguments: { name: 'remote', url: remote.url } });
    // The child refuses a call that gives a region without its header: mcpmux adds it, for a
    // client of either era (the 2026-07-28 client's own header reaches mcpmux, not the child).
    for (const [label, { client }] of [
      ['2026-07-28', modern],
      ['2025', legacy],
    ] as const) {
      t.equal(
        resultText(
          await client.callTool({ name: 'remote__route', arguments: { region: 'Zürich', query: label } }),
        ),
        `routed to Zürich: ${label}`,
        `${label}: the child got the header (Base64, for a value that is not ASCII)`,
      );
    }
    t.equal(
      resultText(
        await modern.client.callTool({
          name: 'call_tool',
          arguments: { name: 'remote__route', arguments: { region: 'eu' } },
        }),
      ),
      'routed to eu: ',
      'through call_tool too',
    );

    // mcpmux checks a 2026-07-28 client's headers as the SDK's server would.
    const post = (headers: Record<string, string>) =>
      fetch(served.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'remote__route',
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: {
            name: 'remote__route',
            arguments: { region: 'eu' },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
    for (const [label, headers] of [
      ['missing', {}],
      ['different', { 'mcp-param-region': 'us' }],
      ['bad Base64', { 'mcp-param-region': '=?base64?ZXU?=' }],
    ] as const) {
      const response = await post(headers);
      const body = (await response.json()) as { id: number; error?: { code: number; message: string } };
      t.equal(response.status, 400, `${label}: HTTP 400`);
      t.equal(body.error?.code, -32020, `${label}: HeaderMismatch`);
      t.equal(body.id, 9);
    }
    const accepted = await post({ 'mcp-param-region': 'eu' });
    t.equal(accepted.status, 200, 'a matching header is served');

    // The child renames the header without telling anyone: the call it refuses for a missing
    // Mcp-Param-Zone goes once more after its tools are listed again, and the client hears of
    // the new schema.
    await legacy.client.callTool({ name: 'remote__rename_header', arguments: { header: 'Zone' } });
    const heardBefore = legacy.heard.listChanged;
    const rerouted = (await legacy.client.callTool({
      name: 'remote__route',
      arguments: { region: 'eu', query: 'after' },
    })) as CallToolResult;
    t.notOk(rerouted.isError, 'the call went once more, with the renamed header');
    t.equal(resultText(rerouted), 'routed to eu: after');
    // A schema changed since it was approved: held until the operator approves the change.
    const listed = async () =>
      (await legacy.client.listTools()).tools.find((tool) => tool.name === 'remote__route');
    t.ok(await waitFor(async () => (await listed()) === undefined), 'relisted, and held');
    t.match(await mcpmuxCommand(state, 'approve', 'remote', 'route'), { code: 0 });
    t.ok(await waitFor(async () => (await listed()) !== undefined), 'approved');
    const route = await listed();
    t.match(
      route?.inputSchema,
      { properties: { region: { 'x-mcp-header': 'Zone' } } },
      'with the new schema',
    );
    t.ok(await waitFor(() => legacy.heard.listChanged > heardBefore), 'the client was told the list changed');
    t.equal(
      resultText(await modern.client.callTool({ name: 'remote__route', arguments: { region: 'eu' } })),
      'routed to eu: ',
      'a 2026-07-28 client calls it with the new header',
    );

    await modern.client.close();
    await legacy.client.close();
    await served.stop();
    await remote.stop();
    await assertNoLeaks(t);
  },
);
