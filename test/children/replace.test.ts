// A server put in the place of another under the same name (the cluster moving a server placed
// on one replica: a hop to the last owner replaced by one to the next, or by a copy here). The
// client keeps seeing the catalog and its calls wait until the new server has started; the old
// one is stopped after; a replacement that fails to start leaves nothing registered or running.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixtureSpec } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { isAlive, taggedEnv, waitFor } from '../helpers/processes.js';

const pidOf = (h: Awaited<ReturnType<typeof startHarness>>, name: string) =>
  h.children.list().find((s) => s.name === name)?.pid;

t.test('calls wait for the replacement; the catalog stays listed; the old process ends after', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-replace-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const gate = join(dir, 'go');
  const h = await startHarness(t);
  await h.children.add('srv', fixtureSpec('slow-start', taggedEnv({ SLOW_START_MS: '0' })));
  const old = pidOf(h, 'srv');
  t.ok(old && isAlive(old), 'the first one runs');
  t.ok(await waitFor(() => h.listChanged() > 0), 'the add was told');
  const listChanged = h.listChanged();
  const replaced = h.children.replace('srv', fixtureSpec('slow-start', taggedEnv({ SLOW_START_GATE: gate })));
  let settled = false;
  const call = h.call('srv__ready').then((result) => ((settled = true), result));
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.notOk(settled, 'the call waits while the new one starts');
  t.ok((await h.toolNames()).includes('srv__ready'), 'its tool stays listed meanwhile');
  t.ok(isAlive(old!), 'the old one runs until the new one has started');
  writeFileSync(gate, '');
  t.equal(textOf(await call), 'ready', 'the waiting call is answered by the new one');
  const started = await replaced;
  t.same(
    started.tools.map((tool) => tool.name),
    ['ready'],
  );
  t.not(pidOf(h, 'srv'), old, 'a new process');
  t.ok(await waitFor(() => !isAlive(old!)), 'the old one is stopped');
  t.equal(h.listChanged(), listChanged, 'the same tools: no list_changed');
  t.ok(existsSync(gate));
  await h.close();
});

t.test('a replacement that fails to start: nothing registered, nothing running', async (t) => {
  const h = await startHarness(t);
  await h.children.add('srv', fixtureSpec('slow-start', taggedEnv({ SLOW_START_MS: '0' })));
  const old = pidOf(h, 'srv')!;
  await t.rejects(h.children.replace('srv', fixtureSpec('exit-on-start', taggedEnv())));
  t.notOk(h.children.snapshot.servers.has('srv'), 'not registered');
  t.ok(await waitFor(() => !isAlive(old)), 'the old one is stopped too');
  const answer = await h.call('srv__ready');
  t.match(textOf(answer), /no server named 'srv'/);
  await h.close();
});

t.test('removed while its replacement starts: both end at once, whatever is in flight', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-replace-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const h = await startHarness(t);
  await h.children.add('srv', fixtureSpec('slow-start', taggedEnv({ SLOW_START_MS: '0' })));
  const old = pidOf(h, 'srv')!;
  const replaced = h.children.replace(
    'srv',
    fixtureSpec('slow-start', taggedEnv({ SLOW_START_GATE: join(dir, 'never') })),
  );
  replaced.catch(() => {}); // (awaited below, after the remove that fails it)
  const call = h.call('srv__ready');
  await waitFor(() => pidOf(h, 'srv') !== undefined && pidOf(h, 'srv') !== old);
  const started = Date.now();
  await h.children.remove('srv');
  await t.rejects(replaced);
  t.match(textOf(await call), /srv/, 'the waiting call is answered (with an error)');
  t.ok(await waitFor(() => !isAlive(old), 5000), 'the old one ended');
  t.ok(Date.now() - started < 5000, 'within the time a remove takes');
  t.notOk(h.children.snapshot.servers.has('srv'));
  await h.close();
});

t.test('a name not registered is added', async (t) => {
  const h = await startHarness(t);
  const started = await h.children.replace(
    'srv',
    fixtureSpec('slow-start', taggedEnv({ SLOW_START_MS: '0' })),
  );
  t.equal(started.status.status, 'running');
  t.equal(textOf(await h.call('srv__ready')), 'ready');
  await h.close();
});

t.test('no process is left', async (t) => {
  const { assertNoLeaks } = await import('../helpers/processes.js');
  await assertNoLeaks(t);
});
