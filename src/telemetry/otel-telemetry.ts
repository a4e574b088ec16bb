// OpenTelemetry, configured the standard way: the OpenTelemetry SDK for Node (NodeSDK) reads
// the OTEL_* variables (exporters: OTLP over HTTP with JSON or protobuf, or gRPC; Prometheus;
// the sampler, the service name, the resource), and this module makes the spans and metrics
// of the MCP semantic conventions (docs/gen-ai/mcp.md of the GenAI conventions) from what
// mcpmux's facade (common/telemetry.ts) is told. Loaded by main.ts only when an OTEL_*
// variable is set; a missing package is a warning, and mcpmux runs without telemetry.
import { scrubSecrets } from '../secrets/secret-scrubber.js';
import {
  SpanKind,
  SpanStatusCode,
  context,
  metrics,
  propagation,
  trace,
  type Context,
  type Histogram,
  type Meter,
  type Span,
  type Tracer,
  type UpDownCounter,
} from '@opentelemetry/api';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import type {
  Attributes,
  CounterName,
  GaugeName,
  HistogramName,
  SpanScope,
  Telemetry,
  TraceCarrier,
} from '../common/telemetry.js';

const GAUGES: Record<GaugeName, string> = {
  'mcpmux.servers': 'Servers by status (starting, needs_auth, needs_config, running, restarting, crashed).',
};

/** The conventions' buckets for MCP operation and session durations, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** Attributes of a span that also describe its duration in the histograms (low cardinality). */
const METRIC_ATTRIBUTES = [
  'mcp.method.name',
  'gen_ai.tool.name',
  'gen_ai.prompt.name',
  'gen_ai.operation.name',
  'mcp.protocol.version',
  'network.transport',
  'mcpmux.server.name',
  'error.type',
] as const;

/** The attributes that have a value, each text scrubbed of the secrets mcpmux holds. */
const defined = (attributes: Attributes): Record<string, string | number | boolean> =>
  Object.fromEntries(
    Object.entries(attributes)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? scrubSecrets(v) : v]),
  ) as Record<string, string | number | boolean>;

export function startOtelTelemetry(version: string, replica?: ReplicaIdentity): Telemetry {
  const sdk = startSdk(version, replica);
  const tracer = trace.getTracer('mcpmux', version);
  const meter = metrics.getMeter('mcpmux', version);
  const { serverDuration, clientDuration, histograms, counters } = instruments(meter);
  const run = spanRunner(tracer);
  return {
    enabled: true,
    server: (name, attributes, meta, work) =>
      run(name, SpanKind.SERVER, attributes, continued(meta), (span) => work(span), serverDuration),
    client: (name, attributes, work) =>
      run(
        name,
        SpanKind.CLIENT,
        attributes,
        context.active(),
        (span, active) => {
          const carrier: Record<string, string> = {};
          propagation.inject(active, carrier);
          return work(span, carrier);
        },
        clientDuration,
      ),
    internal: (name, attributes, work) =>
      run(name, SpanKind.INTERNAL, attributes, context.active(), (span) => work(span), undefined),
    bind: (fn) => context.bind(context.active(), fn),
    event: (name, attributes, errorType) => {
      const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: defined(attributes) });
      if (errorType !== undefined) {
        span.setAttribute('error.type', errorType);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
    add: (metric, delta, attributes = {}) => counters[metric].add(delta, defined(attributes)),
    record: (metric, value, attributes = {}) => histograms[metric].record(value, defined(attributes)),
    observe: (metric, read) =>
      meter.createObservableGauge(metric, { description: GAUGES[metric] }).addCallback((result) => {
        for (const { value, attributes } of read()) result.observe(value, defined(attributes));
      }),
    shutdown: () => sdk.shutdown(),
  };
}

/** A replica of a cluster (--redis): its spans and metrics say which one. */
export interface ReplicaIdentity {
  readonly cluster: string;
  readonly replica: string;
}

function startSdk(version: string, replica: ReplicaIdentity | undefined): NodeSDK {
  const { envDetector, hostDetector, osDetector, resourceFromAttributes } = resources;
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME, when set, names the service; this is the default.
    ...(process.env['OTEL_SERVICE_NAME'] ? {} : { serviceName: 'mcpmux' }),
    // Not the process detector: its process.command_args would carry --auth-token's value.
    ...(process.env['OTEL_NODE_RESOURCE_DETECTORS'] === undefined && {
      resourceDetectors: [envDetector, hostDetector, osDetector],
      resource: resourceFromAttributes({
        'service.version': version,
        'process.pid': process.pid,
        'process.runtime.name': 'nodejs',
        'process.runtime.version': process.versions.node,
        ...(replica && { 'service.instance.id': replica.replica, 'mcpmux.cluster': replica.cluster }),
      }),
    }),
  });
  sdk.start();
  return sdk;
}

/** mcpmux's metrics: the MCP conventions' durations, and its own counters. */
function instruments(meter: Meter): {
  serverDuration: Histogram;
  clientDuration: Histogram;
  histograms: Record<HistogramName, Histogram>;
  counters: Record<CounterName, UpDownCounter>;
} {
  const histogram = (name: string, description: string): Histogram =>
    meter.createHistogram(name, {
      unit: 's',
      description,
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  const counter = (name: CounterName, description: string, unit?: string): UpDownCounter =>
    meter.createUpDownCounter(name, { description, ...(unit !== undefined && { unit }) });
  return {
    serverDuration: histogram(
      'mcp.server.operation.duration',
      'MCP request duration as observed on the receiver, from its arrival until its answer is sent.',
    ),
    clientDuration: histogram(
      'mcp.client.operation.duration',
      'MCP request duration as observed on the sender, from the time it was sent until the answer arrived.',
    ),
    histograms: {
      'mcp.server.session.duration': histogram(
        'mcp.server.session.duration',
        'The duration of an MCP session as observed on mcpmux.',
      ),
      'mcpmux.search.duration': histogram(
        'mcpmux.search.duration',
        'How long a search_tools or find_servers search took.',
      ),
    },
    counters: {
      'mcpmux.server.restarts': counter(
        'mcpmux.server.restarts',
        'Servers started again by their restart policy.',
      ),
      'mcpmux.calls.in_flight': counter('mcpmux.calls.in_flight', 'Tool calls mcpmux is serving now.'),
      'mcpmux.results.kept': counter(
        'mcpmux.results.kept',
        'Results cut in the reply and kept whole for read_result.',
      ),
      'mcpmux.results.kept.bytes': counter('mcpmux.results.kept.bytes', 'Bytes of the results kept.', 'By'),
      'mcpmux.sessions.open': counter('mcpmux.sessions.open', 'MCP sessions open now.'),
    },
  };
}

/**
 * Runs work in a span of its own, under `parent`: the span's attributes scrubbed, a failure
 * recorded with its error type, and its duration recorded with the attributes metrics keep.
 */
function spanRunner(tracer: Tracer) {
  return async <T>(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    parent: Context,
    work: (span: SpanScope, active: Context) => Promise<T>,
    duration: Histogram | undefined,
  ): Promise<T> => {
    const started = performance.now();
    const span: Span = tracer.startSpan(name, { kind, attributes: defined(attributes) }, parent);
    const seen: Record<string, string | number | boolean | undefined> = { ...attributes };
    const scope: SpanScope = {
      traceId: span.spanContext().traceId,
      set: (more) => {
        Object.assign(seen, more);
        span.setAttributes(defined(more));
      },
      fail: (errorType, message) => {
        seen['error.type'] = errorType;
        span.setAttribute('error.type', errorType);
        span.setStatus({
          code: SpanStatusCode.ERROR,
          ...(message !== undefined && { message: scrubSecrets(message) }),
        });
      },
    };
    const active = trace.setSpan(parent, span);
    try {
      return await context.with(active, () => work(scope, active));
    } catch (error) {
      if (seen['error.type'] === undefined) scope.fail(errorTypeOf(error), (error as Error)?.message);
      throw error;
    } finally {
      span.end();
      duration?.record(
        (performance.now() - started) / 1000,
        defined(Object.fromEntries(METRIC_ATTRIBUTES.map((key) => [key, seen[key]]))),
      );
    }
  };
}

/** The context a request's `_meta` carries (traceparent, tracestate), else the current one. */
function continued(meta: TraceCarrier | undefined): Context {
  if (!meta || typeof meta['traceparent'] !== 'string') return context.active();
  const carrier: Record<string, string> = { traceparent: meta['traceparent'] };
  if (typeof meta['tracestate'] === 'string') carrier['tracestate'] = meta['tracestate'];
  return propagation.extract(context.active(), carrier);
}

/** error.type for a thrown error: its JSON-RPC code when it has a number, else its name. */
function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return String(code);
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'Error';
}
