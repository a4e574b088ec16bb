// --expose code's limits end to end with a real SDK client and real servers: time, memory
// and promises that never settle; the queue of programs; the tool calls one program may
// make; a cancelled program's sandbox freed. (A file of its own: with the rest of code
// mode's tests it came within seconds of tap's 120 s a file on a loaded machine.)
import t from 'tap';
import type { ExecuteResult } from '../../src/code/code-mode.js';
import { fixture } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { waitFor } from '../helpers/processes.js';
import { run } from '../helpers/programs.js';

type Outcome = ExecuteResult;

t.test('limits: a busy loop, a promise that never settles and a memory bomb are each stopped', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'code' }, code: { memoryBytes: 32 * 1024 * 1024 } });
  const loop = await run(h, 'while (true) {}', { timeout_seconds: 1 });
  t.equal(loop.error?.name, 'Timeout');
  t.match(loop.error?.message, /time limit/);
  t.ok(
    loop.duration_ms >= 900 && loop.duration_ms < 5_000,
    `stopped near its limit (${loop.duration_ms} ms)`,
  );
  const never = await run(h, 'await new Promise(() => {}); return 1');
  t.equal(never.error?.name, 'Deadlock', 'nothing can settle it, so it ends at once');
  await h.callJson('add_server', { name: 'slow', ...fixture('slow-call') });
  const waiting = await run(h, 'return await tools.slow.wait({ steps: 100, interval_ms: 100 })', {
    timeout_seconds: 1,
  });
  t.equal(waiting.error?.name, 'Timeout', 'a program waiting on a tool past its limit is stopped');
  t.ok(waiting.duration_ms < 5_000, `at its limit (${waiting.duration_ms} ms)`);
  t.ok(
    await waitFor(
      async () => (await run(h, 'return await tools.slow.last_wait()')).return_value === 'cancelled',
    ),
    'and its tool call was cancelled',
  );
  const OOM = 'InternalError: the program ran out of memory (limit 32 MB)';
  const bombs: [string, string][] = [
    [
      'const keep = []; for (;;) { const row = []; for (let i = 0; i < 100000; i++) row.push(i); keep.push(row); }',
      OOM,
    ],
    ['const keep = []; for (let i = 0; ; i++) keep.push({ i, label: "item " + i });', OOM],
    // QuickJS concatenates strings as ropes: this one hits the longest string before the limit.
    ['let s = "x"; for (;;) s = s + s + Math.random();', 'InternalError: string too long'],
  ];
  for (const [bomb, expected] of bombs) {
    const out = await run(h, bomb, { timeout_seconds: 60 });
    t.equal(`${out.error?.name}: ${out.error?.message}`, expected, bomb);
    t.ok(out.duration_ms < 20_000, `stopped by the memory limit, not the clock (${out.duration_ms} ms)`);
  }
  t.match(
    textOf(await h.call('execute_code', { code: 'return 1', timeout_seconds: 121 })),
    /timeout_seconds: Too big: expected number to be <=120/,
  );
  t.match(
    textOf(await h.call('execute_code', { code: 'const x = ;' })),
    /the program does not parse: line 1, column 11: Unexpected ";"/,
  );
  const typed = await run(h, 'const n: number = "not a number" as any; return n');
  t.equal(typed.return_value, 'not a number', 'types are stripped, not checked');
  t.same((await run(h, 'return 6 * 7')).return_value, 42, 'healthy afterwards');
  await h.close();
});

t.test(
  'the queue: a full queue refuses the next program clearly, and every queued one completes',
  async (t) => {
    const h = await startHarness(t, { mux: { expose: 'code' }, code: { concurrency: 1, maxQueued: 50 } });
    await h.callJson('add_server', { name: 'slow', ...fixture('slow-call') });
    // The first program starts the sandbox (esbuild, QuickJS), which on a loaded machine has
    // taken more than 5 s: the blocker's wait outlasts a slow start and the 51 programs after it.
    const blocker = run(h, 'return await tools.slow.wait({ steps: 60, interval_ms: 100 })');
    t.ok(
      await waitFor(
        async () => textOf(await h.call('call_tool', { name: 'slow__last_wait' })) === 'running',
        30_000,
      ),
      'the one sandbox is busy',
    );
    // 51 programs at once: each is stripped (asynchronously) before it reaches the queue, so
    // which one arrives last is not the order they were sent in; exactly one must be refused.
    const sent = await Promise.all(
      Array.from({ length: 51 }, (_, i) => h.call('execute_code', { code: `return ${i}` })),
    );
    const refused = sent.filter((r) => r.isError);
    t.equal(refused.length, 1, 'exactly one program beyond the depth of 50 is refused');
    t.match(
      textOf(refused[0]!),
      /1 programs are running and 50 are waiting \(the most mcpmux queues\); try again when one has finished \[CODE_BUSY\]/,
    );
    t.equal((await blocker).ok, true);
    const completed = sent
      .filter((r) => !r.isError)
      .map((r) => (JSON.parse(textOf(r)) as Outcome).return_value);
    const refusedIndex = sent.findIndex((r) => r.isError);
    t.same(
      completed,
      Array.from({ length: 51 }, (_, i) => i).filter((i) => i !== refusedIndex),
      'the 50 queued programs all completed with their own answers',
    );
    await h.close();
  },
);

t.test('a program may make only so many tool calls; a cancelled program frees its sandbox', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'code' }, code: { maxToolCalls: 3, concurrency: 1 } });
  await h.callJson('add_server', { name: 'e', ...fixture('echo-v1') });
  const capped = await run(
    h,
    `
    const said = [];
    for (let i = 0; i < 5; i++) {
      try { said.push(await tools.e.echo({ message: String(i) })); } catch (e) { said.push(e.message); }
    }
    return said;`,
  );
  t.same(capped.return_value, [
    '0',
    '1',
    '2',
    'this program made more than 3 tool calls, the most one run may make',
    'this program made more than 3 tool calls, the most one run may make',
  ]);
  t.equal(capped.tool_calls.length, 3);

  const controller = new AbortController();
  const stuck = h.client.callTool(
    { name: 'execute_code', arguments: { code: 'while (true) {}', timeout_seconds: 60 } },
    { signal: controller.signal },
  );
  setTimeout(() => controller.abort(), 300);
  await t.rejects(stuck, /abort/i);
  const started = Date.now();
  t.same((await run(h, 'return "next"')).return_value, 'next');
  t.ok(Date.now() - started < 20_000, 'the one sandbox was freed long before the 60 s limit');
  await h.close();
});
