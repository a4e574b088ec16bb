// --expose code end to end with a real SDK client and real servers: discovery of typed
// modules, programs that chain server-memory and server-everything, tool errors, escape
// attempts, a server removed mid-program, and wrappers that follow a reload. Limits and the
// queue: code-mode-limits.test.ts.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { ExecuteResult } from '../../src/code/code-mode.js';
import { fixture, npmServerPath } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { run } from '../helpers/programs.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-code-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

const memory = (file: string) => ({
  name: 'memory',
  command: process.execPath,
  args: [npmServerPath('@modelcontextprotocol/server-memory')],
  env: { MEMORY_FILE_PATH: join(scratch, file) },
});
const everything = {
  name: 'everything',
  command: process.execPath,
  args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
};

type Outcome = ExecuteResult;

t.test('discovery: only the code-mode surface is listed; modules are typed and searchable', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'code' } });
  await h.callJson('add_server', memory('discovery.jsonl'));
  await h.callJson('add_server', everything);
  t.same(await h.toolNames(), [
    'add_server',
    'remove_server',
    'reload_server',
    'list_servers',
    'search_tools',
    'call_tool',
    'read_result',
    'list_modules',
    'read_module',
    'execute_code',
  ]);
  const { modules } = await h.callJson('list_modules');
  t.same(
    modules.map((m: { server: string }) => m.server),
    ['memory', 'everything'],
  );
  t.ok(
    modules.every((m: { tools: number; summary: string }) => m.tools > 5 && m.summary.length > 0),
    'each with a count and a summary',
  );

  const declarations = textOf(await h.call('read_module', { server: 'memory' }));
  t.match(declarations, /declare const tools: Tools;/, 'the prelude');
  t.match(
    declarations,
    /interface MemoryCreateEntitiesArgs \{\n\s+entities: \{/,
    'argument types from the input schema',
  );
  t.match(
    declarations,
    /\/\*\*\n\s+\* Create multiple new entities in the knowledge graph\n\s+\*\/\n\s+create_entities\(args: MemoryCreateEntitiesArgs\): Promise<MemoryCreateEntitiesResult>;/,
    'the description as a doc comment, the output schema as the result',
  );
  t.match(declarations, /interface Tools \{\n\s+memory: MemoryTools;\n\}/);
  t.match(
    textOf(await h.call('read_module', { server: 'everything' })),
    /"get-sum"\(args: EverythingGetSumArgs\): Promise<unknown>;/,
    'a name that is no identifier is quoted',
  );
  t.match(
    textOf(await h.call('read_module', { server: 'nope' })),
    /no running server named 'nope'; running: memory, everything/,
  );
  const two = textOf(
    await h.call('read_module', { server: 'memory', tools: ['read_graph', 'search_nodes'] }),
  );
  t.match(two, /Server 'memory': 2 of 9 tools/, 'only the tools asked for');
  t.match(two, /read_graph\(/);
  t.notMatch(two, /create_entities/);
  t.match(
    textOf(await h.call('read_module', { server: 'memory', tools: ['fly'] })),
    /server 'memory' has no tool 'fly'; it has create_entities, /,
  );

  const found = await h.callJson('search_tools', { query: 'add two numbers', limit: 1 });
  t.equal(found.tools[0].name, 'everything__get-sum');
  t.match(
    found.tools[0].declaration,
    /tools\.everything\["get-sum"\]\(args: EverythingGetSumArgs\): Promise<unknown>/,
    'search hits show how a program calls them',
  );
  t.notOk(found.tools[0].inputSchema, 'instead of the JSON schema');
  await h.close();
});

t.test('a program chains two servers, filters in code and returns only the answer', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'code' } });
  await h.callJson('add_server', memory('chain.jsonl'));
  await h.callJson('add_server', everything);
  const code = `
    interface Entity { name: string; entityType: string; observations: string[] }
    const people = ['Ada', 'Grace', 'Linus', 'Barbara'];
    await tools.memory.create_entities({ entities: people.map((name, i) => ({ name, entityType: i % 2 ? 'engineer' : 'mathematician', observations: ['born ' + (1815 + i * 50)] })) });
    const graph = await tools.memory.read_graph({});
    const mathematicians = (graph.entities as Entity[]).filter((e) => e.entityType === 'mathematician').map((e) => e.name);
    const sum = await tools.everything['get-sum']({ a: mathematicians.length, b: 40 });
    console.log('found', mathematicians.length, { of: graph.entities.length });
    return { mathematicians, sum };`;
  const out = await run(h, code);
  t.equal(out.ok, true, JSON.stringify(out.error));
  t.same(out.return_value, { mathematicians: ['Ada', 'Linus'], sum: 'The sum of 2 and 40 is 42.' });
  t.same(out.logs, ['log: found 2 {"of":4}']);
  t.same(
    out.tool_calls.map((c) => [c.name, c.ok]),
    [
      ['memory.create_entities', true],
      ['memory.read_graph', true],
      ['everything.get-sum', true],
    ],
  );
  t.ok(out.duration_ms >= 0);
  await h.close();
});

t.test(
  "tool errors are catchable with the server's message; arguments are checked against the schema first",
  async (t) => {
    const h = await startHarness(t, { mux: { expose: 'code' } });
    await h.callJson('add_server', memory('errors.jsonl'));
    await h.callJson('add_server', { name: 'crashy', ...fixture('crash-on-call') });
    const caught = await run(
      h,
      `
    try { await tools.memory.open_nodes({ names: 42 }); } catch (e) { return [e.name, e.message, e.tool]; }`,
    );
    t.equal(caught.return_value && (caught.return_value as string[])[0], 'ToolError');
    t.match((caught.return_value as string[])[1], /^invalid arguments for memory\.open_nodes: .*names/);
    t.equal((caught.return_value as string[])[2], 'memory.open_nodes');
    t.same(
      caught.tool_calls.map((c) => c.ok),
      [false],
    );

    const settled = await run(
      h,
      `return await Promise.allSettled([tools.memory.open_nodes({ names: 42 }), Promise.reject(new RangeError('r'))]);`,
    );
    t.match(
      settled.return_value,
      [
        {
          status: 'rejected',
          reason: {
            name: 'ToolError',
            message: /^invalid arguments for memory\.open_nodes/,
            tool: 'memory.open_nodes',
          },
        },
        { status: 'rejected', reason: { name: 'RangeError', message: 'r' } },
      ],
      'an error in the returned value keeps its name and message',
    );

    const uncaught = await run(h, `await tools.memory.open_nodes({ names: 42 }); return 'not reached';`);
    t.equal(uncaught.ok, false);
    t.equal(uncaught.error?.name, 'ToolError');

    const unknown = await run(h, `return await tools.memory.fly({})`);
    t.match(
      unknown.error?.message,
      `server 'memory' has no tool 'fly'; read_module {"server": "memory"} lists its tools`,
    );
    const elsewhere = await run(h, `return await tools.crashy.crash({})`, { servers: ['memory'] });
    t.match(
      elsewhere.error?.message,
      "no server 'crashy' in this run; servers: memory",
      'the allowlist hides other servers',
    );
    t.match(
      textOf(await h.call('execute_code', { code: 'return 1', servers: ['ghost'] })),
      /no running server named 'ghost'/,
    );
    await h.close();
  },
);

t.test('escape attempts fail with clear errors and leave mcpmux healthy', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'code' } });
  const attempts: [string, RegExp][] = [
    ['return process.env', /ReferenceError: 'process' is not defined/],
    ["return require('fs').readFileSync('/etc/passwd', 'utf8')", /ReferenceError: 'require' is not defined/],
    [
      "return globalThis.constructor.constructor('return process')().env",
      /ReferenceError: 'process' is not defined/,
    ],
    ["return await import('node:fs')", /could not load module 'node:fs'/],
    ["return await fetch('http://127.0.0.1:9')", /ReferenceError: 'fetch' is not defined/],
    ['setTimeout(() => {}, 10); return 1', /ReferenceError: 'setTimeout' is not defined/],
    ["import fs from 'node:fs'; return fs", /a program cannot import or export modules/],
  ];
  for (const [code, expected] of attempts) {
    const result = await h.call('execute_code', { code });
    t.ok(result.isError, code);
    const out = JSON.parse(
      textOf(result).startsWith('{')
        ? textOf(result)
        : JSON.stringify({ error: { name: 'Error', message: textOf(result) } }),
    ) as Outcome;
    t.match(`${out.error?.name}: ${out.error?.message}`, expected, code);
  }
  const after = await run(
    h,
    'return [typeof globalThis.tools, Object.keys(globalThis).includes("__mcpmux_call")]',
  );
  t.same(after.return_value, ['object', false], 'still answering; the host functions are hidden');
  await h.close();
});

t.test('a server removed while a program calls it gives a clear error', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'code' } });
  await h.callJson('add_server', { name: 'slow', ...fixture('slow-call') });
  const pending = run(
    h,
    `
    try { await tools.slow.wait({ steps: 50, interval_ms: 100 }); return 'finished'; }
    catch (e) { return e.name + ': ' + e.message; }`,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  await h.callJson('remove_server', { name: 'slow' });
  const out = await pending;
  t.match(out.return_value, /^ToolError: .*server 'slow'.*removed/);
  const later = await run(h, 'return await tools.slow.wait({ steps: 1, interval_ms: 1 })');
  t.match(later.error?.message, /no server 'slow' in this run; servers: \(none\)/);
  await h.close();
});

t.test('wrappers change when a server is reloaded with a new tool', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'code' } });
  const project = join(scratch, 'dev');
  mkdirSync(join(project, 'build'), { recursive: true });
  writeFileSync(join(project, 'build/tools.json'), JSON.stringify(['alpha']));
  await h.callJson('add_server', { name: 'dev', ...fixture('tools-from-file'), cwd: project });
  const before = textOf(await h.call('read_module', { server: 'dev' }));
  t.match(before, /alpha\(args\?: DevAlphaArgs\): Promise<unknown>;/);
  t.notMatch(before, /beta/);
  writeFileSync(join(project, 'build/tools.json'), JSON.stringify(['alpha', 'beta']));
  await h.callJson('reload_server', { name: 'dev' });
  t.match(
    textOf(await h.call('read_module', { server: 'dev' })),
    /beta\(args\?: DevBetaArgs\): Promise<unknown>;/,
  );
  t.same((await run(h, 'return await tools.dev.beta()')).return_value, 'beta');
  await h.close();
});

t.test('a large answer is cut and kept for read_result like any big result', async (t) => {
  const h = await startHarness(t, { mux: { expose: 'code', maxResultBytes: 4096 } });
  const result = await h.call('execute_code', { code: "return 'x'.repeat(50_000)" });
  t.match(textOf(result), /The whole result is kept as handle "(r-[0-9a-f]+)"/);
  await h.close();
});
