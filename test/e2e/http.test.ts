// mcpmux served over streamable HTTP: two clients at once share the servers and both hear
// list_changed; the bearer token is checked; binding beyond loopback needs one.
import { execFile } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { writeFileSync } from 'node:fs';
import { assertEverythingInstructions, recordWireProgress } from '../helpers/client-calls.js';
import { DIST_MAIN, fixture, npmServerPath } from '../helpers/fixtures.js';
import { tempConfigPath } from '../helpers/temp-config.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, taggedEnv, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

async function serveHttp(args: string[]): Promise<{ proc: ChildProcess; url: string; stderr: () => string }> {
  const served = await startMcpmuxHttp(args);
  return { proc: served.process, url: served.url, stderr: served.stderr };
}

async function connect(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'http-client', version: '1.0.0' });
  let listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return { client, listChanged: () => listChanged };
}

/** Closes the clients, then mcpmux with SIGTERM, and checks that nothing it started is left. */
async function endAll(t: Test, proc: ChildProcess, clients: { close: () => Promise<void> }[]): Promise<void> {
  for (const client of clients) await client.close();
  process.kill(proc.pid, 'SIGTERM');
  await proc.exited;
  await assertNoLeaks(t);
}

const text = (r: unknown) =>
  (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

t.test('two clients share the servers; a change made by one reaches both', async (t) => {
  const { proc, url } = await serveHttp([]);
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const a = await connect(url);
  const b = await connect(url);
  await a.client.callTool({ name: 'add_server', arguments: { name: 'echo', ...fixture('echo-v1') } });
  t.ok(await waitFor(() => a.listChanged() > 0 && b.listChanged() > 0), 'both sessions hear list_changed');
  t.ok(
    (await b.client.listTools()).tools.some((x) => x.name === 'echo__echo'),
    'the other session sees the new tools',
  );
  t.match(text(await b.client.callTool({ name: 'echo__echo', arguments: { message: 'from b' } })), 'from b');
  await a.client.close();
  t.match(
    text(await b.client.callTool({ name: 'echo__echo', arguments: { message: 'still here' } })),
    'still here',
    'one session closing leaves the others and the servers',
  );
  await b.client.close();
  process.kill(proc.pid, 'SIGTERM');
  t.same(await proc.exited, { code: 143, signal: null });
  await assertNoLeaks(t);
});

t.test(
  "a session opened while a configured server starts, or once it runs, is given that server's instructions in its initialize",
  async (t) => {
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    const { proc, url } = await serveHttp(['--', 'ev', process.execPath, everything, 'stdio']);
    // The first session comes as mcpmux starts: its initialize answer waits for the server (up to 5 s).
    const first = await connect(url);
    t.match(first.client.getInstructions(), /Instructions of server 'ev'/, 'the first session has them');
    t.ok(
      (await first.client.listTools()).tools.some((tool) => tool.name === 'ev__echo'),
      'ev runs',
    );
    const second = await connect(url);
    const instructions = second.client.getInstructions() ?? '';
    assertEverythingInstructions(t, instructions);
    await endAll(t, proc, [first.client, second.client]);
  },
);

t.test(
  "a session's calls take the fast path; two sessions' calls under the same id and token each get their own progress",
  async (t) => {
    const { proc, url } = await serveHttp([]);
    const a = await connect(url);
    const b = await connect(url);
    await a.client.callTool({ name: 'add_server', arguments: { name: 'slow', ...fixture('slow-call') } });
    t.match(
      text(await b.client.callTool({ name: 'slow__request_id', arguments: {} })),
      /^mcpmux-\d+$/,
      'the child saw an id of the fast path',
    );
    // Both clients number their requests alike: the same request id and progress token reach mcpmux twice.
    const progress = { a: [] as number[], b: [] as number[] };
    const wire = { a: recordWireProgress(a.client), b: recordWireProgress(b.client) };
    const [ra, rb] = await Promise.all(
      (['a', 'b'] as const).map((who) =>
        (who === 'a' ? a : b).client.callTool(
          { name: 'slow__wait', arguments: { steps: who === 'a' ? 3 : 5, interval_ms: 20 } },
          { onprogress: (p) => void progress[who].push(p.progress) },
        ),
      ),
    );
    t.equal(text(ra), 'waited 3 steps');
    t.equal(text(rb), 'waited 5 steps');
    t.same(
      wire,
      { a: { values: [1, 2, 3], late: 0 }, b: { values: [1, 2, 3, 4, 5], late: 0 } },
      "each session hears its own call's progress, before its answer",
    );
    t.same(
      progress,
      { a: [1, 2, 3].slice(0, progress.a.length), b: [1, 2, 3, 4, 5].slice(0, progress.b.length) },
      'what the SDK handed on (see recordWireProgress)',
    );
    await endAll(t, proc, [a.client, b.client]);
  },
);

t.test('the bearer token is required when set', async (t) => {
  const { proc, url } = await serveHttp(['--auth-token', 's3cret-token']);
  await t.rejects(connect(url), /401|Unauthorized|bearer token/i, 'no token');
  await t.rejects(
    connect(url, { Authorization: 'Bearer wrong' }),
    /401|Unauthorized|bearer token/i,
    'wrong token',
  );
  const ok = await connect(url, { Authorization: 'Bearer s3cret-token' });
  t.ok((await ok.client.listTools()).tools.some((x) => x.name === 'add_server'));
  await endAll(t, proc, [ok.client]);
});

t.test('binding beyond loopback without a token is refused', async (t) => {
  const run = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [DIST_MAIN, '--http', '0', '--host', '0.0.0.0'],
      { env: taggedEnv() },
      (error, _stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stderr }),
    ),
  );
  t.equal(run.code, 2);
  t.match(
    run.stderr,
    /refusing to serve on 0\.0\.0\.0 without --auth-token-file FILE \(or MCPMUX_AUTH_TOKEN\)/,
  );
});

t.test(
  'over HTTP a configured server starts before any client, yet can sample through the client that can',
  async (t) => {
    const config = tempConfigPath(t, 'mcpmux-http-relay');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          ev: {
            command: process.execPath,
            args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
          },
        },
      }),
    );
    const { proc, url, stderr } = await serveHttp(['--config', config]);
    t.ok(await waitFor(() => /server 'ev' is running/.test(stderr()), 30_000), 'started before any client');

    const plain = await connect(url);
    const refused = (await plain.client.callTool({
      name: 'ev__trigger-sampling-request',
      arguments: { prompt: 'x' },
    })) as CallToolResult;
    t.match(
      text(refused),
      /the client calling server 'ev' did not declare the 'sampling' capability, so mcpmux cannot forward sampling\/createMessage to it/,
      'the calling client cannot sample: it says so',
    );

    const capable = new Client({ name: 'sampler', version: '1.0.0' }, { capabilities: { sampling: {} } });
    capable.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'sampled answer 42' },
      model: 'test-model',
    }));
    await capable.connect(new StreamableHTTPClientTransport(new URL(url)));
    const sampled = (await capable.callTool({
      name: 'ev__trigger-sampling-request',
      arguments: { prompt: 'six times seven?' },
    })) as CallToolResult;
    t.match(text(sampled), /sampled answer 42/, "the capable client's answer reached the child");
    await endAll(t, proc, [plain.client, capable]);
  },
);
