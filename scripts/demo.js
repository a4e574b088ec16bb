#!/usr/bin/env node
// @ts-check
// A short scripted session, as an agent would drive mcpmux: start the built mcpmux, add
// a real MCP server from npm at run time, call its tools, kill it from outside and watch
// the crash be reported, bring it back with reload_server, remove it, and check that no
// process is left. Run with `npm run demo` (after `npm ci`).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const memoryServer = join(
  dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
  'dist/index.js',
);
const out = (/** @type {string} */ line) => process.stdout.write(line + '\n');
const alive = (/** @type {number} */ pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const client = new Client({ name: 'mcpmux-demo', version: '1.0.0' });
let listChanged = 0;
client.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(root, 'dist/main.js'), '--log-level', 'warn'],
  stderr: 'inherit',
});
await client.connect(transport);
out(`connected to ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}`);
out(`tools before: ${(await client.listTools()).tools.map((t) => t.name).join(', ')}`);

/** @param {string} name @param {Record<string, unknown>} args */
async function call(name, args = {}) {
  const started = Date.now();
  const result = /** @type {any} */ (await client.callTool({ name, arguments: args }));
  const ms = Date.now() - started;
  if (result.isError) throw new Error(`${name} failed: ${result.content[0].text}`);
  return { result, ms, data: result.structuredContent };
}

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-demo-'));
const memoryEnv = { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') };
const added = await call('add_server', {
  name: 'memory',
  command: process.execPath,
  args: [memoryServer],
  env: memoryEnv,
});
out(
  `\nadd_server memory → ${added.data.server.status}, pid ${added.data.server.pid}, ${added.data.tools.length} tools in ${added.ms} ms`,
);
out(`  ${added.data.tools.map((/** @type {{name: string}} */ t) => t.name).join(', ')}`);
await new Promise((resolve) => setTimeout(resolve, 50));
out(`  notifications/tools/list_changed received: ${listChanged}`);

await call('memory__create_entities', {
  entities: [{ name: 'mcpmux', entityType: 'project', observations: ['multiplexes MCP servers'] }],
});
const graph = await call('memory__read_graph');
out(`\nmemory__read_graph → ${graph.result.content[0].text.replace(/\s+/g, ' ').slice(0, 120)}`);

process.kill(added.data.server.pid, 'SIGKILL');
out(`\nkilled pid ${added.data.server.pid} from outside`);
let status;
for (let i = 0; i < 100; i++) {
  status = (await call('list_servers')).data.servers[0];
  if (status.status === 'crashed') break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
out(`list_servers → memory is ${status.status}: ${status.last_error}`);
const failed = /** @type {any} */ (await client.callTool({ name: 'memory__read_graph', arguments: {} }));
out(`memory__read_graph → ${failed.content[0].text}`);

const reloaded = await call('reload_server', { name: 'memory' });
out(
  `\nreload_server memory → ${reloaded.data.server.status}, new pid ${reloaded.data.server.pid}, changes ${JSON.stringify(reloaded.data.changes)} in ${reloaded.ms} ms`,
);

const removed = await call('remove_server', { name: 'memory' });
out(
  `\nremove_server memory → withdrew ${removed.data.tools_removed.length} tools; process ${reloaded.data.server.pid} alive: ${alive(reloaded.data.server.pid)}`,
);
out(`tools after: ${(await client.listTools()).tools.map((t) => t.name).join(', ')}`);

const mcpmuxPid = transport.pid;
await client.close();
for (let i = 0; i < 100 && mcpmuxPid && alive(mcpmuxPid); i++)
  await new Promise((resolve) => setTimeout(resolve, 50));
out(`\nclosed the session; mcpmux (pid ${mcpmuxPid}) alive: ${mcpmuxPid ? alive(mcpmuxPid) : false}`);
rmSync(scratch, { recursive: true, force: true });
