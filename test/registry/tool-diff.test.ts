// Tool list content comparison: what a reload reports and when list_changed is due.
import t from 'tap';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { diffTools, sameTools, stableStringify, toolFingerprint } from '../../src/registry/tool-diff.js';

const tool = (name: string, description = 'd', properties: Record<string, object> = {}): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties },
});

t.test('diffTools finds added, removed and changed tools by content', async (t) => {
  const before = [tool('a'), tool('b'), tool('c', 'c', { x: { type: 'string' } })];
  const after = [tool('a'), tool('c', 'c', { x: { type: 'number' } }), tool('d')];
  t.same(diffTools(before, after), { added: ['d'], removed: ['b'], changed: ['c'] });
  t.same(diffTools(before, before), { added: [], removed: [], changed: [] });
  t.same(diffTools([tool('a', 'old')], [tool('a', 'new')]).changed, ['a']);
});

t.test('key order does not make a change; annotations and _meta do', async (t) => {
  const x: Tool = { name: 'x', inputSchema: { type: 'object', properties: { a: { type: 'string', description: 'A' } } } };
  const y: Tool = { inputSchema: { properties: { a: { description: 'A', type: 'string' } }, type: 'object' }, name: 'x' };
  t.equal(toolFingerprint(x), toolFingerprint(y));
  t.ok(sameTools([x], [y]));
  t.notOk(sameTools([x], [{ ...x, annotations: { readOnlyHint: true } }]));
  t.notOk(sameTools([x], [{ ...x, _meta: { v: 2 } }]));
  t.notOk(sameTools([x], [x, y]), 'a different count differs');
});

t.test('stableStringify sorts keys and drops undefined like JSON does', async (t) => {
  t.equal(stableStringify({ b: 1, a: [2, { d: undefined, c: null }] }), '{"a":[2,{"c":null}],"b":1}');
});
