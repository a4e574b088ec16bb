// OpenTelemetry through the built mcpmux, turned on the standard way (OTEL_* variables): a
// client's call that carries a traceparent in _meta gives a server span in that trace, a client
// span under it for the child's request, and the child receives a traceparent of the same trace
// (echo-meta answers the _meta it got); a tool error is error.type tool_error; the conventions'
// duration histograms arrive over OTLP/HTTP (JSON), and a Prometheus scrape holds them in the
// text format. With no OTEL_* variable, no @opentelemetry module is loaded at all.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import { fixture, ROOT } from '../helpers/fixtures.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startMcpmux, startMcpmuxHttp, text } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { answer, scriptedModel, toolUse } from '../helpers/scripted-model.js';

t.teardown(() => killTaggedProcesses());

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number };
}

/** An OTLP/HTTP receiver (JSON) on 127.0.0.1: the spans and metric names it was sent. */
async function startReceiver(t: Test) {
  const spans: OtlpSpan[] = [];
  const metrics: { name: string; points: number }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const json = JSON.parse(body || '{}');
      if (req.url === '/v1/traces')
        for (const rs of json.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) spans.push(...ss.spans);
      if (req.url === '/v1/metrics')
        for (const rm of json.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of sm.metrics ?? [])
              metrics.push({
                name: m.name,
                points: (m.histogram?.dataPoints ?? m.sum?.dataPoints ?? []).length,
              });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, metrics };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

t.test('a call continues the client trace through mcpmux to the child, over OTLP/HTTP', async (t) => {
  const receiver = await startReceiver(t);
  const echo = fixture('echo-meta');
  const mux = await startMcpmux(['--', 'echo', echo.command, ...echo.args], undefined, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_METRIC_EXPORT_INTERVAL: '200',
  });
  const answered = await mux.client.callTool({
    name: 'echo__meta',
    arguments: {},
    _meta: { traceparent: TRACEPARENT },
  });
  const childMeta = JSON.parse(text(answered as never)) as { traceparent: string };
  const [, childTrace, childParent] = childMeta.traceparent.split('-');
  t.equal(childTrace, CLIENT_TRACE, "the child's request carries the client's trace");
  const failed = await mux.client.callTool({
    name: 'echo__fail',
    arguments: { message: 'no' },
    _meta: { traceparent: TRACEPARENT },
  });
  t.ok(failed.isError);

  t.ok(
    await waitFor(() => receiver.spans.filter((s) => s.traceId === CLIENT_TRACE).length >= 4, 10_000),
    'the spans arrive',
  );
  const server = receiver.spans.find((s) => s.name === 'tools/call echo__meta')!;
  t.match(server, { traceId: CLIENT_TRACE, parentSpanId: CLIENT_SPAN, kind: 2 });
  t.equal(attribute(server, 'mcp.method.name'), 'tools/call');
  t.equal(attribute(server, 'gen_ai.tool.name'), 'echo__meta');
  t.equal(attribute(server, 'gen_ai.operation.name'), 'execute_tool');
  t.equal(attribute(server, 'network.transport'), 'pipe');
  t.ok(attribute(server, 'jsonrpc.request.id') !== undefined, 'jsonrpc.request.id');
  const client = receiver.spans.find((s) => s.name === 'tools/call meta')!;
  t.match(client, { traceId: CLIENT_TRACE, parentSpanId: server.spanId, kind: 3 });
  t.equal(attribute(client, 'mcpmux.server.name'), 'echo');
  t.equal(childParent, client.spanId, "the child's parent is mcpmux's client span");
  t.equal(attribute(server, 'gen_ai.tool.call.arguments'), undefined, 'no arguments without --trace-content');
  const failedSpan = receiver.spans.find((s) => s.name === 'tools/call echo__fail')!;
  t.equal(attribute(failedSpan, 'error.type'), 'tool_error');
  t.equal(failedSpan.status?.code, 2, 'status error');

  t.ok(
    await waitFor(
      () =>
        ['mcp.server.operation.duration', 'mcp.client.operation.duration'].every((name) =>
          receiver.metrics.some((m) => m.name === name && m.points > 0),
        ),
      10_000,
    ),
    'the duration histograms arrive',
  );
  t.notMatch(mux.stdoutLines.join('\n'), /opentelemetry/i, 'stdout holds the protocol alone');
  await mux.client.close();
  await assertNoLeaks(t);
});

t.test(
  'management work has its spans: add_server, a crash, an agent run with its turns and tool calls',
  async (t) => {
    const receiver = await startReceiver(t);
    const model = scriptedModel([() => toolUse('echo__meta'), () => answer('done')]);
    const mux = await startMcpmux(['--expose', 'agent'], model, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    });
    await mux.json('add_server', { name: 'echo', ...fixture('echo-meta') });
    await mux.json('add_server', { name: 'crashy', ...fixture('crash-on-call') });
    const agent = await mux.call('agent', { prompt: 'look at the meta' });
    t.notOk(agent.isError, text(agent));
    await mux.call('crashy__crash').catch(() => undefined);
    t.ok(
      await waitFor(() => receiver.spans.some((s) => s.name === 'server_crashed crashy'), 10_000),
      'the crash has its span',
    );
    const named = (name: string) => receiver.spans.find((s) => s.name === name);
    t.ok(await waitFor(() => named('execute_tool echo__meta') !== undefined, 10_000));
    const addCall = named('tools/call add_server')!;
    const start = named('start_server echo')!;
    t.match(start, { traceId: addCall.traceId, kind: 1 });
    t.equal(attribute(start, 'mcpmux.server.name'), 'echo');
    t.equal(attribute(named('server_crashed crashy')!, 'error.type'), 'crashed');
    const run = named('invoke_agent mcpmux')!;
    t.equal(run.parentSpanId, named('tools/call agent')!.spanId, 'the run is under the agent call');
    const turns = receiver.spans.filter((s) => s.name.startsWith('chat ') && s.parentSpanId === run.spanId);
    t.equal(turns.length, 2, 'a span per model turn');
    const toolCall = named('execute_tool echo__meta')!;
    t.equal(toolCall.parentSpanId, run.spanId);
    const childCall = named('tools/call meta')!;
    t.equal(childCall.parentSpanId, toolCall.spanId, "the child's request is under the agent's tool call");
    t.ok(
      await waitFor(
        () =>
          ['mcpmux.servers', 'mcpmux.sessions.open'].every((name) =>
            receiver.metrics.some((m) => m.name === name),
          ),
        10_000,
      ),
      "mcpmux's own metrics arrive",
    );
    await mux.client.close();
    await assertNoLeaks(t);
  },
);

t.test(
  "execute_code's tool calls are under its call; a 2026-07-28 client over HTTP is traced too",
  async (t) => {
    const receiver = await startReceiver(t);
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRICS_EXPORTER: 'none',
    };
    const echo = fixture('echo-meta');
    const code = await startMcpmux(
      ['--expose', 'code', '--', 'echo', echo.command, ...echo.args],
      undefined,
      otel,
    );
    const ran = await code.json('execute_code', {
      code: 'await tools.echo.meta({}); return true;',
    });
    t.equal(ran.return_value, true);
    await code.client.close();
    // Exported in batches: the program's span ends after its tool call's, and may come in a later one.
    const arrived = (name: string) => receiver.spans.some((s) => s.name === name);
    t.ok(await waitFor(() => arrived('tools/call meta') && arrived('tools/call execute_code'), 10_000));
    const program = receiver.spans.find((s) => s.name === 'tools/call execute_code')!;
    const child = receiver.spans.find((s) => s.name === 'tools/call meta')!;
    t.equal(child.traceId, program.traceId, 'in the trace of the execute_code call');
    t.equal(child.parentSpanId, program.spanId, 'under it');

    const http = await startMcpmuxHttp(['--', 'echo', echo.command, ...echo.args], { env: otel });
    const modern = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modern.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    const answered = await modern.callTool({
      name: 'echo__meta',
      arguments: {},
      _meta: { traceparent: TRACEPARENT },
    });
    t.match(
      text(answered as never),
      new RegExp(`00-${CLIENT_TRACE}-`),
      "the child's request carries the client's trace",
    );
    await modern.close();
    t.ok(
      await waitFor(
        () => receiver.spans.some((s) => s.name === 'tools/call echo__meta' && s.traceId === CLIENT_TRACE),
        10_000,
      ),
    );
    const served = receiver.spans.find(
      (s) => s.name === 'tools/call echo__meta' && s.traceId === CLIENT_TRACE,
    )!;
    t.equal(attribute(served, 'network.transport'), 'tcp');
    t.equal(attribute(served, 'mcp.protocol.version'), '2026-07-28');
    await http.stop();
    await assertNoLeaks(t);
  },
);

t.test("--trace-content records a tool call's arguments and result in its span", async (t) => {
  const receiver = await startReceiver(t);
  const echo = fixture('echo-meta');
  const mux = await startMcpmux(['--trace-content', '--', 'echo', echo.command, ...echo.args], undefined, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_METRICS_EXPORTER: 'none',
  });
  await mux.client.callTool({ name: 'echo__fail', arguments: { message: 'shown' } });
  t.ok(await waitFor(() => receiver.spans.some((s) => s.name === 'tools/call echo__fail'), 10_000));
  const span = receiver.spans.find((s) => s.name === 'tools/call echo__fail')!;
  t.equal(attribute(span, 'gen_ai.tool.call.arguments'), '{"message":"shown"}');
  t.match(attribute(span, 'gen_ai.tool.call.result'), /"isError":true/);
  await mux.client.close();
  await assertNoLeaks(t);
});

t.test('OTEL_METRICS_EXPORTER=prometheus: a scrape holds the histograms in the text format', async (t) => {
  const port = await freePort();
  const echo = fixture('echo-meta');
  const mux = await startMcpmux(['--', 'echo', echo.command, ...echo.args], undefined, {
    OTEL_TRACES_EXPORTER: 'none',
    OTEL_METRICS_EXPORTER: 'prometheus',
    OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
    OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
  });
  await mux.client.callTool({ name: 'echo__meta', arguments: {} });
  const scrape = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  t.match(scrape, /^# TYPE mcp_server_operation_duration histogram$/m);
  t.match(
    scrape,
    /^mcp_server_operation_duration_bucket\{.*mcp_method_name="tools\/call".*le="\+Inf"\} [1-9]/m,
  );
  t.match(scrape, /^mcp_client_operation_duration_count\{.*mcpmux_server_name="echo".*\} [1-9]/m);
  t.notMatch(
    scrape,
    /process_command_args|MCPMUX_TEST_LEAK_TAG/,
    "no command line (it may hold --auth-token's value)",
  );
  for (const line of scrape.split('\n').filter((l) => l !== '' && !l.startsWith('#')))
    t.match(
      line,
      /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eE]+(Inf)?( \d+)?$/,
      'a sample line of the text format',
    );
  await mux.client.close();
  await assertNoLeaks(t);
});

t.test('with no OTEL_* variable, no @opentelemetry module is loaded', async (t) => {
  const hook = pathToFileURL(`${ROOT}/test/helpers/load-log.mjs`).href;
  const echo = fixture('echo-meta');
  const mux = await startMcpmux(['--', 'echo', echo.command, ...echo.args], undefined, {
    NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${hook}`,
  });
  await mux.client.callTool({ name: 'echo__meta', arguments: {}, _meta: { traceparent: TRACEPARENT } });
  await mux.json('list_servers');
  t.match(mux.stderr(), /module-load-log .*\/dist\//, 'the hook sees what is loaded');
  t.notMatch(mux.stderr(), /module-load-log .*@opentelemetry/, 'no @opentelemetry module');
  await mux.client.close();
  await assertNoLeaks(t);
});

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
