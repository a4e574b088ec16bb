// Children's tools as MCP tasks (2025-11-25), end to end: server-everything's
// simulate-research-query (taskSupport "required": it runs only as a task) behind the built
// mcpmux over HTTP, two clients at once. Each client's task id is mcpmux's own (in
// tasks/get, tasks/result's related-task and the status notifications), one client never
// sees another's tasks, cancel reaches the child, and a task of a removed server says so. A
// plain call of the tool (a client that does not do tasks, or mcpmux call) is made a task
// mcpmux waits on: cancelling the call cancels the task, as does --call-timeout once the task
// stops changing, and a server that forgets the task or dies ends the call
// (testservers/task-tools.js). A task whose server process ended (a crash, a reload, a
// removal) is answered as last seen, failed if it had not ended. A task's question to the
// client names mcpmux's id for the task (none for a plain call).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { z } from 'zod';
import { DIST_MAIN, fixture, npmServerPath } from '../helpers/fixtures.js';
import { startMcpmux, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { LEAK_TAG_VAR, assertNoLeaks, logged, taggedEnv, waitFor } from '../helpers/processes.js';

const any = z.looseObject({});
type Task = { taskId: string; status: string; statusMessage?: string };

/** Any request, its result unchecked (the SDK's v2 client has no task vocabulary). */
const requester =
  (client: Client) =>
  (method: string, params: Record<string, unknown>): Promise<Record<string, any>> =>
    client.request({ method, params } as never, any) as Promise<Record<string, any>>;

t.test(
  "a child's task-only tool runs as a task through mcpmux: ids of mcpmux's own, per client, cancel reaches the child",
  async (t) => {
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    const mux = await startMcpmuxHttp(['--', 'ev', process.execPath, everything, 'stdio']);
    const connect = async (name: string) => {
      const client = new Client({ name, version: '1.0.0' });
      const statuses: Record<string, unknown>[] = [];
      client.fallbackNotificationHandler = async (n) => {
        if (n.method === 'notifications/tasks/status') statuses.push(n.params as Record<string, unknown>);
      };
      await client.connect(new StreamableHTTPClientTransport(new URL(mux.url)));
      const request = requester(client);
      return { client, request, statuses };
    };
    const alice = await connect('alice');
    const bob = await connect('bob');
    const tools = (await alice.client.listTools()).tools;
    const research = tools.find((x) => x.name === 'ev__simulate-research-query');
    t.same(
      research?.execution,
      { taskSupport: 'optional' },
      'listed as callable either way (its server says "required")',
    );
    t.match(alice.client.getServerCapabilities()?.tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });

    const created = await alice.request('tools/call', {
      name: research!.name,
      arguments: { topic: 'tide pools' },
      task: { ttl: 60_000 },
    });
    const task = created['task'] as Task;
    t.equal(task.status, 'working');
    t.match(task.taskId, /^[0-9a-f-]{36}$/);

    // Polled until done (four stages of about a second at the child).
    let state: Task = task;
    t.ok(
      await waitFor(async () => {
        state = (await alice.request('tasks/get', { taskId: task.taskId })) as Task;
        return state.status !== 'working';
      }, 20_000),
      'the task ends',
    );
    t.equal(state.status, 'completed');
    t.equal(state.taskId, task.taskId, "tasks/get names it by mcpmux's id");
    const result = await alice.request('tasks/result', { taskId: task.taskId });
    t.match(result['content'], [{ type: 'text', text: /Research Report: tide pools/ }]);
    t.same(result['_meta'], { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } });
    t.ok(
      await waitFor(() => alice.statuses.some((s) => s['status'] === 'completed')),
      'status notifications',
    );
    t.ok(
      alice.statuses.every((s) => s['taskId'] === task.taskId),
      "every status notification names mcpmux's id",
    );
    t.same(
      ((await alice.request('tasks/list', {}))['tasks'] as Task[]).map((x) => [x.taskId, x.status]),
      [[task.taskId, 'completed']],
    );

    // Called plainly (as by a client that does not do tasks): mcpmux makes the task and waits.
    const progress: unknown[] = [];
    const plain = await bob.client.callTool(
      { name: research!.name, arguments: { topic: 'sea glass' } },
      { onprogress: (p) => progress.push(p.message) },
    );
    t.match(plain.content, [{ type: 'text', text: /Research Report: sea glass/ }], "the tool's answer");
    t.notOk(plain._meta?.['io.modelcontextprotocol/related-task'], 'naming no task');
    t.ok(progress.length >= 2, `its stages came as progress (${progress.length})`);
    t.ok(
      progress.every((m) => typeof m === 'string' && /\.\.\.$/.test(m)),
      "each named by the task's status message",
    );
    const viaCallTool = await bob.client.callTool({
      name: 'call_tool',
      arguments: { name: research!.name, arguments: { topic: 'dunes' } },
    });
    t.match(viaCallTool.content, [{ type: 'text', text: /Research Report: dunes/ }], 'and through call_tool');

    // The other client sees none of it.
    t.same((await bob.request('tasks/list', {}))['tasks'], []);
    await t.rejects(bob.request('tasks/get', { taskId: task.taskId }), {
      message: new RegExp(`no task '${task.taskId}'`),
    });
    t.same(bob.statuses, [], "nor hears of alice's task");

    // Cancelled while it works: the child stops it.
    const second = (
      await bob.request('tools/call', { name: research!.name, arguments: { topic: 'kelp' }, task: {} })
    )['task'] as Task;
    t.not(second.taskId, task.taskId);
    const cancelled = (await bob.request('tasks/cancel', { taskId: second.taskId })) as Task;
    t.equal(cancelled.status, 'cancelled');
    t.equal(cancelled.taskId, second.taskId);
    t.equal(((await bob.request('tasks/get', { taskId: second.taskId })) as Task).status, 'cancelled');

    // A tool that does not exist, and a task whose server is gone.
    await t.rejects(alice.request('tools/call', { name: 'nope__tool', arguments: {}, task: {} }), {
      message: /nope__tool/,
    });
    // Its server removed, a task stays as it ended, and its result went with the server.
    await alice.client.callTool({ name: 'remove_server', arguments: { name: 'ev' } });
    t.match(await alice.request('tasks/get', { taskId: task.taskId }), {
      taskId: task.taskId,
      status: 'completed',
    });
    t.match(await alice.request('tasks/result', { taskId: task.taskId }), {
      content: [{ type: 'text', text: /result of task '\S+' was lost: server 'ev' was removed/ }],
      isError: true,
    });
    t.same(
      ((await alice.request('tasks/list', {}))['tasks'] as Task[]).map((x) => [x.taskId, x.status]),
      [[task.taskId, 'completed']],
    );

    await alice.client.close();
    await bob.client.close();
    await mux.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "a task's question reaches the client naming mcpmux's id for the task, or none for a plain call",
  async (t) => {
    const everything = npmServerPath('@modelcontextprotocol/server-everything');
    // The ambiguous research asks the client which meaning it has in mind, as a question of its task.
    const asked: Record<string, unknown>[] = [];
    const s = await startMcpmux(['--', 'ev', process.execPath, everything, 'stdio'], {
      capabilities: { elicitation: { form: {} } },
      setup: (client) =>
        client.setRequestHandler('elicitation/create', async (request) => {
          asked.push(request.params as Record<string, unknown>);
          return { action: 'accept', content: { interpretation: 'technical' } };
        }),
    });
    t.teardown(async () => {
      await s.client.close().catch(() => {});
      await s.process.exited;
    });
    const request = requester(s.client);
    const research = { name: 'ev__simulate-research-query', arguments: { topic: 'python', ambiguous: true } };

    const task = (await request('tools/call', { ...research, task: {} }))['task'] as Task;
    let state: Task = task;
    t.ok(
      await waitFor(async () => {
        state = (await request('tasks/get', { taskId: task.taskId })) as Task;
        return state.status !== 'working';
      }, 20_000),
    );
    t.equal(state.status, 'input_required');
    const result = await request('tasks/result', { taskId: task.taskId });
    t.match(result['content'], [{ type: 'text', text: /Research Report: python \(technical\)/ }]);
    t.equal(asked.length, 1);
    t.same(
      (asked[0]?.['_meta'] as Record<string, unknown>)['io.modelcontextprotocol/related-task'],
      { taskId: task.taskId },
      "the question names the task by mcpmux's id, not the child's",
    );

    // A plain call, made a task by mcpmux: the client knows of no task, and the question names none.
    const plain = await s.client.callTool(research);
    t.match(plain.content, [{ type: 'text', text: /Research Report: python \(technical\)/ }]);
    t.equal(asked.length, 2);
    t.notOk(asked[1]?.['_meta'] && 'io.modelcontextprotocol/related-task' in (asked[1]['_meta'] as object));
    t.match(
      asked[1],
      { message: /python/, requestedSchema: { type: 'object' } },
      'the question as the child asked',
    );
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test(
  'a plain call of a task-only tool: cancelled at the server, its server crashing, its task forgotten',
  async (t) => {
    const { command, args } = fixture('task-tools');
    const s = await startMcpmux(['--', 'tt', command, ...args]);
    t.teardown(async () => {
      await s.client.close().catch(() => {});
      await s.process.exited;
    });
    const progress: unknown[] = [];
    const done = await s.client.callTool(
      { name: 'tt__job', arguments: { steps: 4 } },
      { onprogress: (p) => progress.push(p.message) },
    );
    t.match(done.content, [{ type: 'text', text: 'done after 4 steps' }]);
    t.ok(progress.includes('step 4 of 4'), `its steps came as progress (${progress.join(', ')})`);

    // The client gives up on the call: the task stops at the server.
    const abort = new AbortController();
    const cancelled = s.client.callTool(
      { name: 'tt__job', arguments: { steps: 100 } },
      { signal: abort.signal, onprogress: () => abort.abort('no longer needed') },
    );
    await t.rejects(cancelled, /no longer needed/);
    t.ok(
      await waitFor(() => /task \S+ cancelled at step \d+/.test(s.stderr())),
      `the server cancelled its task (${s
        .stderr()
        .split('\n')
        .filter((l) => l.includes('task '))
        .join(' | ')})`,
    );

    // The server forgets the task (past its ttl): the call ends with what the server said.
    await t.rejects(s.client.callTool({ name: 'tt__forgotten', arguments: { ttl_ms: 300 } }), {
      message: /Task not found/,
    });

    // The server dies while its task works: the call ends at once, saying so, not at its next poll.
    const crashing = s.client.callTool({ name: 'tt__crash', arguments: { after_ms: 300, poll_ms: 60_000 } });
    const nextPoll = new Promise((resolve) => setTimeout(resolve, 8_000, 'still waiting for the next poll'));
    const crashed = (await Promise.race([crashing, nextPoll])) as Awaited<typeof crashing>;
    t.equal(crashed.isError, true);
    t.match(crashed.content, [{ type: 'text', text: /server 'tt' crashed \(exit 3\).*SERVER_CRASHED/ }]);
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test(
  'a plain call of a task-only tool ends at --call-timeout once its task stops changing, and the task is cancelled',
  async (t) => {
    const { command, args } = fixture('task-tools');
    // 2 s: each poll of the task is itself a request under that bound, on a busy machine too.
    const s = await startMcpmux(['--call-timeout', '2', '--', 'tt', command, ...args]);
    t.teardown(async () => {
      await s.client.close().catch(() => {});
      await s.process.exited;
    });
    // 2.4 s of work, a new status message every 0.3 s: each resets the bound, as progress does.
    const steady = await s.client.callTool({ name: 'tt__job', arguments: { steps: 8, step_ms: 300 } });
    t.match(steady.content, [{ type: 'text', text: 'done after 8 steps' }]);

    // The same message for 5 s: past the bound, the call ends and the task is cancelled.
    const stuck = await s.client.callTool({ name: 'tt__job', arguments: { steps: 2, step_ms: 5000 } });
    t.equal(stuck.isError, true);
    t.match(stuck.content, [
      { type: 'text', text: /server 'tt' did not answer tool 'job' within 2 s .*\[CALL_TIMEOUT\]/ },
    ]);
    t.ok(
      await waitFor(() => /task \S+ cancelled at step 2/.test(s.stderr()), 10_000),
      'the server cancelled its task',
    );
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test('a task whose server crashed or was reloaded is failed, saying why, not an error', async (t) => {
  const { command, args } = fixture('task-tools');
  const s = await startMcpmux(['--', 'tt', command, ...args]);
  const statuses: Record<string, unknown>[] = [];
  s.client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/tasks/status') statuses.push(n.params as Record<string, unknown>);
  };
  t.teardown(async () => {
    await s.client.close().catch(() => {});
    await s.process.exited;
  });
  const request = requester(s.client);
  const start = async (name: string, args: Record<string, unknown>) =>
    ((await request('tools/call', { name, arguments: args, task: {} }))['task'] as Task).taskId;
  const get = (taskId: string) => request('tasks/get', { taskId }) as Promise<Task>;

  // A job the reload ends midway.
  const reloaded = await start('tt__job', { steps: 200 });
  t.equal((await get(reloaded)).status, 'working');
  await s.client.callTool({ name: 'reload_server', arguments: { name: 'tt' } });
  t.match(await get(reloaded), {
    taskId: reloaded,
    status: 'failed',
    statusMessage: /server 'tt' was reloaded/,
    createdAt: String,
  });
  t.ok(
    await waitFor(async () => statuses.some((x) => x['taskId'] === reloaded && x['status'] === 'failed')),
    'a client that follows status notifications is told too',
  );

  // A task whose server crashes: failed with the crash, its result the call's error, not cancellable.
  const crashing = await start('tt__crash', { after_ms: 300 });
  t.equal((await get(crashing)).status, 'working');
  t.ok(await waitFor(async () => (await get(crashing)).status !== 'working'), 'its status changes');
  t.match(await get(crashing), { status: 'failed', statusMessage: /server 'tt' crashed \(exit 3\)/ });
  t.match(await request('tasks/result', { taskId: crashing }), {
    content: [{ type: 'text', text: /server 'tt' crashed \(exit 3\).*\[SERVER_CRASHED\]/ }],
    isError: true,
    _meta: { 'io.modelcontextprotocol/related-task': { taskId: crashing } },
  });
  await t.rejects(request('tasks/cancel', { taskId: crashing }), {
    message: /Cannot cancel task in terminal status: failed/,
  });
  t.same(
    ((await request('tasks/list', {}))['tasks'] as Task[]).map((x) => [x.taskId, x.status]),
    [
      [reloaded, 'failed'],
      [crashing, 'failed'],
    ],
  );
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
});

t.test("an HTTP session's tasks end with it, another session's run on", async (t) => {
  const { command, args } = fixture('task-tools');
  const mux = await startMcpmuxHttp(['--', 'tt', command, ...args]);
  const session = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(mux.url));
    const client = new Client({ name: 'tasks', version: '1.0.0' });
    await client.connect(transport);
    const request = requester(client);
    return { client, transport, request };
  };
  const alice = await session();
  const bob = await session();
  const start = async (who: typeof alice, steps: number) =>
    ((await who.request('tools/call', { name: 'tt__job', arguments: { steps }, task: {} }))['task'] as Task)
      .taskId;
  const hers = await start(alice, 300);
  const his = await start(bob, 10);
  t.ok(await waitFor(() => (mux.stderr().match(/created by job/g) ?? []).length === 2), 'both tasks run');

  await alice.transport.terminateSession();
  await alice.client.close();
  t.ok(
    await waitFor(() => /task \S+ cancelled at step \d+/.test(mux.stderr())),
    "the ended session's task is cancelled at its server",
  );
  let state: Task | undefined;
  t.ok(
    await waitFor(async () => {
      state = (await bob.request('tasks/get', { taskId: his })) as Task;
      return state.status !== 'working';
    }, 20_000),
  );
  t.equal(state?.status, 'completed', "the other session's task ran to its end");
  t.match((await bob.request('tasks/result', { taskId: his }))['content'], [{ text: 'done after 10 steps' }]);
  await t.rejects(bob.request('tasks/get', { taskId: hers }), { message: /no task/ });
  const log = await logged(() => mux.stderr(), /cancelled at step/);
  t.equal(log.match(/cancelled at step/g)?.length, 1, 'and only that one was cancelled');
  await bob.client.close();
  await mux.stop();
  await assertNoLeaks(t);
});

t.test('mcpmux call of a tool its server runs only as a task prints its answer', async (t) => {
  const everything = npmServerPath('@modelcontextprotocol/server-everything');
  const args = ['call', 'ev__simulate-research-query', '{"topic": "reefs"}', '--pass-env', LEAK_TAG_VAR];
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [DIST_MAIN, ...args, '--', 'ev', process.execPath, everything, 'stdio'],
    { env: taggedEnv(), timeout: 60_000 },
  );
  t.match(stdout, /Research Report: reefs/);
  await assertNoLeaks(t);
});
