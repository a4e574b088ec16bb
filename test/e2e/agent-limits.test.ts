// The agent tool's run limits, through the built mcpmux with real servers: --agent-timeout
// stops a run and its tool call in flight; --agent-max-tool-calls ends a run that asks for
// more calls, and the calls it did not make are answered so that a resume can go on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startMcpmux, text } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { answer, lastBlocks, scriptedModel, toolUse } from '../helpers/scripted-model.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-agent-limits-'));
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});
const config = join(scratch, 'config.json');
writeFileSync(
  config,
  JSON.stringify({ mcpServers: { echo: fixture('echo-v1'), slow: fixture('slow-call') } }),
);
const NO_KEY = { ANTHROPIC_API_KEY: '' };

t.test('--agent-timeout stops a run and its tool call in flight', async (t) => {
  const model = scriptedModel([() => toolUse('slow__wait', { steps: 100, interval_ms: 100 })]);
  const s = await startMcpmux(
    ['--config', config, '--agent-dir', join(scratch, 'a'), '--agent-timeout', '1.5'],
    model,
    NO_KEY,
  );
  const result = await s.call('agent', { prompt: 'wait forever' });
  t.ok(result.isError);
  const outcome = result.structuredContent as any;
  t.equal(outcome.status, 'failed');
  t.match(outcome.error, /the run passed --agent-timeout \(1\.5 s\) and was stopped/);
  t.same(outcome.toolCalls, ['slow__wait steps=100']);
  t.ok(
    await waitFor(async () => text(await s.call('slow__last_wait')) === 'cancelled', 10_000),
    'the tool call in flight was cancelled',
  );
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
});

t.test(
  '--agent-max-tool-calls ends a run; the calls not made are answered, and a resume goes on',
  async (t) => {
    const model = scriptedModel([
      () => ({
        model: 'scripted',
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'echo__echo', input: { message: 'one' } },
          { type: 'tool_use', id: 'b', name: 'echo__echo', input: { message: 'two' } },
        ],
      }),
      (params) => {
        t.same(
          params.messages.map((m) => m.role),
          ['user', 'assistant', 'user', 'assistant', 'user'],
          'the stopped run gets its turn back before the next prompt',
        );
        const results = params.messages[2]!.content as any[];
        t.same(
          results.map((r) => [r.toolUseId, r.isError ?? false]),
          [
            ['a', false],
            ['b', true],
          ],
          'the second call was answered as not run',
        );
        t.match(JSON.stringify(results[1].content), /not run: the run reached its limit of tool calls/);
        return answer('stopped at one');
      },
    ]);
    const s = await startMcpmux(
      ['--config', config, '--agent-dir', join(scratch, 'b'), '--agent-max-tool-calls', '1'],
      model,
      NO_KEY,
    );
    const result = await s.call('agent', { prompt: 'echo twice' });
    t.ok(result.isError);
    const outcome = result.structuredContent as any;
    t.match(outcome.error, /reached the limit of 1 tool calls \(--agent-max-tool-calls\)/);
    t.equal(outcome.totalToolUseCount, 1);
    const resumed = await s.json('agent', { prompt: 'just say where you stopped', resume: outcome.agentId });
    t.same(resumed.content, [{ type: 'text', text: 'stopped at one' }]);
    t.equal(lastBlocks(model.seen[1]!)[0].type, 'text', 'the resume prompt is the last message');
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test('past 64 tools the sub-agent searches for them; what it finds joins its tools', async (t) => {
  const { npmServerPath } = await import('../helpers/fixtures.js');
  const big = join(scratch, 'big.json');
  writeFileSync(
    big,
    JSON.stringify({
      mcpServers: {
        many: { ...fixture('many-tools'), env: { TOOL_COUNT: '100' } },
        memory: {
          command: process.execPath,
          args: [npmServerPath('@modelcontextprotocol/server-memory')],
          env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
        },
      },
    }),
  );
  const model = scriptedModel([
    (params) => {
      t.same(
        params.tools!.map((x) => x.name),
        ['search_tools'],
        '109 tools: the model gets search_tools, not all of them',
      );
      return toolUse('search_tools', { query: 'create entities in the knowledge graph' });
    },
    (params) => {
      const found = JSON.stringify(lastBlocks(params)[0].content);
      t.match(found, /memory__create_entities/, 'the search names the tool');
      t.ok(
        params.tools!.some((x) => x.name === 'memory__create_entities'),
        'and it is offered from now on',
      );
      t.ok(params.tools!.length <= 1 + 8, 'only what was found');
      return toolUse('memory__create_entities', {
        entities: [{ name: 'Grace', entityType: 'person', observations: ['found by search'] }],
      });
    },
    (params) => {
      t.notOk(lastBlocks(params)[0].isError);
      return answer('Grace is remembered');
    },
    (params) => {
      t.equal(params.tools!.length, 9, 'narrowed to one server, its 9 tools come directly');
      t.notOk(params.tools!.some((x) => x.name === 'search_tools'));
      return answer('memory only');
    },
  ]);
  const s = await startMcpmux(['--config', big, '--agent-dir', join(scratch, 'c')], model, NO_KEY);
  const result = await s.json('agent', { prompt: 'remember Grace' });
  t.same(result.content, [{ type: 'text', text: 'Grace is remembered' }]);
  const narrowed = await s.json('agent', { prompt: 'list people', servers: ['memory'] });
  t.same(narrowed.content, [{ type: 'text', text: 'memory only' }]);
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
});
