// Everything MCP carries besides tools, through mcpmux, compared with talking to
// server-everything directly: prompts, resources, templates, completions, logging,
// subscriptions, and the child's requests to the client (sampling, elicitation, roots).
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import type { ClientCapabilities, LoggingMessageNotification } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { z } from 'zod';
import { fixture, npmServerPath } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { taggedEnv, waitFor } from '../helpers/processes.js';

/** Children on two shared cores can be slow: wait generously for what must happen. */
const eventually = (condition: () => boolean | Promise<boolean>) => waitFor(condition, 20_000);

const everything = {
  command: process.execPath,
  args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
};
const CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

/** A client that answers sampling, elicitation and roots like a user would, and records what it got. */
function answeringClient() {
  const seen = {
    sampling: [] as unknown[],
    logs: [] as LoggingMessageNotification['params'][],
    updated: [] as string[],
    promptsChanged: 0,
    resourcesChanged: 0,
  };
  let roots = [{ uri: 'file:///work/one', name: 'one' }];
  const setup = (client: Client) => {
    client.setRequestHandler('sampling/createMessage', async (request) => {
      seen.sampling.push(request.params);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled answer 42' } };
    });
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    client.setRequestHandler('roots/list', async () => ({ roots }));
    client.setNotificationHandler('notifications/message', (n) => void seen.logs.push(n.params));
    client.setNotificationHandler(
      'notifications/resources/updated',
      (n) => void seen.updated.push(n.params.uri),
    );
    client.setNotificationHandler('notifications/prompts/list_changed', () => void seen.promptsChanged++);
    client.setNotificationHandler('notifications/resources/list_changed', () => void seen.resourcesChanged++);
  };
  return { seen, setup, setRoots: (next: typeof roots) => (roots = next) };
}

async function directClient(t: Test) {
  const client = new Client({ name: 'direct', version: '1.0.0' }, { capabilities: CAPABILITIES });
  answeringClient().setup(client);
  await client.connect(new StdioClientTransport({ ...everything, env: taggedEnv(), stderr: 'ignore' }));
  t.teardown(() => client.close());
  return client;
}

t.test(
  'prompts, resources, templates and completions are what server-everything says directly',
  async (t) => {
    const direct = await directClient(t);
    const { setup } = answeringClient();
    const h = await startHarness(t, { clientCapabilities: CAPABILITIES, setupClient: setup });
    await h.callJson('add_server', { name: 'ev', ...everything });

    const directPrompts = (await direct.listPrompts()).prompts;
    const prompts = (await h.client.listPrompts()).prompts;
    t.same(
      prompts,
      directPrompts.map((p) => ({ ...p, name: `ev__${p.name}` })),
      'prompts: same, under ev__',
    );
    t.same(
      await h.client.getPrompt({ name: 'ev__args-prompt', arguments: { city: 'Paris', state: 'TX' } }),
      await direct.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris', state: 'TX' } }),
      'prompts/get with arguments',
    );

    const directResources = (await direct.listResources()).resources;
    t.ok(directResources.length > 0);
    t.same((await h.client.listResources()).resources, directResources, 'resources: same URIs, unchanged');
    const first = directResources[0]!.uri;
    t.same(
      await h.client.readResource({ uri: first }),
      await direct.readResource({ uri: first }),
      'a listed resource reads the same',
    );

    const directTemplates = (await direct.listResourceTemplates()).resourceTemplates;
    t.same((await h.client.listResourceTemplates()).resourceTemplates, directTemplates, 'templates: same');
    const dynamic = 'demo://resource/dynamic/text/3';
    // Dynamic contents carry the time they were made: compare all but that.
    const timeless = (value: unknown) =>
      JSON.stringify(value).replace(/created at [^"]*/g, 'created at <time>');
    t.equal(
      timeless(await h.client.readResource({ uri: dynamic })),
      timeless(await direct.readResource({ uri: dynamic })),
      'a URI of a template reads the same',
    );

    const complete = (client: Client, name: string) =>
      client.complete({
        ref: { type: 'ref/prompt', name },
        argument: { name: 'name', value: '' },
        context: { arguments: { department: 'Sales' } },
      });
    const completion = await complete(h.client, 'ev__completable-prompt');
    t.same(
      completion,
      await complete(direct, 'completable-prompt'),
      'completions of a prompt argument, with context',
    );
    t.same(completion.completion.values, ['David', 'Eve', 'Frank']);
    const templateRef = { type: 'ref/resource' as const, uri: directTemplates[0]!.uriTemplate };
    t.same(
      await h.client.complete({ ref: templateRef, argument: { name: 'index', value: '1' } }),
      await direct.complete({ ref: templateRef, argument: { name: 'index', value: '1' } }),
      'completions of a template argument',
    );

    const [status] = (await h.callJson('list_servers')).servers;
    t.same(
      status.prompts,
      prompts.map((p) => p.name),
      'list_servers names the exposed prompts',
    );
    t.equal(status.resources, directResources.length);
    t.equal(status.resource_templates, directTemplates.length);

    await t.rejects(h.client.getPrompt({ name: 'ev__nope' }), {
      code: -32602,
      message: /^server 'ev' has no prompt 'ev__nope'; its prompts: .* \[PROMPT_NOT_FOUND\]$/,
    });
    // With one server that has resources, an unknown URI is its to answer; its error comes through once, unchanged.
    await t.rejects(h.client.readResource({ uri: 'nowhere://x' }), {
      code: -32602,
      message: /^Resource nowhere:\/\/x not found$/,
    });
    await direct.close();
    await h.close();
  },
);

t.test(
  "a child's sampling, elicitation and roots requests reach the client and its answers come back",
  async (t) => {
    const client = answeringClient();
    const h = await startHarness(t, { clientCapabilities: CAPABILITIES, setupClient: client.setup });
    await h.callJson('add_server', { name: 'ev', ...everything });
    // server-everything lists these only to a client that declared the capabilities: mcpmux passed them on.
    const names = await h.toolNames();
    for (const tool of [
      'ev__trigger-sampling-request',
      'ev__trigger-elicitation-request',
      'ev__get-roots-list',
    ])
      t.ok(names.includes(tool), tool);

    const sampled = textOf(
      await h.call('ev__trigger-sampling-request', { prompt: 'what is six times seven?' }),
    );
    t.match(sampled, /sampled answer 42/, "the client's answer reached the child's tool");
    t.match(JSON.stringify(client.seen.sampling), /what is six times seven\?/, 'the child asked the client');

    t.match(textOf(await h.call('ev__trigger-elicitation-request')), /Ada/, 'elicitation round trip');

    t.ok(
      await eventually(async () => textOf(await h.call('ev__get-roots-list')).includes('file:///work/one')),
      'roots round trip',
    );
    client.setRoots([{ uri: 'file:///work/two', name: 'two' }]);
    await h.client.sendRootsListChanged();
    t.ok(
      await eventually(async () => textOf(await h.call('ev__get-roots-list')).includes('file:///work/two')),
      'roots/list_changed fanned out; the child re-listed',
    );
    await h.close();
  },
);

t.test('logging: the level is fanned out, and messages come up with the server in logger', async (t) => {
  const client = answeringClient();
  const h = await startHarness(t, { clientCapabilities: CAPABILITIES, setupClient: client.setup });
  await h.callJson('add_server', { name: 'ev', ...everything });
  await h.client.setLoggingLevel('error');
  // Each switch-on sends one message of a random level at once: 20 of them, filtered by the child
  // at 'error', leave only error, critical, alert and emergency (unfiltered, a lower one would
  // show with a chance of 1 - 2^-20).
  for (let i = 0; i < 20; i++) {
    await h.call('ev__toggle-simulated-logging');
    await h.call('ev__toggle-simulated-logging');
  }
  // Only the simulated messages count ("Error-level message"…); the child may log other things before the level arrives.
  const simulated = () =>
    client.seen.logs.filter((l) => typeof l.data === 'string' && /level[ -]message/i.test(l.data));
  t.ok(await eventually(() => simulated().length > 0), 'messages arrived');
  const severe = ['error', 'critical', 'alert', 'emergency'];
  t.same(
    simulated().filter((l) => !severe.includes(l.level)),
    [],
    "only levels at or above the client's level: the child got it",
  );
  t.ok(
    client.seen.logs.every((l) => l.logger === 'ev' || l.logger?.startsWith('ev/')),
    'every message names its server',
  );
  await h.close();
});

t.test(
  'subscriptions: updates come back; a crash with an open subscription tells the client; reload resubscribes',
  async (t) => {
    const client = answeringClient();
    const h = await startHarness(t, { clientCapabilities: CAPABILITIES, setupClient: client.setup });
    await h.callJson('add_server', { name: 'ev', ...everything });
    const uri = (await h.client.listResources()).resources[0]!.uri;
    await h.client.subscribeResource({ uri });
    await h.call('ev__toggle-subscriber-updates');
    t.ok(
      await eventually(() => client.seen.updated.includes(uri)),
      'resources/updated for the subscribed URI',
    );

    const { pid } = (await h.callJson('list_servers')).servers[0];
    client.seen.updated.length = 0;
    const changedBefore = client.seen.resourcesChanged;
    process.kill(pid, 'SIGKILL');
    t.ok(
      await eventually(() => client.seen.updated.includes(uri)),
      'the crash is announced as an update of the subscribed resource',
    );
    t.ok(
      await eventually(() => client.seen.resourcesChanged > changedBefore),
      'and as a change of the resource list',
    );
    t.same((await h.client.listResources()).resources, [], "the crashed server's resources are gone");
    await t.rejects(h.client.readResource({ uri }), /RESOURCE_NOT_FOUND/);

    await h.callJson('reload_server', { name: 'ev' });
    client.seen.updated.length = 0;
    await h.call('ev__toggle-subscriber-updates');
    t.ok(await eventually(() => client.seen.updated.includes(uri)), 'after reload the subscription is back');
    await h.client.unsubscribeResource({ uri });
    await h.close();
  },
);

t.test(
  'two children listing the same URIs: both are rewritten to mcpmux://<server>/<uri>, and each reads from its own child',
  async (t) => {
    const client = answeringClient();
    const h = await startHarness(t, { clientCapabilities: CAPABILITIES, setupClient: client.setup });
    await h.callJson('add_server', { name: 'one', ...everything });
    const original = (await h.client.listResources()).resources[0]!.uri;
    await h.callJson('add_server', { name: 'two', ...everything });
    const uris = (await h.client.listResources()).resources.map((r) => r.uri);
    t.ok(
      uris.includes(`mcpmux://one/${original}`) && uris.includes(`mcpmux://two/${original}`),
      'both rewritten',
    );
    t.notOk(uris.includes(original), 'the shared URI itself is not listed');
    const read = await h.client.readResource({ uri: `mcpmux://two/${original}` });
    t.equal(
      read.contents[0]?.uri,
      `mcpmux://two/${original}`,
      'contents come under the URI the client asked for',
    );
    const templates = (await h.client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate);
    t.ok(
      templates.every((u) => u.startsWith('mcpmux://one/') || u.startsWith('mcpmux://two/')),
      'shared templates are rewritten too',
    );
    const viaTemplate = await h.client.readResource({ uri: 'mcpmux://one/demo://resource/dynamic/text/5' });
    t.match(
      JSON.stringify(viaTemplate),
      /Resource 5/i,
      'a rewritten template expands and reads from its child',
    );
    await h.client.subscribeResource({ uri: `mcpmux://two/${original}` });
    process.kill((await h.callJson('list_servers')).servers[1].pid, 'SIGKILL');
    t.ok(
      await eventually(() => client.seen.updated.includes(`mcpmux://two/${original}`)),
      'a crash announces the URI as the client subscribed it',
    );
    await h.callJson('remove_server', { name: 'two' });
    t.ok(
      (await h.client.listResources()).resources.some((r) => r.uri === original),
      'once unique again, the URI is unchanged',
    );
    await h.close();
  },
);

t.test('a child whose prompts change at run time: re-listed, and the client told', async (t) => {
  const client = answeringClient();
  const h = await startHarness(t, { clientCapabilities: CAPABILITIES, setupClient: client.setup });
  await h.callJson('add_server', { name: 'lc', ...fixture('list-changed') });
  t.same(
    (await h.client.listPrompts()).prompts.map((p) => p.name),
    ['lc__hello'],
  );
  t.ok(await eventually(() => client.seen.promptsChanged === 1), 'the add itself announced the new prompts');
  await h.call('lc__add_prompt', { name: 'fresh' });
  t.ok(
    await eventually(async () => (await h.client.listPrompts()).prompts.some((p) => p.name === 'lc__fresh')),
    're-listed',
  );
  t.same(
    (await h.client.listPrompts()).prompts.map((p) => p.name),
    ['lc__hello', 'lc__fresh'],
  );
  t.ok(await eventually(() => client.seen.promptsChanged === 2), 'and the client was told');
  t.match(JSON.stringify(await h.client.getPrompt({ name: 'lc__fresh' })), /prompt fresh/);
  await h.close();
});

t.test(
  'a child that declares lists it cannot serve (no prompts/list, no templates, a failing resources/list) starts with its tools',
  async (t) => {
    const h = await startHarness(t);
    const added = (await h.callJson('add_server', { name: 'partial', ...fixture('partial-catalog') })) as {
      tools: { name: string }[];
    };
    t.same(
      added.tools.map((tool) => tool.name),
      ['partial__ping'],
    );
    t.equal(textOf(await h.call('partial__ping', {})), 'pong');
    t.same((await h.client.listPrompts()).prompts, []);
    t.same((await h.client.listResources()).resources, []);
    t.same((await h.client.listResourceTemplates()).resourceTemplates, []);
    await h.close();
  },
);

t.test(
  'items that are not valid MCP are left out and named; the rest of the server works, and a fixed list clears them',
  async (t) => {
    const h = await startHarness(t);
    const added = (await h.callJson('add_server', { name: 'odd', ...fixture('malformed-items') })) as {
      server: { status: string; skipped?: string[] };
      tools: { name: string }[];
    };
    t.equal(added.server.status, 'running', 'one bad tool does not fail the start');
    t.same(
      added.tools.map((tool) => tool.name),
      ['odd__ping', 'odd__fix'],
    );
    t.same(added.server.skipped, [
      "tool 'no_schema': inputSchema: Invalid input: expected object, received undefined",
      'tool \'string_schema\': inputSchema.type: Invalid input: expected "object"',
      'prompt #2: name: Invalid input: expected string, received undefined',
      "resource named 'no uri': uri: Invalid input: expected string, received undefined",
    ]);
    // The client validates the whole aggregated list: it gets it, without the bad items.
    t.same(
      (await h.client.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('odd__')),
      ['odd__ping', 'odd__fix'],
    );
    t.same(
      (await h.client.listPrompts()).prompts.map((p) => p.name),
      ['odd__greet'],
    );
    t.same(
      (await h.client.listResources()).resources.map((r) => r.uri),
      ['file:///ok.txt'],
    );
    t.equal(textOf(await h.call('odd__ping', {})), 'pong');
    t.equal(textOf(await h.call('odd__fix', {})), 'fixed');
    t.ok(
      await eventually(async () =>
        (await h.client.listTools()).tools.some((tool) => tool.name === 'odd__no_schema'),
      ),
      'the fixed tool is listed once the server says its list changed',
    );
    const status = (
      (await h.callJson('list_servers')).servers as { name: string; skipped?: string[] }[]
    ).find((s) => s.name === 'odd')!;
    t.same(
      status.skipped,
      [
        'prompt #2: name: Invalid input: expected string, received undefined',
        "resource named 'no uri': uri: Invalid input: expected string, received undefined",
      ],
      'only the re-listed tools are clear: prompts and resources were not listed again',
    );
    await h.close();
  },
);

t.test(
  'a child asking for what the client did not declare gets a clear error; a client that did gets the request',
  async (t) => {
    const bare = await startHarness(t);
    await bare.callJson('add_server', { name: 'asker', ...fixture('asks-client') });
    const asks = [
      ['sampling/createMessage', 'sampling'],
      ['elicitation/create', 'elicitation'],
      ['roots/list', 'roots'],
    ] as const;
    for (const [method, capability] of asks) {
      t.equal(
        textOf(await bare.call('asker__ask', { method })),
        `error: MCP error -32601: the client connected to mcpmux did not declare the '${capability}' capability, so mcpmux cannot forward ${method}`,
        method,
      );
    }
    await bare.close();
    const h = await startHarness(t, {
      clientCapabilities: CAPABILITIES,
      setupClient: answeringClient().setup,
    });
    await h.callJson('add_server', { name: 'asker', ...fixture('asks-client') });
    t.match(textOf(await h.call('asker__ask', { method: 'roots/list' })), /answer: .*file:\/\/\/work\/one/);
    t.match(textOf(await h.call('asker__ask', { method: 'elicitation/create' })), /answer: .*Ada/);
    await h.close();
  },
);

t.test(
  "a task-augmented call of a tool whose server does not say it may run as one is refused with the reason; tasks/list is this session's",
  async (t) => {
    const h = await startHarness(t);
    await h.callJson('add_server', { name: 'e', ...fixture('echo-v1') });
    await t.rejects(
      h.client.request(
        { method: 'tools/call', params: { name: 'e__echo', arguments: { text: 'x' }, task: { ttl: 1000 } } },
        z.any(),
      ),
      /e__echo does not run as a task \(its server does not say it may: execution\.taskSupport\)/,
      'refused by mcpmux itself, not handed to the child',
    );
    await t.rejects(
      h.client.request({ method: 'tools/call', params: { name: 'list_servers', task: {} } }, z.any()),
      /list_servers does not run as a task/,
    );
    t.same(await h.client.request({ method: 'tasks/list', params: {} }, z.any()), { tasks: [] });
    await t.rejects(
      h.client.request({ method: 'tasks/get', params: { taskId: 'abc' } }, z.any()),
      /no task 'abc'/,
    );
    await h.close();
  },
);
