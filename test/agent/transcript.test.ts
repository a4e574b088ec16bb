// Transcripts on disk: appends to one file never interleave and keep their order, files are
// 0600 in a 0700 directory, a malformed line is skipped with a warning, and nothing but an
// agent id becomes a file name.
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { TranscriptStore, defaultAgentDir } from '../../src/agent/transcript.js';
import { historyOf } from '../../src/agent/agent-runs.js';
import { createLogger } from '../../src/common/log.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-transcript-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

function store(dir: string) {
  const warnings: string[] = [];
  const logger = createLogger({ level: 'warn', sink: (line) => warnings.push(line) });
  return { transcripts: new TranscriptStore(dir, logger), warnings };
}

t.test('concurrent appends land whole and in order; files are private', async (t) => {
  const dir = join(scratch, 'a', 'agents');
  const { transcripts } = store(dir);
  const big = 'x'.repeat(200_000);
  await Promise.all([
    ...Array.from({ length: 50 }, (_, i) =>
      transcripts.append('0000aaaa', 'assistant', [{ type: 'text', text: `${i}:${big}` }]),
    ),
    ...Array.from({ length: 50 }, (_, i) => transcripts.append('0000bbbb', 'user', `b${i}`)),
  ]);
  const a = await transcripts.read('0000aaaa');
  t.equal(a!.length, 50);
  t.same(
    a!.map((line) => (line.content as { text: string }[])[0]!.text.split(':')[0]),
    Array.from({ length: 50 }, (_, i) => String(i)),
    'in the order they were made',
  );
  t.same(
    (await transcripts.read('0000bbbb'))!.map((l) => l.content),
    Array.from({ length: 50 }, (_, i) => `b${i}`),
  );
  t.equal(statSync(join(dir, '0000aaaa.jsonl')).mode & 0o777, 0o600);
  t.equal(statSync(dir).mode & 0o777, 0o700);
  t.equal(await transcripts.read('0000cccc'), undefined, 'no transcript: undefined');
});

t.test('a malformed line is skipped with a warning naming it', async (t) => {
  const dir = join(scratch, 'b');
  const { transcripts, warnings } = store(dir);
  await transcripts.append('1234abcd', 'user', 'hello');
  appendFileSync(
    join(dir, '1234abcd.jsonl'),
    '{"type": "assistant", "cont\n{"type": "other", "content": 1}\n',
  );
  await transcripts.append('1234abcd', 'assistant', [{ type: 'text', text: 'hi' }]);
  const lines = await transcripts.read('1234abcd');
  t.same(
    lines!.map((l) => l.type),
    ['user', 'assistant'],
  );
  t.equal(warnings.length, 2);
  t.match(warnings[0], /agent 1234abcd: line 2 of .*1234abcd\.jsonl is skipped/);
  t.match(warnings[1], /line 3 .* unknown type "other"/);
  t.same(historyOf(lines!), [
    { role: 'user', content: { type: 'text', text: 'hello' } },
    { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
  ]);
});

t.test('only an agent id names a file', async (t) => {
  const { transcripts } = store(join(scratch, 'c'));
  for (const id of ['../x', 'ABCDEF01', '1234567', '123456789', ''])
    t.throws(() => transcripts.pathOf(id), /not an agent id/, JSON.stringify(id));
  t.equal(defaultAgentDir({ XDG_STATE_HOME: '/state' }), '/state/mcpmux/agents');
  t.match(defaultAgentDir({}), /\/\.local\/state\/mcpmux\/agents$/);
});

t.test('a directory that could not be made is tried again once the way is clear', async (t) => {
  const blocker = join(scratch, 'blocked');
  writeFileSync(blocker, 'a file where the directory should go');
  const { transcripts } = store(join(blocker, 'agents'));
  await t.rejects(transcripts.append('0000dddd', 'user', 'first'), { code: 'ENOTDIR' });
  rmSync(blocker);
  await transcripts.append('0000dddd', 'user', 'second');
  t.same(
    (await transcripts.read('0000dddd'))!.map((l) => l.content),
    ['second'],
    'written once it could be',
  );
});
