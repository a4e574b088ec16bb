// The agent tool on the Anthropic API: the official SDK inside mcpmux talks to a small
// Messages API on 127.0.0.1 that plays a script of tool-use turns, and checks what the SDK
// sends (key, model, system, tools, tool results).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { DIST_MAIN, fixture } from '../helpers/fixtures.js';
import { startMcpmux, text } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, taggedEnv } from '../helpers/processes.js';
import { answer, scriptedModel } from '../helpers/scripted-model.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-anthropic-'));
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

type Body = { model: string; max_tokens: number; system: string; messages: any[]; tools?: any[] };
type Reply = { status?: number; body: unknown };

/** A Messages API that answers each request with the next reply of the script. */
async function messagesApi(script: ((body: Body, request: IncomingMessage) => Reply)[]) {
  const seen: Body[] = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw) as Body;
      seen.push(body);
      const step = script[seen.length - 1];
      const reply = step
        ? step(body, request)
        : { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'script ended' } } };
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url, seen };
}

const message = (
  content: unknown[],
  stop_reason: string,
  usage = { input_tokens: 10, output_tokens: 5 },
) => ({
  body: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason,
    stop_sequence: null,
    usage,
  },
});

const config = join(scratch, 'config.json');
writeFileSync(config, JSON.stringify({ mcpServers: { echo: fixture('echo-v1') } }));

t.test('with ANTHROPIC_API_KEY, a client that cannot sample runs the agent on the API', async (t) => {
  const api = await messagesApi([
    (body, request) => {
      // The SDK sends the key as x-api-key or (since 1.x) as a bearer token.
      const key = request.headers['x-api-key'] ?? request.headers.authorization?.replace(/^Bearer /, '');
      t.equal(key, 'test-key', 'the key from the environment');
      t.equal(request.url, '/v1/messages');
      t.equal(body.model, 'claude-other', "the caller's model hint is the model");
      t.match(body.system, /sub-agent/);
      t.same(body.messages, [{ role: 'user', content: [{ type: 'text', text: 'echo via the API' }] }]);
      const echo = body.tools!.find((x) => x.name === 'echo__echo');
      t.same(echo.input_schema.required, ['message'], 'tools go as input_schema');
      return message(
        [{ type: 'tool_use', id: 'toolu_a', name: 'echo__echo', input: { message: 'api' } }],
        'tool_use',
      );
    },
    (body) => {
      t.same(body.messages.at(-1), {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: [{ type: 'text', text: 'api' }] }],
      });
      return message([{ type: 'text', text: 'the API echoed api' }], 'end_turn', {
        input_tokens: 20,
        output_tokens: 7,
      });
    },
  ]);
  const s = await startMcpmux(
    ['--config', config, '--agent-dir', join(scratch, 'a1'), '--agent-base-url', api.url],
    undefined,
    {
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_MODEL: '',
    },
  );
  t.ok(
    (await s.client.listTools()).tools.some((x) => x.name === 'agent'),
    'agent is listed: a model is configured',
  );
  const result = await s.json('agent', { prompt: 'echo via the API', model: 'claude-other' });
  t.same(result.content, [{ type: 'text', text: 'the API echoed api' }]);
  t.same(result.usage, { inputTokens: 30, outputTokens: 12 }, 'usage adds up over the turns');
  t.equal(result.totalToolUseCount, 1);
  t.notMatch(s.stderr(), /test-key/, 'the key is never logged');
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
});

t.test(
  '--agent-provider anthropic is used even when the client samples; an API error fails the run',
  async (t) => {
    const api = await messagesApi([
      () => ({
        status: 400,
        body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } },
      }),
    ]);
    const client = scriptedModel([() => answer('sampling should not be asked')]);
    const s = await startMcpmux(
      [
        '--config',
        config,
        '--agent-dir',
        join(scratch, 'a2'),
        '--agent-provider',
        'anthropic',
        '--agent-base-url',
        api.url,
      ],
      client,
      { ANTHROPIC_API_KEY: 'test-key' },
    );
    const failed = await s.call('agent', { prompt: 'anything' });
    t.ok(failed.isError);
    t.match(text(failed), /"status": "failed"/);
    t.match(text(failed), /prompt is too long/);
    t.equal(client.seen.length, 0, 'the client was not sampled');
    t.equal(api.seen.length, 1, 'a 400 is not retried');
    t.equal(
      api.seen[0]!.model,
      'claude-sonnet-4-5',
      'the default model, when neither the caller nor --agent-model names one',
    );
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test('--agent-provider anthropic without a key is refused before anything starts', async (t) => {
  const run = promisify(execFile);
  const error = await run(process.execPath, [DIST_MAIN, '--agent-provider', 'anthropic'], {
    env: taggedEnv({ ANTHROPIC_API_KEY: '' }),
  }).catch((e: { code: number; stderr: string }) => e);
  t.equal((error as { code: number }).code, 2);
  t.match(
    (error as { stderr: string }).stderr,
    /--agent-provider anthropic needs the API key in the environment variable ANTHROPIC_API_KEY/,
  );
});
