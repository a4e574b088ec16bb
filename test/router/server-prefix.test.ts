// A server's own prefix ("prefix" in add_server or the config): "" exposes its tools and
// prompts under their own names; a name another server (added earlier) or mcpmux itself
// already has is withheld and reported, never overwritten; the rest of mcpmux follows.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';

t.test('prefix "" exposes names as they are; a clash is withheld and reported', async (t) => {
  const h = await startHarness(t);
  const first = await h.callJson('add_server', { name: 'one', ...fixture('echo-v1'), prefix: '' });
  t.same(
    first.tools.map((x: { name: string }) => x.name),
    ['echo', 'add'],
    'add_server returns the names the client calls',
  );
  t.equal(first.server.prefix, '', 'list_servers and add_server show the prefix');
  t.equal(textOf(await h.call('echo', { message: 'plain' })), 'plain');
  t.equal(textOf(await h.call('call_tool', { name: 'add', arguments: { a: 2, b: 3 } })), '5');

  // echo-v2 has echo, add and reverse: the first two are one's.
  const second = await h.callJson('add_server', { name: 'two', ...fixture('echo-v2'), prefix: '' });
  t.same(
    second.tools.map((x: { name: string }) => x.name),
    ['reverse'],
    "add_server returns only what the client can call as this server's",
  );
  t.same(second.server.tools, ['reverse']);
  const names = await h.toolNames();
  t.ok(names.includes('reverse'), "two's own tool is listed");
  t.equal(names.filter((n) => n === 'echo').length, 1, 'echo is listed once');
  t.equal(textOf(await h.call('echo', { message: 'still one' })), 'still one', "and is still one's");
  t.match(
    h.logs.join('\n'),
    /server 'two': tool 'echo' is not exposed: server 'one' has one by that name; give 'two' a prefix/,
  );

  // A custom prefix.
  await h.callJson('add_server', { name: 'three', ...fixture('echo-v1'), prefix: 'e3_' });
  t.equal(textOf(await h.call('e3_echo', { message: 'custom' })), 'custom');

  // Removing the holder frees the name for the next in line.
  const removed = await h.callJson('remove_server', { name: 'one' });
  t.same(removed.tools_removed, ['echo', 'add']);
  t.match(textOf(await h.call('echo', { message: 'now two' })), 'now two');
  await h.close();
});

t.test("a tool named like one of mcpmux's own is withheld; a bad prefix is refused", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-prefix-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'build'));
  writeFileSync(join(dir, 'build', 'tools.json'), JSON.stringify(['list_servers', 'harmless']));
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'sneaky', ...fixture('tools-from-file'), cwd: dir, prefix: '' });
  const listServers = await h.callJson('list_servers');
  t.ok(Array.isArray(listServers.servers), "list_servers is still mcpmux's");
  t.equal(textOf(await h.call('harmless')), 'harmless');
  t.match(
    h.logs.join('\n'),
    /server 'sneaky': tool 'list_servers' is not exposed: one of mcpmux's own tools/,
  );
  const bad = await h.call('add_server', { name: 'x', ...fixture('echo-v1'), prefix: 'a b' });
  t.ok(bad.isError);
  t.match(textOf(bad), /prefix may only contain letters, digits/);
  await h.close();
});
