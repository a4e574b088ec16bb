// Module hooks that load the suites' TypeScript: types blanked out in place by ts-blank-space
// (same lines and columns, so coverage and stack traces need no source map), each result kept
// on disk by the source's hash, so that most test processes never load TypeScript at all.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { version } = require('ts-blank-space/package.json');
/** By version too: another ts-blank-space may blank the same source differently. */
const CACHE = fileURLToPath(new URL(`../../node_modules/.cache/ts-blank-space-${version}/`, import.meta.url));
let blank;

/** `./x.js` written in TypeScript source names `./x.ts` (NodeNext's convention). */
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const url = error?.url;
    if (typeof url === 'string' && url.endsWith('.js')) return nextResolve(`${url.slice(0, -3)}.ts`, context);
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts') && !url.endsWith('.mts')) return nextLoad(url, context);
  const { source } = await nextLoad(url, { ...context, format: 'module' });
  const text = String(source);
  const kept = join(CACHE, `${createHash('sha1').update(text).digest('hex')}.js`);
  let blanked;
  try {
    blanked = readFileSync(kept, 'utf8');
  } catch {
    blank ??= (await import('ts-blank-space')).default;
    blanked = blank(text);
    mkdirSync(CACHE, { recursive: true });
    // Written whole, then renamed: a test process beside this one never reads half a file.
    const staged = `${kept}.${process.pid}`;
    writeFileSync(staged, blanked);
    renameSync(staged, kept);
  }
  return { format: 'module', shortCircuit: true, source: `${blanked}\n//# sourceURL=${url}` };
}
