// The tutorials work when followed literally: in each docs/tutorials/*.md, the shell blocks
// marked `<!-- run -->` run in order in one shell from the root of this clone (as a reader's
// would), the code blocks marked `<!-- file: NAME -->` are written where the reader would save
// them, and a block marked `<!-- output -->` is what the run before it printed on stdout, line
// by line ("…" in a line stands for what varies). Nothing a tutorial starts may outlive it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/fixtures.js';
import { assertNoLeaks, killTaggedProcesses, taggedEnv } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const DIR = join(ROOT, 'docs/tutorials');
const END = 'MCPMUX_TUTORIAL_END_OF_FILE';

interface Step {
  index: number;
  expected: string[];
}

/** The tutorial as one script, and what each of its runs must print. */
function script(markdown: string): { text: string; steps: Step[] } {
  const parts: string[] = ['set -euo pipefail'];
  const steps: Step[] = [];
  const blocks = markdown.matchAll(/<!-- (run|file: [^ ]+|output) -->\n\n?```[a-z]*\n([\s\S]*?)^```$/gm);
  for (const [, marker, body] of blocks) {
    if (marker === 'run') {
      steps.push({ index: steps.length, expected: [] });
      parts.push(`echo "::step ${steps.length - 1}::"`, body!.trimEnd());
    } else if (marker === 'output') {
      const step = steps.at(-1);
      if (step) step.expected.push(...body!.split('\n').filter((line) => line.trim() !== ''));
    } else {
      const name = marker!.slice('file: '.length);
      parts.push(`cat > ${name} <<'${END}'\n${body!.trimEnd()}\n${END}`);
    }
  }
  return { text: parts.join('\n'), steps };
}

for (const file of readdirSync(DIR).filter((name) => name.endsWith('.md'))) {
  t.test(`docs/tutorials/${file}, followed literally`, async (t) => {
    const markdown = readFileSync(join(DIR, file), 'utf8');
    const { text, steps } = script(markdown);
    t.ok(steps.length > 0, 'it has commands to run');
    // Where the tutorial's folders go (.scratch/, ignored by git), removed afterwards.
    const made = [...markdown.matchAll(/mkdir -p (\.scratch\/[\w-]+)/g)].map((m) => join(ROOT, m[1]!));
    t.teardown(() => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
    // A home of its own, as a new user's: a client the tutorial starts passes HOME (not
    // XDG_STATE_HOME) to mcpmux, whose approvals and kept secrets must not be this machine's.
    // npm still reads this machine's cache (offline).
    const home = mkdtempSync(join(tmpdir(), 'mcpmux-tutorial-home-'));
    t.teardown(() => rmSync(home, { recursive: true, force: true }));
    const run = spawnSync('bash', ['-c', text], {
      cwd: ROOT,
      env: taggedEnv({
        npm_config_offline: 'true',
        npm_config_cache: process.env['npm_config_cache'] ?? join(homedir(), '.npm'),
        HOME: home,
      }),
      encoding: 'utf8',
      timeout: 120_000,
    });
    t.equal(run.status, 0, `it runs to the end (stderr: ${run.stderr.slice(-600)})`);
    const printed = run.stdout.split(/^::step (\d+)::$/m);
    for (const step of steps) {
      const at = printed.indexOf(String(step.index));
      const output = at === -1 ? '' : (printed[at + 1] ?? '');
      if (step.expected.length === 0) continue;
      // What the tutorial shows is what prints: every line, in order ("…" stands for what varies, as a pid).
      const lines = output.split('\n').filter((line) => line.trim() !== '');
      t.equal(lines.length, step.expected.length, `step ${step.index + 1} prints as many lines as it shows`);
      step.expected.forEach((line, i) =>
        t.match(lines[i] ?? '', shownLine(line), `step ${step.index + 1}, line ${i + 1}: ${line.trim()}`),
      );
    }
    await assertNoLeaks(t);
  });
}

/** A line as a tutorial shows it, as a pattern: the whole line, "…" standing for any text. */
function shownLine(line: string): RegExp {
  const parts = line
    .trim()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^\\s*${parts.join('.*')}\\s*$`);
}
