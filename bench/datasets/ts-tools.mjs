#!/usr/bin/env node
// @ts-check
// Tool definitions of a TypeScript or JavaScript MCP server, read from its source with the
// TypeScript compiler's parser, without installing or running it.
// Usage: node ts-tools.mjs SERVER_DIR  →  JSON list of tools on stdout.
// Three shapes are recognized, which cover the servers of MCP-Bench:
// - a call `x.tool('name', 'description', {zod shape}, handler)` (McpServer.tool), the name
//   and description possibly read from a tool object (`t.name`, `this.tool.description`);
// - an object literal or a class with `name` and `description` (strings) and a schema
//   (`inputSchema`, `schema`, `parameters`): a JSON Schema literal or a zod object.
// A parameter's description comes from `description:` (JSON Schema) or `.describe('…')` (zod).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const dir = process.argv[2];
if (!dir) throw new Error('usage: ts-tools.mjs SERVER_DIR');
const files = readdirSync(dir, { recursive: true })
  .map(String)
  .filter((f) => /\.(ts|js|mjs)$/.test(f) && !/(^|\/)(node_modules|dist|build|test|tests)\//.test(f))
  .filter((f) => !/\.(test|spec|d)\.[mc]?[jt]s$/.test(f) && !/test/.test(f.split('/').pop() ?? ''));

/** @type {Map<string, any>} */
const tools = new Map();
/** Every `const NAME = <init>` and class member `NAME = <init>` across files, for references. */
/** @type {Map<string, ts.Expression>} */
const declared = new Map();
/** The same, per file: a name declared in the file of a reference wins (each tool file may have its own NAME). */
/** @type {Map<ts.SourceFile, Map<string, ts.Expression>>} */
const declaredIn = new Map();
/** @type {ts.SourceFile[]} */
const sources = files.map((f) =>
  ts.createSourceFile(f, readFileSync(join(dir, f), 'utf8'), ts.ScriptTarget.Latest, true),
);
for (const sf of sources)
  visit(sf, (node) => {
    if ((ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node)) && node.initializer)
      if (ts.isIdentifier(node.name)) {
        declared.set(node.name.text, node.initializer);
        if (!declaredIn.has(sf)) declaredIn.set(sf, new Map());
        declaredIn.get(sf)?.set(node.name.text, node.initializer);
      }
  });

/** Text of a string-ish expression: literals, templates (their text parts), concatenations, references. */
function textOf(/** @type {ts.Node | undefined} */ node, depth = 0) {
  if (!node || depth > 5) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return node.head.text + node.templateSpans.map((s) => ' ' + s.literal.text).join('');
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const l = textOf(node.left, depth + 1);
    const r = textOf(node.right, depth + 1);
    return l === undefined && r === undefined ? undefined : (l ?? '') + (r ?? '');
  }
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) return textOf(node.expression, depth + 1);
  const ref = referenced(node);
  return ref ? textOf(ref, depth + 1) : undefined;
}

/** What `x`, `a.b` or `this.a.b` refers to: the member b of the object or class a, else the const b. */
function referenced(/** @type {ts.Node} */ node) {
  if (ts.isIdentifier(node)) return declaredIn.get(node.getSourceFile())?.get(node.text) ?? declared.get(node.text);
  if (ts.isPropertyAccessExpression(node)) {
    const owner = ts.isIdentifier(node.expression) || ts.isPropertyAccessExpression(node.expression)
      ? referenced(node.expression) : undefined;
    if (owner && ts.isObjectLiteralExpression(owner)) return member(owner, node.name.text);
    if (owner && ts.isNewExpression(owner) && ts.isIdentifier(owner.expression)) {
      const cls = classes.get(owner.expression.text);
      if (cls) return member(cls, node.name.text);
    }
    return declared.get(node.name.text);
  }
  return undefined;
}

/** @type {Map<string, ts.ClassDeclaration>} */
const classes = new Map();
for (const sf of sources)
  visit(sf, (node) => {
    if (ts.isClassDeclaration(node) && node.name) classes.set(node.name.text, node);
  });

/** A property's initializer in an object literal or class (its name in any case: NAME, name). */
function member(/** @type {ts.ObjectLiteralExpression | ts.ClassDeclaration} */ owner, /** @type {string} */ name) {
  for (const m of ts.isObjectLiteralExpression(owner) ? owner.properties : owner.members) {
    if (!m.name || !(ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))) continue;
    if (m.name.text.toLowerCase() !== name.toLowerCase()) continue;
    if (ts.isPropertyAssignment(m) || ts.isPropertyDeclaration(m)) return m.initializer;
    // { NAME, DESCRIPTION } refers to the file's own constants.
    if (ts.isShorthandPropertyAssignment(m)) return referenced(m.name);
  }
  return undefined;
}

/** The parameters of a schema expression: JSON Schema, z.object(...), a zod shape, or a reference to one. */
function paramsOf(/** @type {ts.Node | undefined} */ node, depth = 0) {
  /** @type {Record<string, {type?: string, description?: string}>} */
  const props = {};
  if (!node || depth > 5) return props;
  if (ts.isAsExpression(node) || ts.isParenthesizedExpression(node)) return paramsOf(node.expression, depth + 1);
  if (ts.isPropertyAccessExpression(node) && node.name.text === 'shape') return paramsOf(node.expression, depth + 1);
  if (ts.isCallExpression(node)) {
    // z.object({...}) possibly followed by .describe(), .strict(), …
    let call = node;
    while (ts.isPropertyAccessExpression(call.expression) && call.expression.name.text !== 'object' &&
      ts.isCallExpression(call.expression.expression)) call = call.expression.expression;
    return paramsOf(call.arguments[0], depth + 1);
  }
  if (ts.isObjectLiteralExpression(node)) {
    const properties = member(node, 'properties');
    if (properties && ts.isObjectLiteralExpression(properties)) {
      for (const p of properties.properties) {
        if (!ts.isPropertyAssignment(p) || !p.name) continue;
        const key = ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : p.name.getText();
        const spec = ts.isObjectLiteralExpression(p.initializer) ? p.initializer : undefined;
        props[key] = {
          ...(spec && textOf(member(spec, 'type')) && { type: textOf(member(spec, 'type')) }),
          ...(spec && textOf(member(spec, 'description')) && { description: textOf(member(spec, 'description')) }),
        };
      }
      return props;
    }
    // A zod shape: { key: z.string().describe('…'), … }
    for (const p of node.properties) {
      if (!ts.isPropertyAssignment(p) || !p.name) continue;
      const key = ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : p.name.getText();
      const chain = p.initializer.getText();
      const described = /\.describe\(\s*(['"`])([\s\S]*?)\1\s*\)/.exec(chain);
      const type = /z\.(string|number|boolean|array|object|enum)\(/.exec(chain)?.[1];
      props[key] = {
        ...(type && { type: type === 'enum' ? 'string' : type }),
        ...(described && { description: described[2] }),
      };
    }
    return props;
  }
  const ref = referenced(node);
  return ref ? paramsOf(ref, depth + 1) : props;
}

function add(/** @type {string | undefined} */ name, /** @type {string | undefined} */ description, /** @type {ts.Node | undefined} */ schema) {
  if (!name || !/^[A-Za-z][\w.-]*$/.test(name) || tools.has(name)) return;
  tools.set(name, { name, description: description ?? '', inputSchema: { type: 'object', properties: paramsOf(schema) } });
}

const SCHEMA_KEYS = ['inputSchema', 'schema', 'parameters', 'input_schema'];
for (const sf of sources)
  visit(sf, (node) => {
    // x.tool('name', 'description'?, shape?, handler) — McpServer's overloads.
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'tool' && node.arguments.length >= 2) {
      const [first, second, third] = node.arguments;
      const name = textOf(first);
      const description = textOf(second);
      add(name, description, description === undefined ? second : third);
      return;
    }
    // x.registerTool('name', { description, inputSchema }, handler)
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'registerTool' && node.arguments.length >= 2) {
      const config = node.arguments[1];
      if (config && ts.isObjectLiteralExpression(config))
        add(textOf(node.arguments[0]), textOf(member(config, 'description')), member(config, 'inputSchema'));
      return;
    }
    // { name, description, inputSchema } in an object literal or a class.
    if (ts.isObjectLiteralExpression(node) || ts.isClassDeclaration(node)) {
      const schemaKey = SCHEMA_KEYS.find((k) => member(node, k) !== undefined);
      if (!schemaKey) return;
      add(textOf(member(node, 'name')), textOf(member(node, 'description')), member(node, schemaKey));
    }
  });

process.stdout.write(JSON.stringify([...tools.values()], null, 1) + '\n');

/** Calls fn on every node under root. */
function visit(/** @type {ts.Node} */ root, /** @type {(node: ts.Node) => void} */ fn) {
  fn(root);
  root.forEachChild((child) => visit(child, fn));
}
