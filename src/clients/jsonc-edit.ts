// Reading and changing a JSON (or JSONC: comments, trailing commas) config file of another
// client the way a person would edit it: one member added, replaced or removed, and every
// other byte (comments, order, indentation, the members around it) left as it was.
// jsonc-parser's own modify() reformats the neighbours of an edit and can drop a comment
// between them, so the edits are made here on its syntax tree.
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { ClientFileError } from './client-dialect.js';

/** The file's value; a file that is not JSON(C) is an error naming where. */
export function parseJsonc(text: string, path: string): unknown {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const line = text.slice(0, first.offset).split('\n').length;
    throw new ClientFileError(
      `${path} is not valid JSON: ${printParseErrorCode(first.error)} at line ${line}`,
    );
  }
  return root === undefined ? undefined : nodeValue(root);
}

/** The object at `at` of a parsed file (undefined when there is none). */
export function objectAt(json: unknown, at: readonly string[]): Record<string, unknown> | undefined {
  let node = json;
  for (const key of at) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'object' && node !== null && !Array.isArray(node)
    ? (node as Record<string, unknown>)
    : undefined;
}

/** `text` with member `key` of the object at `at` set to `value` (the objects on the way made). */
export function setMember(text: string, at: readonly string[], key: string, value: unknown): string {
  if (text.trim() === '') return JSON.stringify(nest(at, key, value), null, 2) + '\n';
  const root = treeOf(text);
  const unit = indentUnit(text);
  // The deepest object on the way that is there; what is missing below it is made with the member.
  let depth = at.length;
  while (depth > 0 && findNodeAtLocation(root, [...at.slice(0, depth)])?.type !== 'object') depth--;
  if (depth < at.length) {
    const missing = findNodeAtLocation(root, [...at.slice(0, depth + 1)]);
    if (missing !== undefined)
      throw new ClientFileError(`"${at.slice(0, depth + 1).join('.')}" is not an object in the file`);
    return setMember(text, at.slice(0, depth), at[depth]!, nest(at.slice(depth + 1), key, value));
  }
  const object = depth === 0 ? root : findNodeAtLocation(root, [...at])!;
  const members = object.children ?? [];
  const existing = members.find((member) => member.children?.[0]?.value === key);
  if (existing?.children?.[1]) {
    const valueNode = existing.children[1];
    const indent = lineIndent(text, existing.offset);
    return splice(text, valueNode.offset, valueNode.length, serialize(value, unit, indent));
  }
  const objectIndent = lineIndent(text, object.offset);
  const last = members.at(-1);
  if (!last) {
    const indent = objectIndent + unit;
    return splice(
      text,
      object.offset,
      object.length,
      `{\n${indent}${JSON.stringify(key)}: ${serialize(value, unit, indent)}\n${objectIndent}}`,
    );
  }
  const indent = lineIndent(text, last.offset);
  const lastEnd = last.offset + last.length;
  const closing = object.offset + object.length - 1;
  const comma = afterComma(text, lastEnd);
  const lineEnd = text.indexOf('\n', comma.end);
  const member = `${JSON.stringify(key)}: ${serialize(value, unit, indent)}`;
  // An object written on one line gets the member on that line too.
  if (lineEnd === -1 || lineEnd > closing) {
    return splice(
      text,
      comma.at ?? lastEnd,
      comma.at === undefined ? 0 : 1,
      `, ${member}${comma.at === undefined ? '' : ','}`,
    );
  }
  // After the last member's line (and its comment), with a comma after that member.
  const withLine = splice(text, lineEnd, 0, `\n${indent}${member}`);
  return comma.at === undefined ? splice(withLine, lastEnd, 0, ',') : withLine;
}

/** `text` without member `key` of the object at `at` (as it was when there is none). */
export function removeMember(text: string, at: readonly string[], key: string): string {
  if (text.trim() === '') return text;
  const root = treeOf(text);
  const object = at.length === 0 ? root : findNodeAtLocation(root, [...at]);
  const members = object?.type === 'object' ? (object.children ?? []) : [];
  const index = members.findIndex((member) => member.children?.[0]?.value === key);
  if (index === -1) return text;
  const member = members[index]!;
  const comma = afterComma(text, member.offset + member.length);
  let end = comma.end;
  let start = member.offset;
  while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
  const wholeLines =
    (start === 0 || text[start - 1] === '\n') && (end === text.length || /^\r?\n/.test(text.slice(end)));
  if (wholeLines) end += text.startsWith('\r\n', end) ? 2 : text[end] === '\n' ? 1 : 0;
  else start = member.offset;
  let out = splice(text, start, end - start, '');
  // The last member gone: the one before it is the last now, and loses its comma.
  if (comma.at === undefined && index > 0) {
    const previous = members[index - 1]!;
    const before = afterComma(out, previous.offset + previous.length);
    if (before.at !== undefined) out = splice(out, before.at, 1, '');
  }
  return out;
}

/** The object of `text`'s top; anything else cannot take members. */
function treeOf(text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (!root || errors.length > 0 || root.type !== 'object')
    throw new ClientFileError('the file is not a JSON object');
  return root;
}

/**
 * After a member's value: where its comma is (undefined when none follows), and where its line's
 * rest ends (past the comma and a comment on the same line, before the line break).
 */
function afterComma(text: string, from: number): { at: number | undefined; end: number } {
  let i = from;
  while (text[i] === ' ' || text[i] === '\t') i++;
  const at = text[i] === ',' ? i : undefined;
  if (at !== undefined) i++;
  const rest = /^[ \t]*(\/\/[^\n]*|\/\*[^\n]*?\*\/)?[ \t]*/.exec(text.slice(i))![0];
  // A comment goes with the member only if the line ends after it.
  const end = i + rest.length;
  return { at, end: end === text.length || text[end] === '\n' || text[end] === '\r' ? end : i };
}

function nest(at: readonly string[], key: string, value: unknown): unknown {
  return at.reduceRight<unknown>((inner, name) => ({ [name]: inner }), { [key]: value });
}

function serialize(value: unknown, unit: string, indent: string): string {
  return JSON.stringify(value, null, unit).replace(/\n/g, `\n${indent}`);
}

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** The file's indentation step: its first indented line's, else two spaces. */
function indentUnit(text: string): string {
  return /\n([ \t]+)["}\]]/.exec(text)?.[1] ?? '  ';
}

function splice(text: string, at: number, length: number, insert: string): string {
  return text.slice(0, at) + insert + text.slice(at + length);
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries(
        (node.children ?? []).map((member) => [
          member.children![0]!.value as string,
          member.children![1] ? nodeValue(member.children![1]) : undefined,
        ]),
      );
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}
