// Writing one entry into a config file: the rest of the file is kept, the file's own
// format is used, and nothing is left half-written or lying around.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
