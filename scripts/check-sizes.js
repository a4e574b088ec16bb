#!/usr/bin/env node
// @ts-check
// Bodies a reader can hold in mind: no function in src/ longer than MAX_FUNCTION_LINES and no
// module longer than MAX_FILE_LINES. A function that is mostly one data table (an object or
// array literal: a schema, a list of flags) may be longer: it reads as a table, not as steps.
// Part of `npm run check:house`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const MAX_FUNCTION_LINES = 60;
const MAX_FILE_LINES = 400;

/** The folder checked: src/, or another one given (the check's own test gives one). */
const root = process.argv[2] ?? 'src';
const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join(root, name))
  .sort();
const problems = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) problems.push(`${file}: ${lines} lines (at most ${MAX_FILE_LINES})`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (/** @type {number} */ position) => source.getLineAndCharacterOfPosition(position).line;
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = /** @type {ts.Node} */ (node.body);
      const length = lineOf(body.getEnd()) - lineOf(body.getStart(source)) + 1;
      const tables = tableLines(body, lineOf, source);
      if (length - tables > MAX_FUNCTION_LINES) {
        problems.push(
          `${file}:${lineOf(node.getStart(source)) + 1}: ${nameOf(node)} is ${length} lines (at most ${MAX_FUNCTION_LINES})`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** Lines of a body taken by large literal tables that hold no function. */
function tableLines(
  /** @type {ts.Node} */ body,
  /** @type {(p: number) => number} */ lineOf,
  /** @type {ts.SourceFile} */ source,
) {
  let total = 0;
  /** @param {ts.Node} node */
  const visit = (node) => {
    if ((ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node)) && !holdsFunction(node)) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
      if (lines >= 10) {
        total += lines;
        return;
      }
    }
    if (node !== body && ts.isFunctionLike(node)) return;
    ts.forEachChild(node, visit);
  };
  visit(body);
  return total;
}

function holdsFunction(/** @type {ts.Node} */ node) {
  let found = false;
  /** @param {ts.Node} child */
  const visit = (child) => {
    if (found) return;
    if (ts.isFunctionLike(child)) found = true;
    else ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

function nameOf(/** @type {ts.Node} */ node) {
  const named = /** @type {{ name?: ts.Node }} */ (node).name;
  if (named && ts.isIdentifier(named)) return named.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return 'a function';
}

for (const problem of problems) process.stderr.write(`${problem}\n`);
if (problems.length > 0) process.exit(1);
process.stdout.write(
  `✔ ${files.length} modules: none over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}\n`,
);
