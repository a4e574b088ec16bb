// What a child says about one of its tasks outside the tasks/* answers (a question or a log
// line carrying the related-task `_meta`) names the task as the client knows it, and goes to
// the session whose task it is. End to end with server-everything: test/e2e/child-tasks.test.ts.
import t from 'tap';
import type { ChildConnection } from '../../src/child/child-connection.js';
import type { JSONRPCRequestLike } from '../../src/child/child-types.js';
import { createLogger } from '../../src/log.js';
import { ChildTaskTable } from '../../src/proxy/child-tasks.js';
import { ClientSettings } from '../../src/proxy/client-settings.js';
import { UpstreamLink } from '../../src/proxy/upstream-link.js';
import { Registry } from '../../src/registry/registry.js';
import { CatalogRouter } from '../../src/router/catalog-router.js';

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
  const id = table.add({ owner: {}, notify, connection: childAt('ev'), childId: 'c-1' });

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
  const registry = new Registry({ logger, validateName: () => undefined, connection: {} as never });
  const link = new UpstreamLink({ router, logger });
  const heard = { alice: [] as JSONRPCRequestLike[], bob: [] as JSONRPCRequestLike[] };
  const session = (name: 'alice' | 'bob') => {
    const deliver = async (n: JSONRPCRequestLike) => void heard[name].push(n);
    link.attach({
      server: {} as never,
      era: 'legacy',
      registry,
      settings: new ClientSettings({ registry, router, logger }),
      deliver,
    });
    return link.childTasks.session(deliver);
  };
  session('alice');
  const bobs = session('bob');
  // Bob's task, as his task-augmented call made it.
  const connection = {
    name: 'ev',
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
