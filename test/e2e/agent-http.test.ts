// The agent tool over streamable HTTP: a 2025 client's foreground run samples it on the
// request's own stream; a background run, whose request has ended, samples it on the
// session's stream; output reads it. Real servers behind the built mcpmux.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses } from '../helpers/processes.js';
import { answer, lastBlocks, scriptedModel, toolUse } from '../helpers/scripted-model.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-agent-http-'));
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

t.test('over HTTP: a foreground and a background run sample the client that started them', async (t) => {
  const config = join(scratch, 'config.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { echo: fixture('echo-v1') } }));
  const served = await startMcpmuxHttp(['--config', config, '--agent-dir', join(scratch, 'agents')], {
    env: { ANTHROPIC_API_KEY: '' },
  });
  const model = scriptedModel([
    () => toolUse('echo__add', { a: 2, b: 3 }),
    (params) => answer(`the sum is ${lastBlocks(params)[0].content[0].text}`),
    () => toolUse('echo__echo', { message: 'later' }),
    (params) => answer(`background said ${lastBlocks(params)[0].content[0].text}`),
  ]);
  const client = new Client({ name: 'http-sampler', version: '1.0.0' }, { capabilities: model.capabilities });
  model.setup(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  const json = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as any;
    t.notOk(result.isError, `${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent;
  };
  const foreground = await json('agent', { prompt: 'add 2 and 3' });
  t.same(foreground.content, [{ type: 'text', text: 'the sum is 5' }]);
  const launched = await json('agent', { prompt: 'echo later', run_in_background: true });
  const done = await json('output', { agentIds: [launched.agentId], wait_up_to: 30 });
  t.equal(done.agents[0].status, 'completed', JSON.stringify(done.agents[0]));
  t.same(done.agents[0].content, [{ type: 'text', text: 'background said later' }]);
  t.equal(model.seen.length, 4);
  await client.close();
  await served.stop();
  await assertNoLeaks(t);
});

t.test('over HTTP, a 2026-07-28 client (no session) runs agent through input_required rounds', async (t) => {
  const config = join(scratch, 'config-modern.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { echo: fixture('echo-v1') } }));
  const served = await startMcpmuxHttp(['--config', config, '--agent-dir', join(scratch, 'agents-modern')], {
    env: { ANTHROPIC_API_KEY: '' },
  });
  const model = scriptedModel([
    () => toolUse('echo__echo', { message: 'stateless' }),
    (params) => answer(`echo said ${lastBlocks(params)[0].content[0].text}`),
  ]);
  const client = new Client(
    { name: 'modern-sampler', version: '1.0.0' },
    { capabilities: model.capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  model.setup(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  t.ok(
    (await client.listTools()).tools.some((x) => x.name === 'agent'),
    'listed: the client declares sampling',
  );
  const result = (await client.callTool({ name: 'agent', arguments: { prompt: 'echo stateless' } })) as any;
  t.notOk(result.isError, JSON.stringify(result.content));
  t.same(result.structuredContent.content, [{ type: 'text', text: 'echo said stateless' }]);
  t.equal(model.seen.length, 2, 'one round per model turn, each on a request of its own');
  await client.close();
  await served.stop();
  await assertNoLeaks(t);
});
