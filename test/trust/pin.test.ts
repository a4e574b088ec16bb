// Pins: one hash for what an item shows the model, whatever order its fields come in; another
// for any change of its text or schema; none of what the model never reads.
import t from 'tap';
import { canonicalJson, pinOf } from '../../src/trust/pin.js';

const tool = {
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  annotations: { readOnlyHint: true },
};

t.test('the same item pins alike in any key order; any shown change pins otherwise', async (t) => {
  const reordered = {
    annotations: { readOnlyHint: true },
    inputSchema: {
      required: ['a', 'b'],
      properties: { b: { type: 'number' }, a: { type: 'number' } },
      type: 'object',
    },
    description: 'Adds two numbers.',
    name: 'add',
  };
  t.equal(pinOf(reordered), pinOf(tool));
  t.match(pinOf(tool), /^sha256:[0-9a-f]{64}$/);
  const changed = [
    { ...tool, description: 'Adds two numbers. ' },
    { ...tool, title: 'Add' },
    { ...tool, inputSchema: { ...tool.inputSchema, required: ['b', 'a'] } },
    {
      ...tool,
      inputSchema: { ...tool.inputSchema, properties: { a: { type: 'number', description: 'x' } } },
    },
    { ...tool, annotations: { readOnlyHint: false } },
    { ...tool, outputSchema: { type: 'object' } },
  ];
  for (const item of changed) t.not(pinOf(item), pinOf(tool), JSON.stringify(item).slice(0, 80));
  t.equal(
    pinOf({ ...tool, _meta: { x: 1 }, icons: [{ src: 'a' }] }),
    pinOf(tool),
    'what the model never reads',
  );
});

t.test('canonical JSON', async (t) => {
  t.equal(
    canonicalJson({ b: 1, a: [3, { d: null, c: 'x' }], u: undefined }),
    '{"a":[3,{"c":"x","d":null}],"b":1}',
  );
  t.equal(canonicalJson('é"'), JSON.stringify('é"'));
});
