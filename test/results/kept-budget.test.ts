// The budget all kept results share: past it the oldest are dropped (their files removed,
// reading one says why), a result larger than the whole budget is not kept, and a result
// whose time is up or whose session ended gives its room back.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KeptBudget } from '../../src/results/kept-budget.js';
import { ResultStore } from '../../src/results/result-store.js';

const lines = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i}: ${'x'.repeat(90)}`).join('\n');
const result = (text: string) => ({ content: [{ type: 'text' as const, text }] });
const noticeOf = (r: { content: unknown[] }) => (r.content[1] as { text: string }).text;
const handleOf = (r: { content: unknown[] }) => /handle "(r-[0-9a-f]+)"/.exec(noticeOf(r))?.[1];
// Stores make their directories under TMPDIR: one of this test's own, so that no other test's show.
const root = mkdtempSync(join(tmpdir(), 'kept-budget-test-'));
process.env['TMPDIR'] = root;
t.teardown(() => rmSync(root, { recursive: true, force: true }));

t.test('past the budget the oldest kept results are dropped, across stores', async (t) => {
  const budget = new KeptBudget(250_000);
  const a = new ResultStore({ maxBytes: 1000, budget });
  const b = new ResultStore({ maxBytes: 1000, budget });
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const first = handleOf(await a.fit(result(lines(1000, 'first'))))!; // ~100 KB each
  const second = handleOf(await b.fit(result(lines(1000, 'second'))))!;
  t.ok(first && second, 'both kept');
  t.ok(budget.bytes > 200_000 && budget.bytes <= 250_000, `two held: ${budget.bytes} bytes`);
  const third = handleOf(await b.fit(result(lines(1000, 'third'))))!;
  t.ok(third, 'the third is kept');
  t.ok(budget.bytes <= 250_000, `within the budget: ${budget.bytes} bytes`);
  await t.rejects(a.read(first), {
    code: 'RESULT_NOT_FOUND',
    message: `result '${first}' was dropped to keep the results kept under 244.1 KB (the oldest go first); call the tool again to get it anew`,
  });
  await t.resolves(b.read(second), 'the younger ones stay');
  t.match((await b.read(third)).text, /^third line 0/);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const files = readdirSync(root).flatMap((dir) => readdirSync(join(root, dir)));
  t.same(files.sort(), [second, third].sort(), "the dropped result's file is gone");
});

t.test('a result larger than the whole budget is not kept: its head comes, saying why', async (t) => {
  const budget = new KeptBudget(50_000);
  const store = new ResultStore({ maxBytes: 1000, budget });
  t.teardown(() => store.close());
  const fitted = await store.fit(result(lines(1000, 'big')));
  t.match((fitted.content[0] as { text: string }).text, /^big line 0/);
  t.match(
    noticeOf(fitted),
    /The rest could not be kept for read_result: it is more than the 48\.8 KB that kept results may take together\. Ask the tool for less, or pass results whole with --max-result-bytes 0\.\]$/,
  );
  t.equal(budget.bytes, 0);
});

t.test('a result whose time is up, or whose session ended, gives its room back', async (t) => {
  const budget = new KeptBudget(1_000_000);
  const short = new ResultStore({ maxBytes: 1000, budget, ttlMs: 30 });
  const handle = handleOf(await short.fit(result(lines(100, 'brief'))))!;
  t.ok(budget.bytes > 0);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(budget.bytes, 0, 'its time is up');
  await t.rejects(short.read(handle), { code: 'RESULT_NOT_FOUND', message: /results are kept for/ });
  const session = new ResultStore({ maxBytes: 1000, budget });
  const kept = handleOf(await session.fit(result(lines(100, 'kept'))))!;
  t.ok(kept && budget.bytes > 0);
  await session.close();
  t.equal(budget.bytes, 0, 'its session ended');
  await short.close();
});
