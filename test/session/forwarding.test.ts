// The call path keeps the caller's lifetime: progress comes back under the caller's
// token, and the caller's cancellation reaches the child.
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { waitFor } from '../helpers/processes.js';

t.test("the child's progress notifications reach the caller", async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'slow', ...fixture('slow-call') });
  const seen: unknown[] = [];
  const result = await h.client.callTool(
    { name: 'slow__wait', arguments: { steps: 3, interval_ms: 10 } },
    {
      onprogress: (p) => seen.push(p),
    },
  );
  t.equal(textOf(result as any), 'waited 3 steps');
  t.same(seen, [
    { progress: 1, total: 3 },
    { progress: 2, total: 3 },
    { progress: 3, total: 3 },
  ]);
  const viaCallTool = [] as unknown[];
  await h.client.callTool(
    { name: 'call_tool', arguments: { name: 'slow__wait', arguments: { steps: 2, interval_ms: 5 } } },
    {
      onprogress: (p) => viaCallTool.push(p),
    },
  );
  t.equal(viaCallTool.length, 2, 'also through call_tool');
  await h.close();
});

t.test("the caller's cancellation reaches the child", async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'slow', ...fixture('slow-call') });
  const controller = new AbortController();
  const call = h.client.callTool(
    { name: 'slow__wait', arguments: { steps: 500, interval_ms: 10 } },
    { signal: controller.signal },
  );
  t.ok(
    await waitFor(async () => textOf(await h.call('slow__last_wait')) === 'running'),
    'the child is working',
  );
  controller.abort('changed my mind');
  await t.rejects(call);
  t.ok(
    await waitFor(async () => textOf(await h.call('slow__last_wait')) === 'cancelled'),
    'the child saw notifications/cancelled',
  );
  await h.close();
});
