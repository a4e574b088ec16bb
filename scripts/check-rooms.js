#!/usr/bin/env node
// @ts-check
// The rooms of src/ import one another one way only: where folder A imports folder B, B
// imports nothing of A, type imports included. A room is a top-level folder or file of src/,
// and, inside a folder, each of its subfolders (session/relay/ and session/tasks/ are two
// rooms of session/). dependency-cruiser's rules (.dependency-cruiser.cjs) forbid circles of
// modules and imports up the layers; two rooms on one layer could still lean on each other
// module by module, which this forbids. A folder's own files and its subfolders may use each
// other: they are one room seen from outside. Part of `npm run check:house`.
import { statSync } from 'node:fs';
import { cruise } from 'dependency-cruiser';

const result = await cruise(['src'], { tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' } });
if (typeof result.output === 'string') throw new Error('dependency-cruiser answered in text');
const isFolder = (/** @type {string} */ path) =>
  statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * The two rooms an import crosses between: the entries of their nearest common folder that hold
 * each side; undefined when one of them is a file of that folder (a folder's files and its
 * subfolders are one room), except at the top of src/, where every entry is a room.
 */
function roomsOf(/** @type {string} */ from, /** @type {string} */ to) {
  const a = from.split('/');
  const b = to.split('/');
  let i = 0;
  while (i < a.length - 1 && i < b.length - 1 && a[i] === b[i]) i++;
  const [roomA, roomB] = [a.slice(0, i + 1).join('/'), b.slice(0, i + 1).join('/')];
  if (roomA === roomB) return undefined;
  if (i > 1 && !(isFolder(roomA) && isFolder(roomB))) return undefined;
  return [roomA, roomB];
}

/** @type {Map<string, string[]>} "from -> to": the imports that make the edge */
const edges = new Map();
for (const module of result.output.modules) {
  if (!module.source.startsWith('src/')) continue;
  for (const dependency of module.dependencies) {
    if (!dependency.resolved.startsWith('src/')) continue;
    const rooms = roomsOf(module.source, dependency.resolved);
    if (!rooms) continue;
    const key = `${rooms[0]} -> ${rooms[1]}`;
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
    `rooms ${from} and ${to} import each other:\n` +
      [...edges.get(key), ...(edges.get(`${to} -> ${from}`) ?? [])].map((line) => `  ${line}\n`).join(''),
  );
}
if (both.length > 0) process.exit(1);
process.stdout.write(`✔ no two rooms of src/ import each other (${edges.size} room-to-room imports)\n`);
