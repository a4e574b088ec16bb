// URL-mode elicitation (MCP 2025-11-25) through mcpmux: a child sends the user to a URL and
// later says the interaction there ended (notifications/elicitation/complete). That notice
// was dropped by mcpmux; it now reaches the client that was asked, and only that one (the
// spec's MUST): over HTTP, of two sessions, the one whose call the child asked in.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import t from 'tap';
import { fixture, fixturePath } from '../../helpers/fixtures.js';
import { startMcpmuxHttp } from '../../helpers/mcpmux-process.js';
import { startHarness, textOf } from '../../helpers/mux-harness.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../../helpers/processes.js';
import { rawMcpmux } from '../../helpers/raw-stdio-client.js';

t.teardown(() => killTaggedProcesses());

const URL_CAPABLE: ClientCapabilities = { elicitation: { form: {}, url: {} } };

/** A client that accepts every URL elicitation, and records what it was asked and told. */
function urlClient(client: Client) {
  const seen = { asked: [] as Record<string, unknown>[], completed: [] as string[] };
  client.setRequestHandler('elicitation/create', async (request) => {
    seen.asked.push(request.params as Record<string, unknown>);
    return { action: 'accept' };
  });
  client.setNotificationHandler(
    'notifications/elicitation/complete',
    (n) => void seen.completed.push(n.params.elicitationId),
  );
  return seen;
}

t.test('the client that was asked hears that the interaction ended', async (t) => {
  let seen!: ReturnType<typeof urlClient>;
  const h = await startHarness(t, {
    clientCapabilities: URL_CAPABLE,
    setupClient: (client) => (seen = urlClient(client)),
  });
  await h.callJson('add_server', { name: 'asker', ...fixture('asks-client') });
  t.match(textOf(await h.call('asker__open_url', { id: 'e1' })), /answer: .*accept/);
  t.match(seen.asked, [{ mode: 'url', elicitationId: 'e1', url: /^https:\/\/auth\.example\.com\// }]);
  t.ok(await waitFor(() => seen.completed.includes('e1')), 'told it ended, under its id');

  // A call that fails with -32042 names its elicitation without asking: the only client hears.
  await t.rejects(h.client.callTool({ name: 'asker__needs_url', arguments: { id: 'e2' } }), {
    code: -32042,
  });
  t.ok(await waitFor(() => seen.completed.includes('e2')), 'told the -32042 one ended');
  t.same(seen.completed, ['e1', 'e2'], 'each once');
  await h.close();
});

t.test(
  'over HTTP, only the session whose call the child asked in, or whose call its error answered, hears it ended',
  async (t) => {
    const served = await startMcpmuxHttp(['--', 'asker', process.execPath, fixturePath('asks-client')]);
    t.ok(await waitFor(() => served.stderr().includes("server 'asker' is running"), 15_000), 'started');
    const connect = async (name: string) => {
      const client = new Client({ name, version: '1' }, { capabilities: URL_CAPABLE });
      const seen = urlClient(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      return { client, seen };
    };
    const a = await connect('a');
    const b = await connect('b');
    const call = (c: Client, tool: string, id: string) =>
      c.callTool({ name: `asker__${tool}`, arguments: { id } }) as Promise<{ content: { text: string }[] }>;

    t.match((await call(a.client, 'open_url', 'for-a')).content[0]?.text, /accept/);
    t.match((await call(b.client, 'open_url', 'for-b')).content[0]?.text, /accept/);
    t.ok(await waitFor(() => a.seen.completed.length > 0 && b.seen.completed.length > 0), 'both told');
    t.same(
      a.seen.asked.map((p) => p['elicitationId']),
      ['for-a'],
      'a was asked its own',
    );
    t.same(a.seen.completed, ['for-a'], 'a hears only its own');
    t.same(b.seen.completed, ['for-b'], 'b hears only its own');

    // A call's -32042 error names elicitations without asking: their end goes to that call's
    // client, whether the call took the fast path or the SDK's (call_tool).
    await t.rejects(call(a.client, 'needs_url', 'named-to-a'), { code: -32042 });
    await t.rejects(
      b.client.callTool({
        name: 'call_tool',
        arguments: { name: 'asker__needs_url', arguments: { id: 'named-to-b' } },
      }),
      { code: -32042 },
    );
    t.ok(await waitFor(() => a.seen.completed.length > 1 && b.seen.completed.length > 1), 'both told');
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.same(a.seen.completed, ['for-a', 'named-to-a'], 'a hears the end its call met');
    t.same(b.seen.completed, ['for-b', 'named-to-b'], 'b hears the end its call_tool met');

    await a.client.close();
    await b.client.close();
    await served.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'on stdio, a client that probed with server/discover before its initialize hears the -32042 one ended',
  async (t) => {
    // The probe opens a 2026-07-28 session that initialize then replaces: still one 2025 client.
    // Its discover declares what its initialize does, as the SDKs' probes do: the configured
    // server is told at the discover, whose answer waits for it (and carries its instructions).
    const completed: string[] = [];
    const answers = new Map<unknown, Record<string, any>>();
    const { mcpmux, send } = await rawMcpmux(
      ['--', 'asker', process.execPath, fixturePath('asks-client')],
      'asker',
      (m) => {
        if (m.method === 'notifications/elicitation/complete') completed.push(m.params.elicitationId);
        else if (m.id !== undefined) answers.set(m.id, m);
      },
      {
        capabilities: URL_CAPABLE,
        before: [
          {
            id: 0,
            method: 'server/discover',
            params: {
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientInfo': { name: 'prober', version: '1' },
                'io.modelcontextprotocol/clientCapabilities': URL_CAPABLE,
              },
            },
          },
        ],
      },
    );
    send({ id: 2, method: 'tools/call', params: { name: 'asker__needs_url', arguments: { id: 'e3' } } });
    t.ok(await waitFor(() => completed.length > 0), 'told it ended');
    t.equal(answers.get(2)?.error?.code, -32042, 'after the call failed with -32042');
    t.same(completed, ['e3']);
    mcpmux.stdin.end();
    await mcpmux.exited;
    await assertNoLeaks(t);
  },
);
