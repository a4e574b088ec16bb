// Names of files that cannot rot: every file of mcpmux's a comment in src/ names (as
// `session/results.ts`, relative to src/ or to the comment's own folder, or by a kebab-case
// name alone) and every `src/…` path the README and docs/ name outside code blocks exists.
// A comment that names another project's file names it in that project's style
// (`mcpParamHeaders.ts`, `npx-cli.js`), which this leaves alone.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });

t.test('every file a comment in src/ names exists', async (t) => {
  const sources = walk(join(ROOT, 'src')).filter((f) => f.endsWith('.ts'));
  const names = new Set(sources.map((f) => basename(f)));
  const missing: string[] = [];
  for (const file of sources)
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const comment = /(?:\/\/|^\s*\*|\/\*\*)(.*)$/.exec(line)?.[1];
        if (!comment) return;
        for (const [token] of comment.matchAll(/(?<![\w@./-])(?:[\w-]+\/)*[\w-]+\.(?:ts|js)\b/g)) {
          const places = token.startsWith('src/')
            ? [join(ROOT, token)]
            : [join(ROOT, 'src', token), join(dirname(file), token), join(ROOT, token)];
          if (places.some((p) => existsSync(p))) continue;
          // A bare name: mcpmux's files are kebab-case .ts; another project's are its own business.
          if (!token.includes('/') && (!/^[a-z0-9-]+\.ts$/.test(token) || names.has(token))) continue;
          missing.push(`${relative(ROOT, file)}:${i + 1} names ${token}`);
        }
      });
  t.same(missing, [], 'no comment names a file that is not there');
});

t.test('every src/ path the README and docs/ name exists', async (t) => {
  const pages = [join(ROOT, 'README.md'), ...walk(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'))];
  const missing: string[] = [];
  for (const page of pages) {
    // Code blocks show the reader's own project (their src/tools.ts), not mcpmux's.
    const prose = readFileSync(page, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
    for (const [path] of prose.matchAll(/(?<![\w@./-])src\/[\w./-]*[\w/]/g))
      if (!existsSync(join(ROOT, path))) missing.push(`${relative(ROOT, page)} names ${path}`);
  }
  t.same(missing, [], 'no page names a source file that is not there');
});
