// Editing another client's JSON(C) file as a person would: comments, order, indentation and
// the members around an edit stay as they were.
import t from 'tap';
import { parseJsonc, removeMember, setMember } from '../../src/clients/jsonc-edit.js';

const FILE = `{
  // my servers
  "mcpServers": {
    "a": { "command": "x" }, // keep this
    "b": { "command": "y" }
  },
  "other": 1
}
`;

t.test("a member is added after the last one, with its comma, in the file's indentation", async (t) => {
  const out = setMember(FILE, ['mcpServers'], 'mcpmux', { command: 'node', args: ['m.js'] });
  t.equal(
    out,
    `{
  // my servers
  "mcpServers": {
    "a": { "command": "x" }, // keep this
    "b": { "command": "y" },
    "mcpmux": {
      "command": "node",
      "args": [
        "m.js"
      ]
    }
  },
  "other": 1
}
`,
  );
  t.same(parseJsonc(out, 'f'), {
    mcpServers: { a: { command: 'x' }, b: { command: 'y' }, mcpmux: { command: 'node', args: ['m.js'] } },
    other: 1,
  });
});

t.test('a member already there is replaced in place', async (t) => {
  const once = setMember(FILE, ['mcpServers'], 'a', { command: 'z' });
  t.match(
    once,
    /\/\/ my servers\n  "mcpServers": \{\n    "a": \{\n      "command": "z"\n    \}, \/\/ keep this\n    "b"/,
  );
});

t.test('the objects on the way are made; an empty file becomes the object', async (t) => {
  t.same(parseJsonc(setMember('{\n  "x": 1\n}\n', ['servers'], 'mcpmux', { type: 'stdio' }), 'f'), {
    x: 1,
    servers: { mcpmux: { type: 'stdio' } },
  });
  t.equal(
    setMember('', ['mcp'], 'mcpmux', { enabled: true }),
    '{\n  "mcp": {\n    "mcpmux": {\n      "enabled": true\n    }\n  }\n}\n',
  );
  t.same(parseJsonc(setMember('{"mcpServers": {}}', ['mcpServers'], 'm', 1), 'f'), { mcpServers: { m: 1 } });
  t.same(parseJsonc(setMember('{"mcpServers": {"a": 1}}', ['mcpServers'], 'm', 2), 'f'), {
    mcpServers: { a: 1, m: 2 },
  });
  t.same(
    parseJsonc(setMember('{\n\t"mcpServers": {\n\t\t"a": 1,\n\t}\n}', ['mcpServers'], 'm', 2), 'f'),
    {
      mcpServers: { a: 1, m: 2 },
    },
    'a trailing comma and tabs',
  );
  t.throws(() => setMember('{"mcpServers": []}', ['mcpServers'], 'm', 1), /"mcpServers" is not an object/);
  t.throws(() => setMember('[1]', ['mcpServers'], 'm', 1), /not a JSON object/);
});

t.test('a member is removed with its line and its comment; the last one takes its comma along', async (t) => {
  const withoutA = removeMember(FILE, ['mcpServers'], 'a');
  t.equal(withoutA, FILE.replace('    "a": { "command": "x" }, // keep this\n', ''));
  const withoutB = removeMember(FILE, ['mcpServers'], 'b');
  t.equal(
    withoutB,
    FILE.replace('"x" }, // keep this\n    "b": { "command": "y" }\n', '"x" } // keep this\n'),
  );
  t.same(parseJsonc(withoutB, 'f'), { mcpServers: { a: { command: 'x' } }, other: 1 });
  t.match(withoutB, /"a": \{ "command": "x" \} \/\/ keep this\n  \},/, 'the comment on its line stays');
  t.equal(removeMember(FILE, ['mcpServers'], 'nosuch'), FILE);
  t.same(parseJsonc(removeMember('{"mcpServers": {"a": 1, "b": 2}}', ['mcpServers'], 'a'), 'f'), {
    mcpServers: { b: 2 },
  });
});

t.test('a file that is not JSON says where', async (t) => {
  t.throws(
    () => parseJsonc('{\n  "a": 1\n  "b": 2\n}', '/x/mcp.json'),
    /\/x\/mcp\.json is not valid JSON: CommaExpected at line 3/,
  );
});
