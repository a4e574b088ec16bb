// Typed declarations of a server's tools, made from schemas that servers write in every way.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { Tool } from '@modelcontextprotocol/server';
import { ModuleDeclarations } from '../../src/code/module-declarations.js';

const tool = (name: string, inputSchema: Record<string, unknown>): Tool =>
  ({ name, description: `The ${name} tool`, inputSchema: { type: 'object', ...inputSchema } }) as Tool;

t.test('a schema that cannot become a type is an open object that says why, beside the others', async (t) => {
  let fetched = 0;
  const server = createServer((_req, res) => {
    fetched++;
    res.setHeader('content-type', 'application/json').end('{"type": "string"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const schemaUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/schema.json`;
  const declarations = new ModuleDeclarations();
  const text = await declarations.module('srv', [
    tool('plain', { properties: { path: { type: 'string' } }, required: ['path'] }),
    // Outside the schema: never followed (no file is read, nothing is fetched); the type says so.
    tool('remote', { properties: { spec: { $ref: schemaUrl } } }),
    tool('local_file', { properties: { spec: { $ref: '/etc/hostname' } } }),
    tool('dangling', { properties: { spec: { $ref: '#/$defs/Missing' } } }),
  ]);
  t.match(text, /interface SrvPlainArgs \{\n\s+path: string;\n\}/, 'a plain schema is typed');
  for (const name of ['SrvRemoteArgs', 'SrvLocalFileArgs', 'SrvDanglingArgs']) {
    t.match(
      text,
      new RegExp(
        `// The schema of ${name} could not be turned into a type \\(.+\\)\\.\\ntype ${name} = Record<string, unknown>;`,
      ),
      `${name}: an open object, with the reason`,
    );
  }
  t.match(text, /remote\(args\?: SrvRemoteArgs\): Promise<unknown>;/, 'and its tool is still declared');
  t.equal(fetched, 0, 'the schema named by URL was not fetched');
});

t.test('a description cannot end the comment it is put in', async (t) => {
  const declarations = new ModuleDeclarations();
  const text = await declarations.module('srv', [
    { ...tool('sly', {}), description: 'Ends here */ declare const leaked: 1; /*' } as Tool,
  ]);
  t.notMatch(text, /\*\/ declare const leaked/, 'the closing mark is broken up');
  t.match(text, /\* \/ declare const leaked/);
});
