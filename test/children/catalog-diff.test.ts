// Tool list content comparison: what a reload reports and when list_changed is due.
import t from 'tap';
import type { Tool } from '@modelcontextprotocol/server';
import {
  diffItems,
  diffTools,
  sameItems,
  stableStringify,
  fingerprint,
  changedKinds,
} from '../../src/children/catalog-diff.js';
import { EMPTY_CATALOG } from '../../src/protocol/capabilities.js';

const tool = (name: string, description = 'd', properties: Record<string, { type: string }> = {}): Tool => ({
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
  const x: Tool = {
    name: 'x',
    inputSchema: { type: 'object', properties: { a: { type: 'string', description: 'A' } } },
  };
  const y: Tool = {
    inputSchema: { properties: { a: { description: 'A', type: 'string' } }, type: 'object' },
    name: 'x',
  };
  t.equal(fingerprint(x), fingerprint(y));
  t.ok(sameItems([x], [y]));
  t.notOk(sameItems([x], [{ ...x, annotations: { readOnlyHint: true } }]));
  t.notOk(sameItems([x], [{ ...x, _meta: { v: 2 } }]));
  t.notOk(sameItems([x], [x, y]), 'a different count differs');
});

t.test('stableStringify sorts keys and drops undefined like JSON does', async (t) => {
  t.equal(stableStringify({ b: 1, a: [2, { d: undefined, c: null }] }), '{"a":[2,{"c":null}],"b":1}');
});

t.test(
  'resources are keyed by URI and templates by URI template; changedKinds names the lists that differ',
  async (t) => {
    const r = (uri: string, name = uri) => ({ uri, name });
    t.same(diffItems('resources', [r('a://1'), r('a://2')], [r('a://2', 'renamed'), r('a://3')]), {
      added: ['a://3'],
      removed: ['a://1'],
      changed: ['a://2'],
    });
    const tpl = { uriTemplate: 'a://{id}', name: 'by id' };
    t.same(diffItems('resourceTemplates', [], [tpl]).added, ['a://{id}']);
    t.same(changedKinds(EMPTY_CATALOG, { ...EMPTY_CATALOG, prompts: [{ name: 'p' }] }), ['prompts']);
    t.same(changedKinds(EMPTY_CATALOG, { ...EMPTY_CATALOG }), []);
  },
);
