// What a child asks of the client (elicitation, sampling, roots) reaches a client of either
// era and the answer comes back, through the built mcpmux: a 2025 child asks by a request in
// the middle of the call, a 2026-07-28 child by an input_required result; a 2025 client is
// asked by a request, a 2026-07-28 client by an input_required result it answers by calling
// again (the SDK client does that by itself; a manual caller sees each round).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import t from 'tap';
import { z } from 'zod';
import { addFixtures, resultText } from '../helpers/client-calls.js';
import { DIST_MAIN, npmServerPath } from '../helpers/fixtures.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { LEAK_TAG_VAR, assertNoLeaks, killTaggedProcesses, taggedEnv } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

type Mode = 'legacy' | { pin: '2026-07-28' };
const MODERN = { pin: '2026-07-28' } as const;
const ALL: ClientCapabilities = { elicitation: { form: {} }, sampling: {}, roots: {} };

/** A client that answers what it declared: a name for a form, "Paris" for a sample, one root. */
function answeringClient(
  mode: Mode,
  capabilities: ClientCapabilities = ALL,
): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const client = new Client(
    { name: 'relay-client', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode } },
  );
  if (capabilities.elicitation)
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(`elicit ${request.params.message}`);
      const properties = Object.keys(
        ('requestedSchema' in request.params && request.params.requestedSchema?.properties) || {},
      );
      const content = Object.fromEntries(
        properties.map((p) => [p, p === 'confirm' ? true : p === 'colour' ? 'teal' : 'Ada']),
      );
      return { action: 'accept', content };
    });
  if (capabilities.sampling)
    client.setRequestHandler('sampling/createMessage', () => {
      asked.push('sample');
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test' };
    });
  if (capabilities.roots)
    client.setRequestHandler('roots/list', () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///work/one' }] };
    });
  return { client, asked };
}

async function overStdio(client: Client): Promise<void> {
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [DIST_MAIN, '--pass-env', LEAK_TAG_VAR],
      env: taggedEnv(),
      stderr: 'pipe',
    }),
  );
}

// The 2026-07-28 child is pinned to its era: a 2025 client's servers otherwise speak 2025 when they can.
const addServers = (client: Client) =>
  addFixtures(client, { old: 'asks-client', new: { fixture: 'modern-v2', era: 'modern' } });

for (const [label, mode] of [
  ['2026-07-28', MODERN],
  ['2025', 'legacy'],
] as const) {
  t.test(`a ${label} client over stdio answers a 2025 child and a 2026-07-28 child`, async (t) => {
    const { client, asked } = answeringClient(mode);
    await overStdio(client);
    await addServers(client);
    t.match(
      resultText(await client.callTool({ name: 'old__ask', arguments: { method: 'elicitation/create' } })),
      /answer: .*"name":"Ada"/,
    );
    t.match(
      resultText(
        await client.callTool({ name: 'old__ask', arguments: { method: 'sampling/createMessage' } }),
      ),
      /answer: .*Paris/,
    );
    t.match(
      resultText(await client.callTool({ name: 'old__ask', arguments: { method: 'roots/list' } })),
      /answer: .*file:\/\/\/work\/one/,
    );
    // Three at once, then one more: a 2026-07-28 client gets the three in one round.
    const all = resultText(await client.callTool({ name: 'old__ask_all', arguments: {} }));
    t.match(
      all,
      /answers: \[\{"action":"accept","content":\{"name":"Ada"\}\},\{.*"Paris".*\},\{"roots":\[.*\]\},\{"action":"accept"/,
    );
    t.equal(
      resultText(await client.callTool({ name: 'new__confirm', arguments: { action: 'deploy' } })),
      'deploy: accept {"confirm":true}',
    );
    t.same(asked.slice(-1), ['elicit Confirm deploy?']);
    if (mode !== 'legacy') {
      // The child's own requestState comes back to it, round after round.
      t.equal(resultText(await client.callTool({ name: 'new__wizard', arguments: {} })), 'Ada likes teal');
    }
    await client.close();
    await assertNoLeaks(t);
  });
}

t.test(
  'a 2026-07-28 client driving the rounds itself sees what was asked, and mcpmux guards its state',
  async (t) => {
    const { client } = answeringClient(MODERN);
    await overStdio(client);
    await addServers(client);
    const round = (name: string, params: Record<string, unknown>) =>
      client.request(
        { method: 'tools/call', params: { name, arguments: {}, ...params } },
        z.record(z.string(), z.any()),
        { allowInputRequired: true },
      ) as Promise<Record<string, any>>;

    // A 2025 child's questions are keyed by mcpmux; gathered into one round.
    const first = await round('old__ask_all', {});
    t.equal(first['resultType'], 'input_required');
    t.same(Object.keys(first['inputRequests']).sort(), ['elicitation_1', 'roots_3', 'sampling_2']);
    t.equal(first['inputRequests'].elicitation_1.method, 'elicitation/create');
    t.type(first['requestState'], 'string');

    // A forged or altered state is refused before anything runs; so is one brought to another tool.
    await t.rejects(round('old__ask_all', { requestState: `${first['requestState']}x` }), {
      code: -32602,
      message: /Invalid or expired requestState/,
    });
    const elsewhere = await client
      .request(
        {
          method: 'tools/call',
          params: { name: 'new__echo', arguments: { message: 'x' }, requestState: first['requestState'] },
        },
        z.any(),
      )
      .then(
        () => 'answered',
        (error: Error) => error.message,
      );
    t.match(elsewhere, /issued for another request/);

    // Answering two of three: the third is asked again, alone.
    const answers = {
      elicitation_1: { action: 'accept', content: { name: 'Bo' } },
      sampling_2: { role: 'assistant', content: { type: 'text', text: 'Oslo' }, model: 'm' },
      roots_3: { roots: [] },
    };
    const second = await round('old__ask_all', {
      requestState: first['requestState'],
      inputResponses: { elicitation_1: answers.elicitation_1, sampling_2: answers.sampling_2 },
    });
    t.same(Object.keys(second['inputRequests']), ['roots_3']);
    const third = await round('old__ask_all', {
      requestState: second['requestState'],
      inputResponses: { roots_3: answers.roots_3 },
    });
    t.same(
      Object.keys(third['inputRequests']),
      ['elicitation_4'],
      'the question asked after the first three',
    );
    // A state is good once: the round it opened has been answered.
    await t.rejects(
      round('old__ask_all', { requestState: first['requestState'] }),
      /no longer waits for input/,
    );
    const done = await round('old__ask_all', {
      requestState: third['requestState'],
      inputResponses: { elicitation_4: { action: 'decline' } },
    });
    t.match(
      resultText(done),
      /answers: \[\{"action":"accept","content":\{"name":"Bo"\}\},.*"Oslo".*\{"roots":\[\]\},\{"action":"decline"\}\]/,
    );

    // A 2026-07-28 child's own keys pass through as it chose them.
    const modern = await round('new__confirm', { arguments: { action: 'ship' } });
    t.same(Object.keys(modern['inputRequests']), ['confirm']);
    const shipped = await round('new__confirm', {
      arguments: { action: 'ship' },
      requestState: modern['requestState'],
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    });
    t.equal(resultText(shipped), 'ship: accept {"confirm":true}');
    await client.close();
    await assertNoLeaks(t);
  },
);

t.test(
  'a 2026-07-28 client that did not declare a capability: the child is told, the call goes on',
  async (t) => {
    const { client } = answeringClient(MODERN, { elicitation: { form: {} } });
    await overStdio(client);
    await addServers(client);
    t.match(
      resultText(
        await client.callTool({ name: 'old__ask', arguments: { method: 'sampling/createMessage' } }),
      ),
      /error: .*did not declare the 'sampling' capability/,
    );
    t.match(
      resultText(await client.callTool({ name: 'old__ask', arguments: { method: 'elicitation/create' } })),
      /answer: .*Ada/,
    );
    await client.close();
    await assertNoLeaks(t);
  },
);

t.test(
  'over HTTP, each era is asked on its own terms, the modern rounds going to different requests',
  async (t) => {
    const served = await startMcpmuxHttp([]);
    const modern = answeringClient(MODERN);
    const legacy = answeringClient('legacy');
    await modern.client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await legacy.client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    await addServers(legacy.client);
    for (const { client, asked } of [modern, legacy]) {
      t.match(
        resultText(await client.callTool({ name: 'old__ask_all', arguments: {} })),
        /answers: \[.*"Ada".*"Paris".*file:\/\/\/work\/one.*"Ada"/,
      );
      t.same(asked.slice(-4).sort(), ['elicit Your name?', 'elicit Your name?', 'roots', 'sample']);
      t.equal(
        resultText(await client.callTool({ name: 'new__confirm', arguments: { action: 'x' } })),
        'x: accept {"confirm":true}',
      );
    }
    await modern.client.close();
    await legacy.client.close();
    await served.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "server-everything's elicitation reaches a 2026-07-28 client as an input_required round",
  async (t) => {
    const client = new Client(
      { name: 'relay-client', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: MODERN } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada Lovelace' } };
    });
    await overStdio(client);
    const added = await client.callTool({
      name: 'add_server',
      arguments: {
        name: 'ev',
        command: process.execPath,
        args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
      },
    });
    t.notOk(added.isError, 'server-everything runs');
    const tools = (await client.listTools()).tools.map((x) => x.name);
    t.ok(tools.includes('ev__trigger-elicitation-request'), 'it was told the client side can elicit');
    const answered = resultText(
      await client.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} }),
    );
    t.match(answered, /User provided the requested information[\s\S]*- Name: Ada Lovelace/);
    t.equal(asked.length, 1, 'asked once');
    await client.close();
    await assertNoLeaks(t);
  },
);
