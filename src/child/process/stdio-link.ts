// The pipes to a spawned child as a generation uses them: the transport over its stdin and
// stdout, the forwarding fast path's lane of calls (which sees every message first), the
// child's log messages relayed straight to the client, and the bound on its unread input.
import { MuxError } from '../../common/errors.js';
import { ChildLane } from '../requests/child-lane.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../protocol/json-line-reader.js';
import { StdioChildTransport } from './stdio-child-transport.js';
import type { ConnectHost } from '../connect-host.js';
import type { ChildProcess } from './child-process.js';
import { DEFAULT_CALL_TIMEOUT_MS } from '../child-types.js';
import { originDuring, type Generation } from '../generation.js';
import { inputRefusal } from './input-backlog.js';
import { relayedLogMessage } from '../requests/log-relay.js';
import { isJsonRpc, MULTI_LINE, NO_NEWLINE, NO_VERSION, StdoutNoise } from './stdout-noise.js';
import { throttledWarning } from '../../common/throttled-warning.js';

/** How long a message without its newline waits for one before the start is failed. */
const UNTERMINATED_WAIT_MS = 1000;

/** The transport to `proc`, with the generation's lane and input set on `gen`. */
export function stdioLink(host: ConnectHost, gen: Generation, proc: ChildProcess): StdioChildTransport {
  const { name, options, log } = host;
  const inputBound = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const refusal = (): MuxError | undefined => inputRefusal(name, transport, inputBound);
  const skipped = throttledWarning(
    log,
    (count, seconds) => `[${name}] skipped ${count} more non-JSON lines on stdout in ${seconds} s`,
  );
  // A server that writes so can never finish its handshake: its start fails at once, not at
  // its deadline (60 s by default), saying why.
  const failStart = (why: string) => {
    if (!host.runs(gen)) gen.startup.abort(new MuxError('STARTUP_FAILED', `server '${name}' ${why}`));
  };
  const noise = (gen.noise = new StdoutNoise({
    onMultiLine: () => failStart(MULTI_LINE),
    onUnversioned: (line) => failStart(`${NO_VERSION}: ${line.slice(0, 200)}`),
    unterminated: () => transport.unterminated(),
    wroteAny: () => wroteBeforeFailure ?? transport.stdoutBytes > 0,
  }));
  // What it wrote by the time its start failed: a program that buffers its output writes it
  // all as it exits, when the failed start closes its stdin.
  let wroteBeforeFailure: boolean | undefined;
  gen.startup.signal.addEventListener('abort', () => (wroteBeforeFailure = transport.stdoutBytes > 0), {
    once: true,
  });
  const transport: StdioChildTransport = new StdioChildTransport(proc, {
    onSkippedLine: (line) => {
      noise.skipped(line);
      skipped(() => `[${name}] skipped a non-JSON line on stdout: ${line.slice(0, 200)}`);
    },
    onDropped: (why) => log.warn(`[${name}] ${why}`),
    onErrorWithoutId: (error) =>
      log.warn(
        `[${name}] answered with an error to a message it could not read: ${String(error.message)} (${String(error.code)})`,
      ),
    maxMessageBytes: inputBound,
    refuseRequest: refusal,
    // What the crash says when no exit does (a child that died says how it ended instead).
    onInputClosed: () => (gen.lostBecause ??= 'closed its stdin and stopped reading requests'),
    // A whole message with no newline after it, and nothing more for a second.
    onUnterminated: () => {
      const open = transport.unterminated();
      if (host.runs(gen) || open === undefined || !isJsonRpc(open)) return;
      setTimeout(() => {
        if (transport.unterminated() === open) failStart(NO_NEWLINE);
      }, UNTERMINATED_WAIT_MS).unref();
    },
  });
  const lane = laneOf(host, gen, transport, refusal);
  const upstream = options.upstream;
  transport.divert = (message, bytes) =>
    lane.divert(message, bytes) ||
    (upstream !== undefined && relayedLogMessage(name, message, upstream, gen.origins));
  transport.takeBytes = (bytes, start, end) => lane.takeBytes(bytes, start, end);
  gen.lane = lane;
  gen.input = transport;
  return transport;
}

/** The fast path's lane of calls to the child, over `transport`. */
function laneOf(
  host: ConnectHost,
  gen: Generation,
  transport: StdioChildTransport,
  refusal: () => MuxError | undefined,
): ChildLane {
  const { name, options } = host;
  return new ChildLane({
    server: name,
    send: (message) => transport.post(message),
    sendLine: (line) => transport.postLine(line),
    refusal,
    callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    peer: {
      modern: () => gen.client?.getProtocolEra() === 'modern',
      mayAsk: () => Boolean(gen.declared?.sampling || gen.declared?.elicitation || gen.declared?.roots),
      callFor: (origin) => originDuring(gen, origin),
      sessionLogLevel: () => options.upstream?.sessionLogLevel?.(),
    },
  });
}
