#!/usr/bin/env node
// @ts-check
// The rooms of src/ (its top-level folders and files) import one another one way only: where
// room A imports room B, B imports nothing of A, type imports included. dependency-cruiser's
// rules (.dependency-cruiser.cjs) forbid circles of modules and imports up the layers; two
// rooms on one layer could still lean on each other module by module, which this forbids.
// Part of `npm run check:house`.
import { cruise } from 'dependency-cruiser';

const result = await cruise(['src'], { tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' } });
if (typeof result.output === 'string') throw new Error('dependency-cruiser answered in text');
const roomOf = (/** @type {string} */ path) => /^src\/([^/]+)/.exec(path)?.[1] ?? path;

/** @type {Map<string, string[]>} "from -> to": the imports that make the edge */
const edges = new Map();
for (const module of result.output.modules) {
  if (!module.source.startsWith('src/')) continue;
  for (const dependency of module.dependencies) {
    if (!dependency.resolved.startsWith('src/')) continue;
    const [from, to] = [roomOf(module.source), roomOf(dependency.resolved)];
    if (from === to) continue;
    const key = `${from} -> ${to}`;
    edges.set(key, [...(edges.get(key) ?? []), `${module.source} imports ${dependency.resolved}`]);
  }
}
const both = [...edges.keys()].filter((key) => {
  const [from, to] = key.split(' -> ');
  return from < to && edges.has(`${to} -> ${from}`);
});
for (const key of both) {
  const [from, to] = key.split(' -> ');
  process.stderr.write(
    `rooms ${from}/ and ${to}/ import each other:\n` +
      [...edges.get(key), ...(edges.get(`${to} -> ${from}`) ?? [])].map((line) => `  ${line}\n`).join(''),
  );
}
if (both.length > 0) process.exit(1);
process.stdout.write(`✔ no two rooms of src/ import each other (${edges.size} room-to-room imports)\n`);
