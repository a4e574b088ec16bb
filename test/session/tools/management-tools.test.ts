// The management tools end to end through a real SDK client, with fixture servers as
// real child processes: add, list, call, reload (with diff), remove, and bad input.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixture, fixturePath } from '../../helpers/fixtures.js';
import { startHarness, textOf } from '../../helpers/mux-harness.js';
import { isAlive, waitFor } from '../../helpers/processes.js';

t.test('add_server exposes the child tools at once, with schemas, and list_changed follows', async (t) => {
  const h = await startHarness(t);
  const before = h.listChanged();
  const added = await h.callJson('add_server', { name: 'echo', ...fixture('echo-v1') });
  t.equal(added.server.status, 'running');
  t.ok(Number.isInteger(added.server.pid) && isAlive(added.server.pid), 'reports the live pid');
  t.same(added.tools.map((x: { name: string }) => x.name).sort(), ['echo__add', 'echo__echo']);
  const echo = added.tools.find((x: { name: string }) => x.name === 'echo__echo');
  t.match(echo, {
    description: 'Echo the message back',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  });
  t.ok(await waitFor(() => h.listChanged() > before), 'list_changed was sent');
  const listed = (await h.client.listTools()).tools.find((x) => x.name === 'echo__echo');
  t.same(listed?.inputSchema, echo.inputSchema, 'tools/list shows the same schema');
  t.equal(textOf(await h.call('echo__echo', { message: 'hi' })), 'hi');
  t.equal(
    textOf(await h.call('call_tool', { name: 'echo__add', arguments: { a: 2, b: 3 } })),
    '5',
    'call_tool reaches it too',
  );
  await h.close();
});

t.test(
  'add_server cancelled while its server starts: the start is undone, nothing left running',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpmux-cancel-add-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const h = await startHarness(t);
    const abort = new AbortController();
    // Its start never ends: the gate file is never made.
    const adding = h.client.callTool(
      {
        name: 'add_server',
        arguments: { name: 'slow', ...fixture('slow-start'), env: { SLOW_START_GATE: join(dir, 'never') } },
      },
      { signal: abort.signal },
    );
    adding.catch(() => {});
    let pid: number | undefined;
    t.ok(
      await waitFor(async () => (pid = (await h.callJson('list_servers')).servers[0]?.pid) !== undefined),
      'spawned, and listed as starting',
    );
    abort.abort('changed my mind');
    await t.rejects(adding, 'the client gave up on it');
    t.ok(await waitFor(async () => (await h.callJson('list_servers')).servers.length === 0), 'unregistered');
    t.ok(await waitFor(() => !isAlive(pid!)), 'its process ended');
    // The name is free again.
    t.equal(
      (await h.callJson('add_server', { name: 'slow', ...fixture('echo-v1') })).server.status,
      'running',
    );
    await h.close();
  },
);

t.test('list_servers reports status, pid, exposed tools, uptime and env names only', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', {
    name: 'echo',
    ...fixture('echo-v1'),
    env: { SECRET_TOKEN: 'hunter2-value' },
  });
  const result = await h.call('list_servers');
  t.notOk(textOf(result).includes('hunter2-value'), 'an env value is never echoed');
  const [server] = (result.structuredContent as any).servers;
  t.match(server, {
    name: 'echo',
    status: 'running',
    transport: 'stdio',
    command: process.execPath,
    env: ['SECRET_TOKEN'],
  });
  t.same([...server.tools].sort(), ['echo__add', 'echo__echo']);
  t.type(server.uptime_seconds, 'number');
  await h.close();
});

t.test('reload_server starts new code as a new process and reports the tool diff', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-reload-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const entry = join(dir, 'server.js');
  symlinkSync(fixturePath('echo-v1'), entry);
  const h = await startHarness(t);
  const added = await h.callJson('add_server', { name: 'dev', command: process.execPath, args: [entry] });
  rmSync(entry);
  symlinkSync(fixturePath('echo-v2'), entry); // "rebuild"
  const before = h.listChanged();
  const reloaded = await h.callJson('reload_server', { name: 'dev' });
  t.not(reloaded.server.pid, added.server.pid, 'a new process');
  t.notOk(isAlive(added.server.pid), 'the old process is gone');
  t.same(reloaded.changes, { added: ['dev__reverse'], removed: [], changed: ['dev__add'] });
  t.equal(textOf(await h.call('dev__reverse', { text: 'abc' })), 'cba');
  // Its changed tool waits for a person (docs/security.md: pins); the operator approves it.
  t.match(textOf(await h.call('dev__add', { a: 1, b: 2 })), /changed since a person approved it/);
  await h.children.approve('dev', 'operator', ['tool:add']);
  t.notMatch(textOf(await h.call('dev__add', { a: 1, b: 2 })), /changed since/);
  t.ok(await waitFor(() => h.listChanged() > before), 'list_changed after reload');
  const same = await h.callJson('reload_server', { name: 'dev' });
  t.same(same.changes, { added: [], removed: [], changed: [] }, 'an unchanged reload reports no change');
  await h.close();
});

t.test('remove_server withdraws the tools, stops the process, and forgets the name', async (t) => {
  const h = await startHarness(t);
  const added = await h.callJson('add_server', { name: 'echo', ...fixture('echo-v1') });
  const removed = await h.callJson('remove_server', { name: 'echo' });
  t.same(removed.tools_removed.sort(), ['echo__add', 'echo__echo']);
  t.notOk(isAlive(added.server.pid), 'process confirmed dead when remove_server returns');
  t.notOk((await h.toolNames()).some((n) => n.startsWith('echo__')));
  const call = await h.call('echo__echo', { message: 'x' });
  t.ok(call.isError);
  t.match(textOf(call), /no server named 'echo'/);
  const again = await h.call('remove_server', { name: 'echo' });
  t.ok(again.isError);
  t.match(textOf(again), /no server named 'echo'.*add one with add_server/);
  t.same((await h.callJson('list_servers')).servers, []);
  await h.close();
});

t.test('bad input gets a clear error and leaves nothing registered or running', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'echo', ...fixture('echo-v1') });
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['missing name', { command: 'x' }, /name: .*expected string/i],
    ['empty name', { name: '', command: 'x' }, /server name is empty/],
    ['name with __', { name: 'a__b', command: 'x' }, /contains '__'/],
    ['name ending in _', { name: 'a_', command: 'x' }, /ends with '_'/],
    ['name with a space', { name: 'a b', command: 'x' }, /may only contain letters/],
    ['name too long for the budget', { name: 'n'.repeat(60), command: 'x' }, /at most 52/],
    ['duplicate name', { name: 'echo', ...fixture('echo-v1') }, /already exists/],
    ['missing command', { name: 'x' }, /command is required \(or url, for a remote server\)/],
    ['args of the wrong type', { name: 'x', command: 'node', args: 'not-a-list' }, /args: .*expected array/i],
    [
      'unknown field',
      { name: 'x', command: 'node', colour: 'red' },
      /unknown field\(s\) 'colour'; the fields are name, command, args, .*url/,
    ],
    [
      'a field named nearly right',
      { name: 'x', command: 'node', startup_timeout: 5 },
      /unknown field\(s\) 'startup_timeout' \(did you mean 'startup_timeout_seconds'\?\)/,
    ],
    [
      'command and url',
      { name: 'x', command: 'node', url: 'http://127.0.0.1:1/mcp' },
      /give either command \(a local server\) or url \(a remote server\), not both/,
    ],
    [
      'a url that is not http',
      { name: 'x', url: 'ftp://example/mcp' },
      /url 'ftp:\/\/example\/mcp' is not an absolute http\(s\) URL/,
    ],
    ['command that does not exist', { name: 'ghost', command: '/nonexistent/mcp-server' }, /ENOENT/],
    [
      'cwd that does not exist',
      { name: 'nocwd', ...fixture('echo-v1'), cwd: '/nonexistent/dir' },
      /cwd '\/nonexistent\/dir' is not an existing directory/,
    ],
    [
      'process that exits at start',
      { name: 'exits', ...fixture('exit-on-start') },
      /exited \(exit 3\) before it finished the MCP handshake[\s\S]*missing API key DEMO_KEY/,
    ],
    [
      'process that never answers',
      { name: 'mute', ...fixture('silent'), startup_timeout_seconds: 1 },
      /did not finish start-up .* within 1 s[\s\S]*silent: listening[\s\S]*it wrote nothing on stdout either: still starting .* or its output is buffered/,
    ],
  ];
  for (const [label, args, expected] of cases) {
    const result = await h.call('add_server', args);
    t.ok(result.isError, `${label}: isError`);
    t.match(textOf(result), expected, `${label}: says what to fix`);
  }
  const reload = await h.call('reload_server', { name: 'nope' });
  t.ok(reload.isError);
  t.match(textOf(reload), /no server named 'nope'; known servers: echo/);
  const servers = (await h.callJson('list_servers')).servers;
  t.same(
    servers.map((s: { name: string }) => s.name),
    ['echo'],
    'only the good server is registered',
  );
  t.same((await h.toolNames()).filter((n) => n.includes('__')).sort(), ['echo__add', 'echo__echo']);
  await h.close();
});

t.test("add_server: placement goes with a cluster; a registry entry's fields with registry", async (t) => {
  const h = await startHarness(t);
  const placed = textOf(
    await h.call('add_server', { name: 'echo', ...fixture('echo-v1'), placement: 'one' }),
  );
  t.match(
    placed,
    /placement says where a server runs in a cluster of replicas, and this mcpmux is not one \(--redis\)/,
  );
  const versioned = textOf(
    await h.call('add_server', { name: 'echo', ...fixture('echo-v1'), version: '1.0.0' }),
  );
  t.match(versioned, /version goes with registry, not with command or url/);
  t.same(h.children.list(), [], 'nothing was started');
  await h.close();
});
