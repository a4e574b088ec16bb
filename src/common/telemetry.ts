// What mcpmux reports of what goes through it (OpenTelemetry traces and metrics), without
// knowing OpenTelemetry: the rest of mcpmux calls `telemetry`, which does nothing until
// main.ts installs the real one (telemetry/otel-telemetry.ts) because an OTEL_* variable is
// set. Off, no @opentelemetry module is loaded, and callers check `telemetry.enabled` before
// doing any work for it, so the forwarding path pays one property read.

export type Attributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A span in progress. */
export interface SpanScope {
  /** Its trace's id (32 hex digits), for records kept beside the trace (the call log). */
  readonly traceId: string | undefined;
  set(attributes: Attributes): void;
  /** The operation failed: `errorType` is a JSON-RPC error code, `tool_error`, or an error's name. */
  fail(errorType: string, message?: string): void;
}

/** What a request or its answer says about the trace: W3C trace context, as MCP carries it in params._meta. */
export type TraceCarrier = Record<string, unknown>;

export interface Telemetry {
  readonly enabled: boolean;
  /**
   * Runs `work` in a server span (a request a client made of mcpmux), continuing the trace
   * its `_meta` carries; its duration is recorded as mcp.server.operation.duration.
   */
  server<T>(
    name: string,
    attributes: Attributes,
    meta: TraceCarrier | undefined,
    work: (span: SpanScope) => Promise<T>,
  ): Promise<T>;
  /**
   * Runs `work` in a client span (a request mcpmux makes of a child) under the current span;
   * `work` is given the trace context to put in the request's `_meta`. Its duration is
   * recorded as mcp.client.operation.duration.
   */
  client<T>(
    name: string,
    attributes: Attributes,
    work: (span: SpanScope, meta: Record<string, string>) => Promise<T>,
  ): Promise<T>;
  /** Runs `work` in a span of mcpmux's own work (add_server, a reload, a sign-in), under the current span. */
  internal<T>(name: string, attributes: Attributes, work: (span: SpanScope) => Promise<T>): Promise<T>;
  /**
   * `fn`, bound to the current span: work it does later, called from elsewhere (a sandbox's
   * message), is traced under the span that was current here.
   */
  bind<F extends (...args: never[]) => unknown>(fn: F): F;
  /** Something that happened at once (a crash): a span that ends as it starts. */
  event(name: string, attributes: Attributes, errorType?: string): void;
  /** Adds to a counter (restarts) or an up-down counter (calls in flight: `delta` may be negative). */
  add(metric: CounterName, delta: number, attributes?: Attributes): void;
  /** Reports a gauge read at each export (servers by status): its values, each with its attributes. */
  observe(metric: GaugeName, read: () => readonly { value: number; attributes: Attributes }[]): void;
  /** Records a value of a histogram (search latency, session duration). */
  record(metric: HistogramName, value: number, attributes?: Attributes): void;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

/** mcpmux's counters: what each counts is written where the real telemetry creates it. */
export type CounterName =
  | 'mcpmux.server.restarts'
  | 'mcpmux.calls.in_flight'
  | 'mcpmux.results.kept'
  | 'mcpmux.results.kept.bytes'
  | 'mcpmux.sessions.open';

export type GaugeName = 'mcpmux.servers';

export type HistogramName = 'mcp.server.session.duration' | 'mcpmux.search.duration';

/** The span of work done with telemetry off. */
export const NO_SPAN: SpanScope = { traceId: undefined, set: () => {}, fail: () => {} };
const scope = NO_SPAN;

/** Telemetry that does nothing: what runs when no OTEL_* variable is set. */
export const NO_TELEMETRY: Telemetry = {
  enabled: false,
  server: (_name, _attributes, _meta, work) => work(scope),
  client: (_name, _attributes, work) => work(scope, {}),
  internal: (_name, _attributes, work) => work(scope),
  bind: (fn) => fn,
  event: () => {},
  add: () => {},
  observe: () => {},
  record: () => {},
  shutdown: async () => {},
};

/** The telemetry in use; main.ts replaces it once, before anything is served. */
export let telemetry: Telemetry = NO_TELEMETRY;

export function installTelemetry(installed: Telemetry): void {
  telemetry = installed;
}

/** Whether the environment asks for OpenTelemetry: any OTEL_* variable, unless OTEL_SDK_DISABLED=true. */
export function telemetryRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  return Object.keys(env).some((name) => name.startsWith('OTEL_') && env[name] !== '');
}
