// A 10 MB tool result: cut in the reply to its head and a notice with a handle, kept whole
// in a private file, read back in every read_result mode, and removed when the session ends.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { startMcpmux } from '../helpers/mcpmux-process.js';

// A temporary folder of this file's own: test files running beside it keep results too, and
// their folders must not count here (os.tmpdir() reads TMPDIR at each call).
const own = mkdtempSync(join(tmpdir(), 'mcpmux-spill-test-'));
process.env['TMPDIR'] = own;
t.teardown(() => rmSync(own, { recursive: true, force: true }));

const spillDirs = () => readdirSync(tmpdir()).filter((f) => f.startsWith('mcpmux-results-'));

t.test('cut, kept, read in every mode, removed at session end', async (t) => {
  const before = new Set(spillDirs());
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'big', ...fixture('big-result') });
  const result = await h.call('big__lines', { bytes: 10_000_000 });
  const [head, notice, image] = result.content;
  t.equal(head?.type, 'text');
  t.ok(
    Buffer.byteLength((head as { text: string }).text) <= 16_384,
    'the reply holds at most 16 KB of the text',
  );
  t.match((head as { text: string }).text, /^line 1: the quick brown fox/);
  t.match(
    (notice as { text: string }).text,
    /this result is 9\.5 MB \(~2,500,\d{3} tokens, \d{3},\d{3} lines\).*handle "r-[0-9a-f]{8}"/,
  );
  t.match(image, { type: 'image', mimeType: 'image/png' }, 'the image passes through untouched');
  const handle = /handle "(r-[0-9a-f]{8})"/.exec((notice as { text: string }).text)![1]!;

  const dirs = spillDirs().filter((d) => !before.has(d));
  t.equal(dirs.length, 1, 'one private directory for the session');
  t.equal(statSync(join(tmpdir(), dirs[0]!)).mode & 0o777, 0o700);
  t.equal(statSync(join(tmpdir(), dirs[0]!, handle)).mode & 0o777, 0o600, 'the file is private');

  const read = (args: Record<string, unknown>) => h.callJson('read_result', { handle, ...args });
  const stat = await read({ mode: 'stat' });
  t.match(stat, { lines: 177_388, approx_tokens: Math.ceil(stat.bytes / 4) });
  t.ok(stat.bytes >= 10_000_000);
  t.same(
    (await read({ mode: 'head', lines: 2 })).text,
    'line 1: the quick brown fox jumps over the lazy dog\nline 2: the quick brown fox jumps over the lazy dog',
  );
  const tail = await read({ mode: 'tail', lines: 1 });
  t.match(tail, { from_line: stat.lines, to_line: stat.lines, total_lines: stat.lines });
  t.match(
    (await read({ mode: 'slice', start_line: 1000, end_line: 1001 })).text,
    /^line 1000: .*\nline 1001: /,
  );
  t.equal((await read({ mode: 'slice', start_byte: 0, end_byte: 6 })).text, 'line 1');
  const big = await read({ mode: 'slice', start_line: 1, end_line: 100_000 });
  t.match(
    big.note,
    /cut at 16\.0 KB; continue with slice from line \d+/,
    'a large slice is itself cut, and says where to go on',
  );
  const grep = await read({ mode: 'grep', pattern: '^line 4242:', context: 1 });
  t.match(grep, {
    total_matches: 1,
    matches: [{ line: 4242, before: [/^line 4241:/], after: [/^line 4243:/] }],
  });
  t.match((await read({ mode: 'grep', pattern: 'fox', max_matches: 3 })).note, /more matches not shown/);

  const error = async (args: Record<string, unknown>) =>
    textOf(await h.call('read_result', { handle, ...args }));
  t.match(await error({ mode: 'grep', pattern: '(' }), /not a valid regular expression/);
  t.match(await error({ mode: 'grep' }), /give a pattern/);
  t.match(
    await error({ mode: 'slice', start_line: 99_999_999 }),
    /start_line 99999999 is past the end \(the result has \d+ lines\)/,
  );
  t.match(
    await error({ mode: 'slice', start_line: 10, end_line: 5 }),
    /end_line 5 comes before start_line 10/,
  );
  t.match(await error({ mode: 'json' }), /this result is not JSON; use grep or slice/);
  t.match(
    textOf(await h.call('read_result', { handle: 'r-00000000', mode: 'stat' })),
    /no result 'r-00000000'.*\[RESULT_NOT_FOUND\]/,
  );

  const json = await h.call('big__json', { items: 50_000 });
  const jsonHandle = /handle "(r-[0-9a-f]{8})"/.exec(textOf(json))![1]!;
  t.same(
    (await h.callJson('read_result', { handle: jsonHandle, mode: 'json', path: 'items[3].name' })).value,
    'item-3',
  );
  t.equal(
    (await h.callJson('read_result', { handle: jsonHandle, mode: 'json', path: 'count' })).value,
    50_000,
  );
  t.match(
    textOf(await h.call('read_result', { handle: jsonHandle, mode: 'json', path: 'items' })),
    /'items' is .* of JSON \(an array of 50000\); select something smaller, e\.g\. "items\.\[0\]"/,
  );
  t.match(
    textOf(await h.call('read_result', { handle: jsonHandle, mode: 'json', path: 'items[99999]' })),
    /has 50000 items; \[99999\] is out of range/,
  );

  const small = await h.call('big__lines', { bytes: 100 });
  t.equal(small.content.length, 2, 'a small result is untouched');
  await h.close();
  t.same(
    spillDirs().filter((d) => !before.has(d)),
    [],
    'the session ended: its results are gone',
  );
});

t.test('nowhere to keep a large result: its head still comes, saying what was lost and why', async (t) => {
  // A temporary directory that cannot be made (a path through a file), through the built
  // mcpmux (the fast path). A missing one would not do: Node 22+'s compile cache makes it.
  const notAFolder = join(own, 'a-file');
  writeFileSync(notAFolder, '');
  const big = fixture('big-result');
  const session = await startMcpmux(['--', 'big', big.command, ...big.args], undefined, {
    TMPDIR: join(notAFolder, 'tmp'),
  });
  t.teardown(() => session.client.close());
  const result = await session.call('big__lines', { bytes: 100_000 });
  t.notOk(result.isError, 'the call succeeded, and says so');
  const [head, notice, image] = result.content;
  t.match((head as { text: string }).text, /^line 1: the quick brown fox/);
  t.ok(Buffer.byteLength((head as { text: string }).text) <= 16_384, 'cut to the limit');
  t.match(
    (notice as { text: string }).text,
    /this result is 97\.\d KB.*The rest could not be kept for read_result: ENOTDIR.*TMPDIR.*--max-result-bytes 0/,
  );
  t.match(image, { type: 'image', mimeType: 'image/png' }, 'the image passes through untouched');
});
