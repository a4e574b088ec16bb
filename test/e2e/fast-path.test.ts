// The forwarding fast path, driven as a client drives mcpmux on stdio: a call to a 2025
// child travels under an id of mcpmux's own and comes back under the client's, with
// progress, cancellation, --call-timeout, removal, a crash and result spilling behaving as
// on the SDK's path.
import t, { type Test } from 'tap';
import { addFixtures, resultText } from '../helpers/client-calls.js';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { DIST_MAIN, fixturePath, npmServerPath } from '../helpers/fixtures.js';
import { startMcpmux, type Session } from '../helpers/mcpmux-process.js';
import {
  LEAK_TAG_VAR,
  assertNoLeaks,
  killTaggedProcesses,
  taggedEnv,
  waitFor,
} from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const server = (name: string, fixture: Parameters<typeof fixturePath>[0]) => [
  '--',
  name,
  process.execPath,
  fixturePath(fixture),
];

/** Connects a client of its own to mcpmux on stdio, with these servers, once they are up. */
async function overStdio(t: Test, client: Client, servers: string[]): Promise<void> {
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [DIST_MAIN, '--pass-env', LEAK_TAG_VAR, ...servers],
      env: taggedEnv(),
      stderr: 'pipe',
    }),
  );
  t.teardown(() => client.close());
  await client.listTools();
}

async function start(t: Test, flags: string[] = []): Promise<Session> {
  const s = await startMcpmux([
    ...flags,
    ...server('slow', 'slow-call'),
    ...server('big', 'big-result'),
    ...server('crash', 'crash-on-call'),
  ]);
  t.teardown(async () => {
    await s.client.close().catch(() => {});
    await s.process.exited;
  });
  // Once the servers given at start are up (a call before that waits for them on the slow path).
  await s.client.listTools();
  return s;
}

t.test(
  'a call reaches the child under an id of mcpmux, and its answer the client under its own',
  async (t) => {
    const s = await start(t);
    t.match(resultText(await s.call('slow__request_id')), /^mcpmux-\d+$/, 'the child saw a fast-path id');
    t.match(
      resultText(await s.call('call_tool', { name: 'slow__request_id' })),
      /^mcpmux-\d+$/,
      'call_tool takes the same path',
    );
    const many = await Promise.all(
      Array.from({ length: 50 }, (_, i) => s.call('slow__wait', { steps: 1, interval_ms: i % 7 })),
    );
    t.ok(
      many.every((r) => resultText(r) === 'waited 1 steps'),
      '50 calls at once each get their answer',
    );
    const unknown = await s.call('slow__nope');
    t.match(resultText(unknown), /has no tool 'slow__nope'/, 'an unknown tool is answered as before');
  },
);

t.test('progress comes back under the client token and holds off --call-timeout', async (t) => {
  const s = await start(t, ['--call-timeout', '1']);
  const seen: unknown[] = [];
  const result = await s.client.callTool(
    { name: 'slow__wait', arguments: { steps: 4, interval_ms: 400 } },
    { onprogress: (p) => seen.push(p) },
  );
  t.equal(resultText(result as never), 'waited 4 steps', '1.6 s of work, progress every 0.4 s');
  t.same(
    seen,
    [1, 2, 3, 4].map((progress) => ({ progress, total: 4 })),
  );

  const started = Date.now();
  const silent = await s.call('slow__wait', { steps: 20, interval_ms: 200 });
  t.ok(silent.isError, 'without progress the call times out');
  t.match(resultText(silent), /did not answer tool 'wait' within 1 s .*\[CALL_TIMEOUT\]/);
  t.ok(Date.now() - started < 3500, 'after about the timeout');
  t.ok(
    await waitFor(async () => resultText(await s.call('slow__last_wait')) === 'cancelled'),
    'the child was told to stop',
  );
});

t.test("the client's cancellation reaches the child under the child's id", async (t) => {
  const s = await start(t);
  const controller = new AbortController();
  const call = s.client.callTool(
    { name: 'slow__wait', arguments: { steps: 500, interval_ms: 10 } },
    { signal: controller.signal },
  );
  t.ok(await waitFor(async () => resultText(await s.call('slow__last_wait')) === 'running'));
  controller.abort('changed my mind');
  await t.rejects(call);
  t.ok(await waitFor(async () => resultText(await s.call('slow__last_wait')) === 'cancelled'));
});

t.test('removal and a crash settle the calls in flight with the reason', async (t) => {
  const s = await start(t);
  const inFlight = s.call('slow__wait', { steps: 500, interval_ms: 10 });
  t.ok(await waitFor(async () => resultText(await s.call('slow__last_wait')) === 'running'));
  await s.json('remove_server', { name: 'slow' });
  const removed = await inFlight;
  t.ok(removed.isError);
  t.match(resultText(removed), /server 'slow' was removed while the call was in flight \[SERVER_STOPPED\]/);

  const crashed = await s.call('crash__crash');
  t.ok(crashed.isError);
  t.match(resultText(crashed), /server 'crash' crashed \(exit 1\); call reload_server .*\[SERVER_CRASHED\]/);
});

t.test('a result above --max-result-bytes is kept and cut; a small one passes whole', async (t) => {
  const s = await start(t, ['--max-result-bytes', '2048']);
  const large = await s.call('big__lines', { bytes: 50_000 });
  const texts = large.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
  t.ok(Buffer.byteLength(texts[0]!) <= 2048, 'the text is cut to the bound');
  t.match(texts[1], /kept as handle "/, 'with the handle to read the rest');
  t.ok(
    large.content.some((c) => c.type === 'image'),
    'other blocks are kept',
  );
  const small = await s.call('big__lines', { bytes: 500 });
  t.ok(resultText(small).startsWith('line 1:'), 'a small one is whole');
  t.notMatch(resultText(small), /kept as handle/);
});

t.test('a 2026-07-28 client takes it to a 2026-07-28 child, rounds and all', async (t) => {
  // Its first call goes on the fast path with the envelope the child expects; an
  // input_required round comes back with the child's requestState sealed, and the next round
  // (which brings that state) is verified on the SDK's path.
  const client = new Client(
    { name: 'modern', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    const wants = Object.keys(
      ('requestedSchema' in request.params && request.params.requestedSchema?.properties) || {},
    );
    return {
      action: 'accept',
      content: Object.fromEntries(wants.map((p) => [p, p === 'colour' ? 'teal' : 'Ada'])),
    };
  });
  await overStdio(t, client, [
    ...server('v2', 'modern-v2'),
    ...server('slow', 'slow-call'),
    ...server('asks', 'asks-client'),
  ]);
  const idOf = async (name: string) => resultText(await client.callTool({ name, arguments: {} }));
  t.match(await idOf('v2__request_id'), /^mcpmux-\d+$/, 'the 2026-07-28 child saw a fast-path id');
  t.equal(resultText(await client.callTool({ name: 'v2__wizard', arguments: {} })), 'Ada likes teal');
  t.equal(
    resultText(await client.callTool({ name: 'v2__echo', arguments: { message: 'hi' } })),
    'hi',
    'a plain call after the rounds',
  );
  // A 2025 child told it may ask the client: called as a line too, and held only once it asks.
  t.match(await idOf('slow__request_id'), /^mcpmux-\d+$/, 'the 2025 child saw a fast-path id');
  t.match(
    resultText(await client.callTool({ name: 'asks__ask', arguments: { method: 'elicitation/create' } })),
    /^answer: \{"action":"accept","content":\{"name":"Ada"\}\}$/,
    "its question became a round of the client's call, and the answer reached it",
  );
  t.equal(
    resultText(await client.callTool({ name: 'slow__wait', arguments: { steps: 2, interval_ms: 5 } })),
    'waited 2 steps',
    'a plain call after the held one',
  );
  // An answer mcpmux makes itself (its child died under the call) is a complete 2026-07-28 result.
  const crashed = await client.callTool({ name: 'v2__crash', arguments: {} });
  t.ok(crashed.isError);
  t.match(resultText(crashed), /server 'v2' crashed \(exit 1\).*\[SERVER_CRASHED\]/);
});

t.test("a server that writes its answers' fields in the Python SDK's order", async (t) => {
  // {"jsonrpc":"2.0","id":…,"result":…}: the answer's id is found and replaced where it stands.
  const s = await startMcpmux(['--max-result-bytes', '2000', ...server('py', 'python-shape')]);
  t.teardown(async () => {
    await s.client.close().catch(() => {});
    await s.process.exited;
  });
  await s.client.listTools();
  t.match(resultText(await s.call('py__request_id')), /^mcpmux-\d+$/, 'on the fast path');
  t.equal(resultText(await s.call('py__echo', { message: 'é "quoted" \\n' })), 'é "quoted" \\n');
  const many = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      s.call('call_tool', { name: 'py__echo', arguments: { message: `m${i}` } }),
    ),
  );
  t.same(
    many.map(resultText),
    many.map((_, i) => `m${i}`),
    '30 calls at once, through call_tool, each get their own answer',
  );
  t.match(
    resultText(await s.call('py__lines', { count: 500 })),
    /line 1 of the text[^]*kept as handle/,
    'a large one is cut',
  );
  await t.rejects(
    s.call('py__fail'),
    { code: -32602, message: /Unknown tool: fail/ },
    'its error comes through',
  );
});

t.test('a 2026-07-28 child that leaves resultType out is read as complete, in either era', async (t) => {
  // What its SDK path has done since 2026-07-28 children were served (result-type-bridge.ts),
  // the fast path does too: a 2026-07-28 client's SDK refuses a result without the field.
  for (const era of ['2026-07-28', '2025'] as const) {
    const client = new Client(
      { name: era, version: '1.0.0' },
      era === '2025' ? {} : { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await overStdio(t, client, []);
    // Pinned: a 2025 client's servers otherwise speak 2025 when they can. (A 2025 client's
    // call to a 2026-07-28 child takes the SDK's path, which reshapes it.)
    await addFixtures(client, { bare: { fixture: 'omits-result-type', era: 'modern' } });
    if (era === '2026-07-28')
      t.match(
        await client.callTool({ name: 'bare__request_id', arguments: {} }).then(resultText),
        /^mcpmux-\d+$/,
        'on the fast path',
      );
    const echoed = await client.callTool({ name: 'bare__echo', arguments: { message: 'hi' } });
    t.equal(resultText(echoed), 'hi', `${era}: a call`);
    const through = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'bare__echo', arguments: { message: 'again' } },
    });
    t.equal(resultText(through), 'again', `${era}: a call through call_tool`);
    const memo = await client.readResource({ uri: 'memo://modern' });
    t.match(memo.contents, [{ uri: 'memo://modern', text: 'a memo' }], `${era}: a resource read`);
  }
});

t.test(
  'a 2026-07-28 client that declares nothing it can be asked takes a 2025 child on the fast path too',
  async (t) => {
    // mcpmux tells a 2025 child what the 2026-07-28 client declared in its requests (here
    // nothing), as it would tell it a 2025 client's: what the child asks is refused, saying why.
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await overStdio(t, client, [...server('slow', 'slow-call'), ...server('asks', 'asks-client')]);
    t.match(
      resultText(await client.callTool({ name: 'slow__request_id', arguments: {} })),
      /^mcpmux-\d+$/,
      'the 2025 child saw a fast-path id',
    );
    const asked = await client.callTool({
      name: 'asks__ask',
      arguments: { method: 'sampling/createMessage' },
    });
    t.match(
      resultText(asked),
      /^error: .*the client connected to mcpmux did not declare the 'sampling' capability/,
      "the child's question is refused, saying what the client did not declare",
    );
    const during = client.callTool({ name: 'slow__wait', arguments: { steps: 3, interval_ms: 20 } });
    const roots = await client.callTool({ name: 'asks__ask', arguments: { method: 'roots/list' } });
    t.match(
      resultText(roots),
      /did not declare the 'roots' capability/,
      'so is one asked while another call runs',
    );
    t.equal(resultText(await during), 'waited 3 steps');
  },
);

t.test(
  'prompts/get, resources/read and completion/complete come back as the child gives them, in either era',
  async (t) => {
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], env: taggedEnv() }),
    );
    t.teardown(() => direct.close());
    const template = 'demo://resource/dynamic/text/{resourceId}';
    const asked = {
      prompt: { name: 'args-prompt', arguments: { city: 'Paris', state: 'TX' } },
      completion: {
        ref: { type: 'ref/prompt' as const, name: 'completable-prompt' },
        argument: { name: 'name', value: '' },
        context: { arguments: { department: 'Sales' } },
      },
      templateCompletion: {
        ref: { type: 'ref/resource' as const, uri: template },
        argument: { name: 'resourceId', value: '1' },
      },
    };
    const expected = {
      prompt: await direct.getPrompt(asked.prompt),
      completion: await direct.complete(asked.completion),
      templateCompletion: await direct.complete(asked.templateCompletion),
      resource: await direct.readResource({ uri: 'demo://resource/dynamic/text/1' }),
    };
    t.same(expected.completion.completion.values, ['David', 'Eve', 'Frank'], 'the child completes');
    const withoutMeta = ({ _meta, ...rest }: Record<string, unknown>) => rest;
    for (const era of ['2025', '2026-07-28'] as const) {
      const client = new Client(
        { name: era, version: '1.0.0' },
        era === '2025' ? {} : { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await overStdio(t, client, ['--', 'ev', process.execPath, everything, 'stdio']);
      const got = {
        prompt: await client.getPrompt({ ...asked.prompt, name: 'ev__args-prompt' }),
        completion: await client.complete({
          ...asked.completion,
          ref: { type: 'ref/prompt', name: 'ev__completable-prompt' },
        }),
        templateCompletion: await client.complete(asked.templateCompletion),
        resource: await client.readResource({ uri: 'demo://resource/dynamic/text/1' }),
      };
      t.same(withoutMeta(got.prompt), expected.prompt, `${era}: a prompt with arguments`);
      t.same(withoutMeta(got.completion), expected.completion, `${era}: a prompt argument's completions`);
      t.same(
        withoutMeta(got.templateCompletion),
        expected.templateCompletion,
        `${era}: a template argument's completions`,
      );
      // Dynamic contents carry the time they were made.
      const timeless = (value: unknown) =>
        JSON.stringify(value).replace(/(created at|Timestamp:?) [^"\\]*/gi, '<time>');
      t.equal(
        timeless(withoutMeta(got.resource).contents),
        timeless(expected.resource.contents),
        `${era}: a resource of a template`,
      );
      await t.rejects(
        client.getPrompt({ name: 'ev__nope' }),
        { message: /server 'ev' has no prompt 'ev__nope'.*\[PROMPT_NOT_FOUND\]/ },
        `${era}: an unknown prompt is answered as before`,
      );
      await t.rejects(
        client.complete({
          ref: { type: 'ref/prompt', name: 'ev__nope' },
          argument: { name: 'a', value: '' },
        }),
        { message: /no prompt 'ev__nope'/ },
        `${era}: so is the completion of one`,
      );
    }
  },
);

t.test('nothing is left running', async (t) => {
  await assertNoLeaks(t);
});
