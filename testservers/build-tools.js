// @ts-check
// Simulates: the build of tools-from-file. Copies src/tools.json to build/tools.json (in its
// cwd); a source that is not a JSON list of names fails the build with a compiler-like error.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const source = readFileSync('src/tools.json', 'utf8');
let names;
try {
  names = JSON.parse(source);
} catch {
  names = undefined;
}
if (!Array.isArray(names)) {
  process.stdout.write('building tools…\n');
  process.stderr.write(`src/tools.json: error TS1005: a list of tool names was expected\n`);
  process.exit(1);
}
mkdirSync('build', { recursive: true });
writeFileSync('build/tools.json', JSON.stringify(names));
process.stdout.write(`built ${names.length} tools\n`);
