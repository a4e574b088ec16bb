// The agent tool end to end: the built mcpmux with real servers behind it, and a client
// whose model is a script answering sampling/createMessage (tool calls, then words). The
// script checks what a model would see: the tools, and the results of its calls.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { fixture, npmServerPath } from '../helpers/fixtures.js';
import { startMcpmux, text, type Session } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, matchLogged, waitFor } from '../helpers/processes.js';
import { answer, lastBlocks, scriptedModel, toolUse, type Step } from '../helpers/scripted-model.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-agent-'));
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

/** No API key from the developer's environment: these runs use the client's model. */
const NO_KEY = { ANTHROPIC_API_KEY: '' };

let configs = 0;
/** A config with the echo fixture, server-memory and slow-call, and a transcript dir of its own. */
function setup(extra: Record<string, unknown> = {}) {
  const dir = join(scratch, `agents-${++configs}`);
  const config = join(scratch, `config-${configs}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        echo: fixture('echo-v1'),
        memory: {
          command: process.execPath,
          args: [npmServerPath('@modelcontextprotocol/server-memory')],
          env: { MEMORY_FILE_PATH: join(scratch, `memory-${configs}.jsonl`) },
        },
        slow: fixture('slow-call'),
        ...extra,
      },
    }),
  );
  return { dir, args: ['--config', config, '--agent-dir', dir] };
}

async function start(steps: Step[], args: string[], options: { tools?: boolean } = {}) {
  const model = scriptedModel(steps, options);
  const s = await startMcpmux(args, model, NO_KEY);
  return { s, seen: model.seen };
}

async function stop(t: Test, s: Session) {
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
}

const transcriptTypes = (dir: string, id: string) =>
  readFileSync(join(dir, `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).type);

t.test(
  'a foreground run calls tools of two servers and returns the answer, with its transcript',
  async (t) => {
    const { dir, args } = setup();
    const { s, seen } = await start(
      [
        (params) => {
          t.ok(
            params.tools!.some((x) => x.name === 'echo__echo'),
            'the model is offered echo__echo',
          );
          t.ok(
            params.tools!.some((x) => x.name === 'memory__create_entities'),
            'and memory__create_entities',
          );
          t.notOk(
            params.tools!.some((x) => x.name === 'add_server' || x.name === 'agent'),
            'not mcpmux own tools',
          );
          t.match(params.systemPrompt, /sub-agent/);
          t.same(params.messages, [
            { role: 'user', content: { type: 'text', text: 'echo hi, then remember Ada' } },
          ]);
          return toolUse('echo__echo', { message: 'hi' });
        },
        (params) => {
          const [result] = lastBlocks(params);
          t.equal(result.type, 'tool_result');
          t.same(result.content, [{ type: 'text', text: 'hi' }], 'the model sees what echo returned');
          return toolUse('memory__create_entities', {
            entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
          });
        },
        (params) => {
          const [result] = lastBlocks(params);
          t.notOk(result.isError, 'create_entities succeeded');
          t.match(JSON.stringify(result.content), /Ada/);
          return answer('echoed hi and remembered Ada');
        },
      ],
      args,
    );
    const listed = (await s.client.listTools()).tools;
    const agent = listed.find((x) => x.name === 'agent');
    t.ok(agent, 'agent is listed to a client that samples');
    t.ok(
      listed.some((x) => x.name === 'output'),
      'and output',
    );
    t.match(
      agent!.description,
      /echo \(2 tools: echo, add\)/,
      'its description names the servers it reaches',
    );
    t.match(agent!.description, /memory \(9 tools/);
    const progress: string[] = [];
    const result = (await s.client.callTool(
      { name: 'agent', arguments: { prompt: 'echo hi, then remember Ada' } },
      { onprogress: (p) => progress.push(p.message ?? '') },
    )) as any;
    t.notOk(result.isError, text(result));
    const outcome = result.structuredContent;
    t.match(outcome.agentId, /^[0-9a-f]{8}$/);
    t.equal(outcome.status, 'completed');
    t.same(outcome.content, [{ type: 'text', text: 'echoed hi and remembered Ada' }]);
    t.equal(outcome.totalToolUseCount, 2);
    t.type(outcome.totalDurationMs, 'number');
    t.ok(
      progress.includes('echo__echo message=hi'),
      `progress names the tool and its key argument: ${progress}`,
    );
    t.ok(
      progress.some((p) => /^turn 1: /.test(p)),
      'a model turn counts as progress',
    );
    t.equal(seen.length, 3);
    const file = join(dir, `${outcome.agentId}.jsonl`);
    t.equal(statSync(file).mode & 0o777, 0o600, 'the transcript is readable by its owner only');
    t.same(transcriptTypes(dir, outcome.agentId), [
      'user',
      'assistant',
      'tool_result',
      'assistant',
      'tool_result',
      'assistant',
      'result',
    ]);
    const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!);
    t.equal(first.session_id, outcome.agentId);
    t.match(first.timestamp, /^\d{4}-\d\d-\d\dT/);
    await stop(t, s);
  },
);

t.test(
  'a background run returns at once; output reports it running, then waits for its answer',
  async (t) => {
    const { args } = setup();
    const { s } = await start(
      [() => toolUse('slow__wait', { steps: 6, interval_ms: 150 }), () => answer('waited')],
      args,
    );
    const launched = await s.json('agent', {
      prompt: 'wait a while\nthen say so',
      run_in_background: true,
    });
    t.equal(launched.status, 'async_launched');
    t.match(launched.agentId, /^[0-9a-f]{8}$/);
    t.equal(launched.description, 'wait a while');
    t.equal(launched.prompt, 'wait a while\nthen say so');
    const early = await s.json('output', { agentIds: [launched.agentId], block: false });
    t.equal(early.agents[0].status, 'running', 'not blocking: it is still running');
    const done = await s.json('output', { agentIds: [launched.agentId, 'ffffffff', '../etc'] });
    t.equal(done.agents[0].status, 'completed', 'blocking: it waited for the answer');
    t.same(done.agents[0].content, [{ type: 'text', text: 'waited' }]);
    t.equal(done.agents[0].totalToolUseCount, 1);
    t.same(
      done.agents.slice(1).map((a: any) => [a.agentId, a.status]),
      [
        ['ffffffff', 'not_found'],
        ['../etc', 'not_found'],
      ],
    );
    await stop(t, s);
  },
);

t.test('an agent is read and resumed after mcpmux restarted, from its transcript', async (t) => {
  const { dir, args } = setup();
  const first = await start([() => answer('the secret is 42')], args);
  const { agentId } = await first.s.json('agent', { prompt: 'find the secret' });
  await stop(t, first.s);

  const second = await start(
    [
      (params) => {
        t.same(
          params.messages.map((m) => [m.role, m.content.text ?? m.content]),
          [
            ['user', 'find the secret'],
            ['assistant', [{ type: 'text', text: 'the secret is 42' }]],
            ['user', 'and double it'],
          ],
          'the whole history comes back from disk',
        );
        t.same(params.modelPreferences, { hints: [{ name: 'small-model' }] }, 'the model hint is passed on');
        return answer('84');
      },
    ],
    args,
  );
  const read = await second.s.json('output', { agentIds: [agentId] });
  t.equal(read.agents[0].status, 'completed', 'output reads a finished run from its transcript');
  t.same(read.agents[0].content, [{ type: 'text', text: 'the secret is 42' }]);
  const resumed = await second.s.json('agent', {
    prompt: 'and double it',
    resume: agentId,
    model: 'small-model',
  });
  t.equal(resumed.agentId, agentId, 'a resumed agent keeps its id');
  t.same(resumed.content, [{ type: 'text', text: '84' }]);
  t.same(transcriptTypes(dir, agentId), ['user', 'assistant', 'result', 'user', 'assistant', 'result']);
  const missing = await second.s.call('agent', { prompt: 'go on', resume: '0badc0de' });
  t.ok(missing.isError);
  t.match(text(missing), /no agent '0badc0de'.*\[AGENT_NOT_FOUND\]/);
  await stop(t, second.s);
});

t.test('a malformed transcript line is skipped with a warning', async (t) => {
  const { dir, args } = setup();
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  const at = new Date().toISOString();
  const line = (type: string, content: unknown) =>
    JSON.stringify({ type, content, timestamp: at, session_id: 'abcdef01' });
  writeFileSync(
    join(dir, 'abcdef01.jsonl'),
    [
      line('user', 'count'),
      '{"type": "assistant", "content": [',
      line('assistant', [{ type: 'tool_use', id: 'x1', name: 'echo__echo', input: {} }]),
    ].join('\n') + '\n',
  );
  const { s } = await start(
    [
      (params) => {
        t.same(
          params.messages.map((m) => m.role),
          ['user', 'assistant', 'user', 'assistant', 'user'],
          'the call left without a result gets one, and the model its turn back',
        );
        t.match(JSON.stringify(params.messages[2]!.content), /not run: the run stopped before this call/);
        return answer('resumed');
      },
    ],
    args,
  );
  const read = await s.json('output', { agentIds: ['abcdef01'] });
  t.equal(read.agents[0].status, 'failed', 'a transcript without a result line was cut short');
  t.match(read.agents[0].error, /mcpmux stopped before this run finished/);
  await matchLogged(t, () => s.stderr(), /agent abcdef01: line 2 of .*abcdef01\.jsonl is skipped/);
  const resumed = await s.json('agent', { prompt: 'go on', resume: 'abcdef01' });
  t.same(resumed.content, [{ type: 'text', text: 'resumed' }]);
  await stop(t, s);
});

t.test(
  'cancel: output stops a background run and its tool call; a foreground call is cancelled by its caller',
  async (t) => {
    const { args } = setup();
    const { s } = await start(
      [
        () => toolUse('slow__wait', { steps: 100, interval_ms: 100 }),
        () => toolUse('slow__wait', { steps: 100, interval_ms: 100 }),
      ],
      args,
    );
    const { agentId } = await s.json('agent', { prompt: 'wait long', run_in_background: true });
    t.ok(
      await waitFor(async () => text(await s.call('slow__last_wait')) === 'running', 10_000),
      'its tool call runs',
    );
    const cancelled = await s.json('output', { agentIds: [agentId], cancel: true });
    t.equal(cancelled.agents[0].status, 'cancelled');
    t.same(cancelled.agents[0].toolCalls, ['slow__wait steps=100']);
    t.ok(
      await waitFor(async () => text(await s.call('slow__last_wait')) === 'cancelled', 10_000),
      'the tool call in flight was cancelled at the server',
    );

    const controller = new AbortController();
    const foreground = s.client.callTool(
      { name: 'agent', arguments: { prompt: 'wait long again' } },
      { signal: controller.signal },
    );
    t.ok(await waitFor(async () => text(await s.call('slow__last_wait')) === 'running', 10_000));
    controller.abort();
    await t.rejects(foreground);
    t.ok(
      await waitFor(async () => text(await s.call('slow__last_wait')) === 'cancelled', 10_000),
      "the caller's cancellation reached the sub-agent's tool call",
    );
    await stop(t, s);
  },
);

t.test('a tool error is seen by the model; max_turns ends a run that does not conclude', async (t) => {
  const { args } = setup({ crashy: fixture('crash-on-call') });
  const { s } = await start(
    [
      () => toolUse('crashy__crash'),
      (params) => {
        const [result] = lastBlocks(params);
        t.equal(result.isError, true, 'the crash comes back as a tool error');
        t.match(JSON.stringify(result.content), /crash/i);
        return toolUse('crashy__ok');
      },
      (params) => {
        const [result] = lastBlocks(params);
        t.equal(result.isError, true);
        t.match(
          JSON.stringify(result.content),
          /crashy__ok: server 'crashy' crashed: /,
          'the next call to the crashed server says it crashed, and why',
        );
        return toolUse('nothere__tool');
      },
      (params) => {
        const [result] = lastBlocks(params);
        t.equal(result.isError, true);
        t.match(JSON.stringify(result.content), /'nothere__tool' is not one of your tools/);
        return answer('the server crashed');
      },
      () => toolUse('echo__echo', { message: 'one' }),
      () => toolUse('echo__echo', { message: 'two' }),
    ],
    args,
  );
  const ok = await s.json('agent', { prompt: 'crash it' });
  t.same(ok.content, [{ type: 'text', text: 'the server crashed' }]);
  t.equal(ok.totalToolUseCount, 3);
  const limited = await s.call('agent', { prompt: 'echo forever', max_turns: 2 });
  t.ok(limited.isError, 'a run that hits max_turns is an error');
  const outcome = limited.structuredContent as any;
  t.equal(outcome.status, 'failed');
  t.match(outcome.error, /reached max_turns \(2\)/);
  t.same(outcome.toolCalls, ['echo__echo message=one', 'echo__echo message=two']);
  t.equal(outcome.totalToolUseCount, 2);
  await stop(t, s);
});

t.test(
  'background runs past --agent-concurrency are refused as busy; servers limits what it reaches',
  async (t) => {
    const { args } = setup();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { s } = await start(
      [
        async () => {
          await held;
          return answer('first done');
        },
        (params) => {
          t.same(
            params.tools!.map((x) => x.name),
            ['echo__echo', 'echo__add'],
            'servers: ["echo"] gives only echo\'s tools',
          );
          return answer('echo only');
        },
      ],
      [...args, '--agent-concurrency', '1'],
    );
    const first = await s.json('agent', { prompt: 'hold', run_in_background: true });
    const busy = await s.call('agent', { prompt: 'another', run_in_background: true });
    t.ok(busy.isError);
    t.match(text(busy), /1 background agents are running \(--agent-concurrency\).*\[AGENT_BUSY\]/);
    const stillBusy = await s.call('agent', { prompt: 'more', resume: first.agentId });
    t.match(text(stillBusy), /still running.*\[AGENT_BUSY\]/);
    release();
    const done = await s.json('output', { agentIds: [first.agentId] });
    t.equal(done.agents[0].status, 'completed');
    const limited = await s.json('agent', { prompt: 'echo', servers: ['echo'] });
    t.same(limited.content, [{ type: 'text', text: 'echo only' }]);
    const unknown = await s.call('agent', { prompt: 'x', servers: ['nope'] });
    t.match(text(unknown), /no running server named 'nope'; running: echo, memory, slow/);
    await stop(t, s);
  },
);

t.test('a client without tool use gets the tools in text and calls them as JSON', async (t) => {
  const { args } = setup();
  const { s, seen } = await start(
    [
      (params) => {
        t.notOk(params.tools, 'no tools field for a client without sampling.tools');
        t.match(params.systemPrompt, /- echo__echo: Echo the message back/);
        return {
          model: 'm',
          role: 'assistant',
          content: {
            type: 'text',
            text: '```json\n{"tool": "echo__echo", "arguments": {"message": "plain"}}\n```',
          },
        };
      },
      (params) => {
        t.match(params.messages.at(-1)!.content.text, /Result of the call: plain/);
        return answer('it said plain');
      },
    ],
    args,
    { tools: false },
  );
  const result = await s.json('agent', { prompt: 'echo plain' });
  t.same(result.content, [{ type: 'text', text: 'it said plain' }]);
  t.equal(result.totalToolUseCount, 1);
  t.equal(seen.length, 2);
  await stop(t, s);
});

t.test('without sampling or an API key, agent is not listed and a call says what to configure', async (t) => {
  const { args } = setup();
  const s = await startMcpmux([...args, '--expose', 'agent'], undefined, NO_KEY);
  const names = (await s.client.listTools()).tools.map((x) => x.name);
  t.notOk(names.includes('agent'));
  t.notOk(
    names.some((n) => n.startsWith('echo__')),
    '--expose agent lists no child tool',
  );
  const refused = await s.call('agent', { prompt: 'x' });
  t.ok(refused.isError);
  t.match(text(refused), /does not declare sampling.*ANTHROPIC_API_KEY.*\[NO_MODEL\]/);
  await stop(t, s);
});

t.test('agent as an MCP task (2025-11-25): tasks/get, tasks/result, tasks/list, tasks/cancel', async (t) => {
  const { z } = await import('zod');
  const { args } = setup();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const { s } = await start(
    [
      async () => {
        await held;
        return answer('done as a task');
      },
      () => toolUse('slow__wait', { steps: 100, interval_ms: 100 }),
    ],
    args,
  );
  const any = z.looseObject({});
  const request = (method: string, params: Record<string, unknown>) =>
    s.client.request({ method, params } as never, any) as Promise<any>;
  t.same(s.client.getServerCapabilities()?.tasks, {
    list: {},
    cancel: {},
    requests: { tools: { call: {} } },
  });
  const agent = (await s.client.listTools()).tools.find((x) => x.name === 'agent');
  t.same(agent?.execution, { taskSupport: 'optional' }, 'agent says it may run as a task');

  const created = await request('tools/call', {
    name: 'agent',
    arguments: { prompt: 'a task' },
    task: { ttl: 60_000 },
  });
  const taskId = created.task.taskId;
  t.match(taskId, /^[0-9a-f]{8}$/);
  t.equal(created.task.status, 'working');
  t.equal(created.task.pollInterval, 1000);
  t.equal((await request('tasks/get', { taskId })).status, 'working');
  const result = request('tasks/result', { taskId });
  release();
  const payload = await result;
  t.same(
    payload.structuredContent.content,
    [{ type: 'text', text: 'done as a task' }],
    'tasks/result waits for the answer',
  );
  t.same(payload._meta, { 'io.modelcontextprotocol/related-task': { taskId } });
  t.equal((await request('tasks/get', { taskId })).status, 'completed');
  t.same(
    (await request('tasks/list', {})).tasks.map((x: any) => [x.taskId, x.status]),
    [[taskId, 'completed']],
  );
  await t.rejects(request('tasks/cancel', { taskId }), {
    message: /already completed; only a working task can be cancelled/,
  });
  await t.rejects(request('tasks/get', { taskId: 'deadbeef' }), { message: /no task 'deadbeef'/ });

  const slow = await request('tools/call', { name: 'agent', arguments: { prompt: 'wait' }, task: {} });
  t.ok(await waitFor(async () => text(await s.call('slow__last_wait')) === 'running', 10_000));
  const cancelled = await request('tasks/cancel', { taskId: slow.task.taskId });
  t.equal(cancelled.status, 'cancelled');
  t.ok(await waitFor(async () => text(await s.call('slow__last_wait')) === 'cancelled', 10_000));

  await t.rejects(
    request('tools/call', { name: 'echo__echo', arguments: { message: 'x' }, task: {} }),
    { message: /echo__echo does not run as a task \(its server does not say it may/ },
    "a child's tool its server does not offer as a task does not run as one",
  );
  await stop(t, s);
});

t.test('a 2026-07-28 client runs agent on its own model through input_required rounds', async (t) => {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const { DIST_MAIN } = await import('../helpers/fixtures.js');
  const { LEAK_TAG_VAR, taggedEnv } = await import('../helpers/processes.js');
  const { args } = setup();
  const model = scriptedModel([
    (params) => {
      t.ok(
        params.tools!.some((x) => x.name === 'echo__echo'),
        'the round carries the tools',
      );
      return toolUse('echo__echo', { message: 'round trip' });
    },
    (params) => {
      t.same(lastBlocks(params)[0].content, [{ type: 'text', text: 'round trip' }]);
      return answer('echoed over rounds');
    },
  ]);
  const client = new Client(
    { name: 'modern', version: '1.0.0' },
    { capabilities: model.capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  model.setup(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [DIST_MAIN, ...args, '--pass-env', LEAK_TAG_VAR],
      env: taggedEnv(NO_KEY),
      stderr: 'pipe',
    }),
  );
  const names = (await client.listTools()).tools.map((x) => x.name);
  t.ok(names.includes('agent'), 'listed to a 2026-07-28 client that declares sampling');
  const result = (await client.callTool({ name: 'agent', arguments: { prompt: 'echo over rounds' } })) as any;
  t.notOk(result.isError, JSON.stringify(result.content));
  t.same(result.structuredContent.content, [{ type: 'text', text: 'echoed over rounds' }]);
  t.equal(model.seen.length, 2, 'each model turn was one round');
  const background = (await client.callTool({
    name: 'agent',
    arguments: { prompt: 'later', run_in_background: true },
  })) as any;
  t.ok(background.isError);
  t.match(
    JSON.stringify(background.content),
    /sampled only during its own call of agent.*run agent in the foreground/,
  );
  await client.close();
  await assertNoLeaks(t);
});
