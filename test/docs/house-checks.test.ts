// The size check of `npm run check:house` (scripts/check-sizes.js) run on folders made to
// pass and to fail it: a long function and a long module are named, and a function that is
// mostly a data table is not.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'check-sizes.js');

function check(t: Test, files: Record<string, string>): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-sizes-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const run = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

const steps = (n: number) => Array.from({ length: n }, (_, i) => `  total += ${i};`).join('\n');

t.test('a function over 60 lines is named with its file and line', async (t) => {
  const long = `export function tooLong(): number {\n  let total = 0;\n${steps(62)}\n  return total;\n}\n`;
  const { status, stderr } = check(t, { 'long.ts': `// A module.\n${long}` });
  t.equal(status, 1);
  t.match(stderr, /long\.ts:2: tooLong is 66 lines \(at most 60\)/);
});

t.test('methods and arrow functions are measured as functions', async (t) => {
  const method = `export class Holder {\n  run(): number {\n    let total = 0;\n${steps(62)}\n    return total;\n  }\n}\n`;
  const arrow = `export const handler = (): number => {\n  let total = 0;\n${steps(62)}\n  return total;\n};\n`;
  const { status, stderr } = check(t, { 'method.ts': method, 'arrow.ts': arrow });
  t.equal(status, 1);
  t.match(stderr, /method\.ts:2: run is/);
  t.match(stderr, /arrow\.ts:1: handler is/);
});

t.test('a module over 400 lines is named', async (t) => {
  const lines = Array.from({ length: 401 }, (_, i) => `export const value${i} = ${i};`).join('\n') + '\n';
  const { status, stderr } = check(t, { 'big.ts': lines });
  t.equal(status, 1);
  t.match(stderr, /big\.ts: 401 lines \(at most 400\)/);
});

t.test('a function that is mostly a data table passes, and so does a short one', async (t) => {
  const rows = Array.from({ length: 80 }, (_, i) => `    row${i}: ${i},`).join('\n');
  const table = `export function table(): Record<string, number> {\n  return {\n${rows}\n  };\n}\n`;
  const short = `export function short(): number {\n  return 1;\n}\n`;
  const { status, stderr } = check(t, { 'table.ts': table, 'short.ts': short });
  t.equal(status, 0, stderr);
});

t.test('a table that holds functions counts as steps', async (t) => {
  const handlers = Array.from({ length: 70 }, (_, i) => `    on${i}: () => ${i},`).join('\n');
  const table = `export function handlers(): Record<string, () => number> {\n  return {\n${handlers}\n  };\n}\n`;
  const { status, stderr } = check(t, { 'handlers.ts': table });
  t.equal(status, 1);
  t.match(stderr, /handlers\.ts:1: handlers is/);
});
