// What a child says about one of its tasks outside the tasks/* answers (a question or a log
// line carrying the related-task `_meta`) names the task as the client knows it, and goes to
// the session whose task it is; a task whose server ended is answered as last seen, and
// forgotten past its ttl. End to end with server-everything and testservers/task-tools.js:
// test/e2e/child-tasks.test.ts.
import t from 'tap';
import type { ChildConnection } from '../../../src/child/child-connection.js';
import type { JSONRPCRequestLike } from '../../../src/child/child-types.js';
import { MuxError } from '../../../src/common/errors.js';
import { createLogger } from '../../../src/common/log.js';
import { ChildTaskTable } from '../../../src/session/tasks/child-tasks.js';
import { ClientSettings } from '../../../src/session/client-settings.js';
import { UpstreamLink } from '../../../src/session/relay/upstream-link.js';
import { Children } from '../../../src/children/children.js';
import { CatalogRouter } from '../../../src/router/catalog-router.js';

const RELATED = 'io.modelcontextprotocol/related-task';
const logger = createLogger({ level: 'error', sink: () => {} });
const childAt = (name: string) => ({ name }) as ChildConnection;
const relatedTo = (taskId: string, extra: Record<string, unknown> = {}): JSONRPCRequestLike => ({
  method: 'notifications/message',
  params: { level: 'info', data: 'stage 2', _meta: { [RELATED]: { taskId }, ...extra } },
});

t.test("a task's message names mcpmux's id, or none for a task no client was given", async (t) => {
  const table = new ChildTaskTable();
  const notify = async () => {};
  const id = table.add({
    owner: {},
    notify,
    connection: childAt('ev'),
    childId: 'c-1',
    ended: new AbortController().signal,
    seen: {},
  });

  const known = table.related('ev', relatedTo('c-1', { trace: 'x' }));
  t.same(known.message.params, {
    level: 'info',
    data: 'stage 2',
    _meta: { [RELATED]: { taskId: id }, trace: 'x' },
  });
  t.equal(known.owner, notify, 'and reaches the session whose task it is');

  const followed = table.related('ev', relatedTo('c-2'));
  t.same(followed.message.params, { level: 'info', data: 'stage 2' }, "a child's id is never passed on");
  t.equal(followed.owner, undefined);
  t.same(table.related('other', relatedTo('c-1')).message.params?.['_meta'], undefined, 'ids are per server');
  t.same(table.related('ev', relatedTo('c-2', { trace: 'x' })).message.params?.['_meta'], { trace: 'x' });

  const plain: JSONRPCRequestLike = { method: 'notifications/message', params: { level: 'info', data: 1 } };
  t.equal(table.related('ev', plain).message, plain, 'a message of no task is left as it is');
});

t.test("a task's log line goes only to the session whose task it is", async (t) => {
  const router = new CatalogRouter({ maxToolName: 64, logger });
  const children = new Children({ logger, validateName: () => undefined, connection: {} as never });
  const link = new UpstreamLink({ router, logger });
  const heard = { alice: [] as JSONRPCRequestLike[], bob: [] as JSONRPCRequestLike[] };
  const session = (name: 'alice' | 'bob') => {
    const deliver = async (n: JSONRPCRequestLike) => void heard[name].push(n);
    link.attach({
      server: {} as never,
      era: 'legacy',
      children,
      settings: new ClientSettings({ children, router, logger }),
      deliver,
    });
    return link.childTasks.session(deliver);
  };
  session('alice');
  const bobs = session('bob');
  // Bob's task, as his task-augmented call made it.
  const connection = {
    name: 'ev',
    callsEnd: new AbortController().signal,
    request: async () => ({ task: { taskId: 'c-7', status: 'working' } }),
  } as unknown as ChildConnection;
  const created = await bobs.create(connection, { name: 'research', task: {} }, {});
  const id = (created['task'] as { taskId: string }).taskId;

  link.notify('ev', relatedTo('c-7'));
  link.notify('ev', { method: 'notifications/message', params: { level: 'info', data: 'general' } });
  await new Promise((resolve) => setImmediate(resolve));
  t.same(
    heard.bob.map((n) => n.params?.['_meta']),
    [{ [RELATED]: { taskId: id } }, undefined],
    "bob hears of his task under mcpmux's id, and the server's other lines",
  );
  t.same(
    heard.alice.map((n) => n.params?.['data']),
    ['general'],
    "alice hears the server's other lines only",
  );
  t.ok(
    heard.bob.every((n) => n.params?.['logger'] === 'ev'),
    'each line names its server as any log line does',
  );
});

t.test(
  'a task whose server ended: as last seen, failed if it had not ended (and its session told), forgotten past its ttl',
  async (t) => {
    const heard: JSONRPCRequestLike[] = [];
    const sessions = new ChildTaskTable().session(async (n) => void heard.push(n));
    const serverEnds = new AbortController();
    const asked: string[] = [];
    let answer: Record<string, unknown> = {};
    const connection = {
      name: 'ev',
      callsEnd: serverEnds.signal,
      request: async (method: string) => {
        asked.push(method);
        return answer;
      },
    } as unknown as ChildConnection;
    const createdAt = new Date().toISOString();
    const task = (ttl: number | null) => ({ taskId: `c-${ttl}`, status: 'working', createdAt, ttl });
    const start = async (ttl: number | null) => {
      answer = { task: task(ttl) };
      return (
        (await sessions.create(connection, { name: 'job', task: {} }, {}))['task'] as { taskId: string }
      ).taskId;
    };
    const working = await start(null);
    const done = await start(60_000);
    const shortLived = await start(1);
    const failedAlone = await start(30_000);
    answer = { ...task(30_000), status: 'failed', statusMessage: 'the job broke' };
    await sessions.handle('tasks/get', { taskId: failedAlone }, {});
    answer = { ...task(60_000), status: 'completed' };
    t.equal(
      ((await sessions.handle('tasks/get', { taskId: done }, {})) as { status: string }).status,
      'completed',
    );

    serverEnds.abort(new MuxError('SERVER_CRASHED', "server 'ev' crashed (exit 3)"));
    t.match(
      heard.map((n) => [n.method, n.params?.['taskId'], n.params?.['status'], n.params?.['statusMessage']]),
      [
        ['notifications/tasks/status', working, 'failed', "server 'ev' crashed (exit 3)"],
        ['notifications/tasks/status', shortLived, 'failed', "server 'ev' crashed (exit 3)"],
      ],
      'the session hears at once of each task that had not ended, none of those that had',
    );
    asked.length = 0;
    t.match(await sessions.handle('tasks/get', { taskId: working }, {}), {
      taskId: working,
      status: 'failed',
      statusMessage: "server 'ev' crashed (exit 3)",
      createdAt,
      ttl: null,
    });
    t.match(await sessions.handle('tasks/result', { taskId: working }, {}), {
      content: [{ type: 'text', text: "server 'ev' crashed (exit 3) [SERVER_CRASHED]" }],
      isError: true,
      _meta: { [RELATED]: { taskId: working } },
    });
    await t.rejects(sessions.handle('tasks/cancel', { taskId: working }, {}), {
      message: /Cannot cancel task in terminal status: failed/,
    });
    t.match(
      await sessions.handle('tasks/get', { taskId: done }, {}),
      { taskId: done, status: 'completed' },
      'a task that had ended stays as it ended',
    );
    t.match(await sessions.handle('tasks/result', { taskId: done }, {}), {
      content: [
        {
          type: 'text',
          text: `the result of task '${done}' was lost: server 'ev' crashed (exit 3) [SERVER_CRASHED]`,
        },
      ],
      isError: true,
    });
    t.match(
      await sessions.handle('tasks/get', { taskId: failedAlone }, {}),
      { status: 'failed', statusMessage: 'the job broke' },
      'one that failed on its own stays as its server said',
    );
    t.match(await sessions.handle('tasks/result', { taskId: failedAlone }, {}), {
      content: [{ type: 'text', text: /^the result of task '\S+' was lost: server 'ev' crashed/ }],
    });
    t.same(asked, [], 'nothing is asked of the ended server');
    t.notOk(sessions.has(shortLived), 'one past its ttl is forgotten');
    t.same(
      (await sessions.list({})).map((x) => [x['taskId'], x['status']]),
      [
        [working, 'failed'],
        [done, 'completed'],
        [failedAlone, 'failed'],
      ],
    );
  },
);
