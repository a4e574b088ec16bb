// Writing one entry into a config file: the rest of the file is kept (its comments and layout
// too), the file's own format is used, and nothing is left half-written or lying around.
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ConfigWriter } from '../../src/config/config-writer.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-writer-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

t.test('adds, replaces and deletes one entry; other entries and fields stay', async (t) => {
  const path = join(scratch, 'mcp.json');
  writeFileSync(
    path,
    JSON.stringify({ theme: 'dark', mcpServers: { a: { command: 'a', autoApprove: ['x'] } } }),
  );
  chmodSync(path, 0o600);
  const writer = new ConfigWriter(path);
  await writer.write('b', { command: 'node', args: ['b.js'], env: { K: 'v' } });
  t.same(read(path), {
    theme: 'dark',
    mcpServers: {
      a: { command: 'a', autoApprove: ['x'] },
      b: { command: 'node', args: ['b.js'], env: { K: 'v' } },
    },
  });
  await Promise.all([
    writer.write('b', { command: 'node', args: ['b2.js'] }),
    writer.write('c', { url: 'http://127.0.0.1:1/mcp' }),
  ]);
  t.same(Object.keys(read(path).mcpServers), ['a', 'b', 'c'], 'concurrent writes are serialized, none lost');
  t.same(read(path).mcpServers.b, { command: 'node', args: ['b2.js'] });
  await writer.write('a', undefined);
  t.same(Object.keys(read(path).mcpServers), ['b', 'c']);
  t.equal(statSync(path).mode & 0o777, 0o600, 'the mode of the file is kept (it may hold secrets)');
  t.same(
    readdirSync(scratch).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary file is left',
  );
});

t.test("VS Code's servers format is written as servers", async (t) => {
  const path = join(scratch, 'vscode.json');
  writeFileSync(path, JSON.stringify({ servers: {} }));
  await new ConfigWriter(path).write('x', { command: 'x' });
  t.same(read(path), { servers: { x: { command: 'x' } } });
});

t.test('a file that is not JSON is not overwritten', async (t) => {
  const path = join(scratch, 'broken.json');
  writeFileSync(path, '{ oops');
  await t.rejects(new ConfigWriter(path).write('x', { command: 'x' }), {
    code: 'PERSIST_FAILED',
    message: /cannot update config file .*broken\.json/,
  });
  t.equal(readFileSync(path, 'utf8'), '{ oops');
});

t.test("a file with comments (VS Code's mcp.json) keeps them, and its layout", async (t) => {
  const path = join(scratch, 'commented.json');
  const before = [
    '\ufeff// servers for this workspace',
    '{',
    '\t"servers": {',
    '\t\t// the one I use most',
    '\t\t"memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },',
    '\t},',
    '\t"inputs": [], // none yet',
    '}',
    '',
  ].join('\r\n');
  writeFileSync(path, before);
  const writer = new ConfigWriter(path);
  await writer.write('echo', { command: 'node', args: ['echo.js'] });
  const added = readFileSync(path, 'utf8');
  t.match(added, /^\ufeff\/\/ servers for this workspace\r\n/, 'the byte-order mark and first comment stay');
  t.match(added, '\t\t// the one I use most\r\n', 'a comment inside servers stays');
  t.match(added, '"inputs": [], // none yet', 'a comment after a field stays');
  t.match(
    added,
    /\r\n\t\t"echo": \{\r\n\t\t\t"command": "node",/,
    'the new entry is indented like the file, with its line ends',
  );
  t.notMatch(added, /\n(?<!\r\n)/, 'no bare line end');
  await writer.write('memory', undefined);
  const removed = readFileSync(path, 'utf8');
  t.notMatch(removed, /server-memory/);
  t.match(removed, /"echo"/);
  t.match(removed, '// servers for this workspace');
});

t.test('a config file that is a link is written where it points, and stays a link', async (t) => {
  const real = join(scratch, 'dotfiles-mcp.json');
  const link = join(scratch, 'linked.json');
  writeFileSync(real, '{ "mcpServers": {} }\n');
  symlinkSync(real, link);
  await new ConfigWriter(link).write('x', { command: 'x' });
  t.ok(lstatSync(link).isSymbolicLink(), 'the link is not replaced by a file');
  t.same(read(real), { mcpServers: { x: { command: 'x' } } });
});
