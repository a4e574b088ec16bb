// For process supervisors and orchestrators, through the built mcpmux over HTTP: GET /healthz
// and /readyz answer any Host without the token (every other path keeps the guard), /readyz is
// 503 until the configured servers have started; on SIGTERM a call in flight completes, a new
// request meanwhile gets 503 with Retry-After, and nothing is left running afterwards.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { INITIALIZE, post } from '../helpers/raw-http.js';
import { assertNoLeaks, isAlive, killTaggedProcesses, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const TOKEN = 'health-drain-token';

/** A GET with the Host header given (fetch will not let a test set it). */
function get(
  url: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test(
  '/healthz and /readyz: any Host, no token; ready once the configured servers have started',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpmux-ready-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const gate = join(dir, 'gate');
    const slow = fixture('slow-start');
    const mux = await startMcpmuxHttp(['--auth-token', TOKEN, '--', 'slow', slow.command, ...slow.args], {
      env: { SLOW_START_GATE: gate },
    });
    t.teardown(async () => {
      if (isAlive(mux.process.pid)) await mux.stop();
    });
    const health = await get(mux.url, '/healthz', 'probe.cluster.internal');
    t.equal(health.status, 200);
    t.equal(health.body, '{"status":"ok"}');
    const starting = await get(mux.url, '/readyz', 'probe.cluster.internal');
    t.equal(starting.status, 503);
    t.equal(starting.body, '{"status":"starting"}');
    writeFileSync(gate, '');
    t.ok(
      await waitFor(async () => (await get(mux.url, '/readyz', '10.0.0.7:8080')).status === 200, 10_000),
      'ready',
    );
    t.equal((await get(mux.url, '/readyz', '10.0.0.7:8080')).body, '{"status":"ready"}');
    // Every other path keeps the guard: a strange Host is refused, and no token is 401.
    t.equal((await get(mux.url, '/mcp', 'evil.example')).status, 403);
    t.equal((await get(mux.url, '/mcp', '127.0.0.1')).status, 401);
    t.equal((await get(mux.url, '/healthz/more', '127.0.0.1')).status, 401);
    await mux.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'SIGTERM drains: the call in flight completes, a new request gets 503, then mcpmux ends',
  async (t) => {
    const slow = fixture('slow-call');
    const mux = await startMcpmuxHttp([
      '--auth-token',
      TOKEN,
      '--drain-seconds',
      '20',
      '--',
      'slow',
      slow.command,
      ...slow.args,
    ]);
    const client = new Client({ name: 'draining', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mux.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const inFlight = client.callTool({ name: 'slow__wait', arguments: { steps: 10, interval_ms: 150 } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = mux.process.exited;
    process.kill(mux.process.pid, 'SIGTERM');
    t.ok(
      await waitFor(
        async () => (await get(mux.url, '/readyz', '127.0.0.1')).body === '{"status":"draining"}',
        5_000,
      ),
      '/readyz says draining',
    );
    const refused = await post(mux.url, INITIALIZE, { authorization: `Bearer ${TOKEN}` });
    t.equal(refused.status, 503, 'a new request during the drain');
    t.equal(refused.headers['retry-after'], '5');
    const result = await inFlight;
    t.notOk(result.isError, 'the call in flight completed');
    t.match(JSON.stringify(result.content), /10/);
    await exited;
    t.notOk(isAlive(mux.process.pid), 'mcpmux ended');
    t.match(mux.stderr(), /draining: 1 request\(s\) in flight may finish/);
    await assertNoLeaks(t);
  },
);
