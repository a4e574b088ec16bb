// What a failed start or an end says: why, the exit, the last stderr lines, and whether a
// remote server simply cannot be reached any more.
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/server';
import { MuxError, messageOf } from '../common/errors.js';
import type { ServerSpec, Unconfigured } from './server-spec.js';
import { StreamClosedError } from '../protocol/json-line-writer.js';
import { describeEnd } from './process/exit-words.js';
import { delay } from '../common/delay.js';
import type { Generation } from './generation.js';

/**
 * A config's server that cannot start yet: what it needs, where to give it, and how to try
 * again. Variables come from where mcpmux is started (a client's mcpmux entry "env"), or are
 * written in the config or an envFile.
 */
export function needsConfig(name: string, { missing, problems }: Unconfigured): MuxError {
  const variables = missing.filter((m) => !m.startsWith('secret:'));
  const reload = `reload_server {"name":"${name}"} (with --watch-config, the edit alone starts it)`;
  const fix =
    variables.length > 0
      ? `write the value into the config (or an envFile it names) and call ${reload}; or set ${variables.join(', ')} ` +
        'where mcpmux is started (in a client, the "env" of its mcpmux entry) and start mcpmux again'
      : `call ${reload} once it is kept`;
  return new MuxError(
    'NEEDS_CONFIG',
    `server '${name}' waits for its configuration: ${problems.join('; ')}. To start it, ${fix}`,
  );
}

/** Builds the error a failed start reports: why, the exit, and the last stderr lines. */
export async function describeStartFailure(
  name: string,
  spec: ServerSpec,
  gen: Generation,
  error: unknown,
): Promise<MuxError> {
  const signal = gen.startup.signal;
  if (signal.aborted && signal.reason instanceof MuxError && signal.reason.code !== 'STARTUP_TIMEOUT')
    return signal.reason;
  if (
    error instanceof MuxError &&
    (error.code === 'SPAWN_FAILED' ||
      error.code === 'NOT_SUPPORTED' ||
      error.code === 'NOT_ALLOWED' ||
      error.code === 'PROTOCOL_MISMATCH' ||
      error.code === 'NEEDS_CONFIG' ||
      error.code === 'SANDBOX_UNAVAILABLE')
  )
    return error;
  const proc = gen.process;
  // Give a dying process a moment so the report has its exit code and last words.
  if (proc && !proc.exit) await Promise.race([proc.exited, delay(200)]);
  await Promise.race([gen.transportClosed, delay(50)]);
  let why: string;
  const timedOut = signal.aborted && signal.reason instanceof MuxError;
  if (timedOut) why = signal.reason.message;
  else if (spec.transport === 'http') {
    // A refusal that says what to do (sign in, a header) is the whole story, however deep the SDK wrapped it.
    const refusal = authRefusal(error);
    if (refusal)
      return new MuxError(refusal.code, `server '${name}' needs credentials: ${refusal.message}`, {
        cause: error,
      });
    why = `server '${name}' could not be reached at ${spec.url}: ${connectionFailureCode(error) ?? withRootCause(error)}`;
  } else if (proc?.exit) {
    const commandLine = [spec.command, ...spec.args].join(' ');
    why = `server '${name}' exited (${describeEnd(proc.exit)}) before it finished the MCP handshake; is '${commandLine}' an MCP server speaking JSON-RPC on stdio?`;
  } else why = `server '${name}' failed during start-up: ${messageOf(error)}`;
  // A remote server has no stderr of ours to show.
  const tail = gen.tail.lines(20);
  const message =
    (tail.length > 0
      ? `${why}\nlast stderr lines:\n${tail.join('\n')}${knownFix(tail)}`
      : spec.transport === 'http'
        ? why
        : `${why} (it wrote nothing on stderr)`) +
    (gen.noise?.describe() ?? '') +
    // (At its deadline it ran: an exit after it is the closing of its stdin.)
    (timedOut ? (gen.noise?.silence() ?? '') : '');
  return new MuxError(signal.reason instanceof MuxError ? signal.reason.code : 'STARTUP_FAILED', message, {
    cause: error,
  });
}

/** The fix for a known way of failing, from its last stderr lines; '' for none known. */
export function knownFix(tail: readonly string[]): string {
  // npx asks before installing a package not yet in its cache; a server has no terminal to say yes.
  if (tail.some((line) => line.includes('npx canceled due to missing packages')))
    return '\nnpx asks before installing a package and got no answer: put "-y" first in its args (["-y", …])';
  return '';
}

/**
 * The SDK's verdict on a handshake that a live server completed (a protocol version it does
 * not speak, an initialize result it cannot read, an error answer to initialize), as the
 * start's error: the SDK then closes the connection, and the server's exit that follows
 * must not be reported as the cause. Undefined for a connection that closed or an exit.
 */
export function handshakeVerdict(
  name: string,
  error: unknown,
  processAlive: boolean,
  supportedVersions: readonly string[],
): MuxError | undefined {
  if (!processAlive || !(error instanceof Error) || error instanceof MuxError) return undefined;
  if (closedByServer(error)) return undefined;
  const unsupported = /protocol version is not supported: (\S+)/.exec(error.message);
  const why = unsupported
    ? `it answered initialize with protocol version ${unsupported[1]}, which mcpmux does not speak (it speaks ${supportedVersions.join(', ')}, and 2026-07-28 through server/discover)`
    : messageOf(error);
  return new MuxError('PROTOCOL_MISMATCH', `server '${name}' failed the MCP handshake: ${why}`, {
    cause: error,
  });
}

/**
 * Whether `error` says the connection closed under the request (the SDK's closing, or a write
 * the server's end no longer took): the server's doing, which its exit explains, not a refusal.
 * A server that dies during the handshake can close its end before its exit is seen.
 */
export function closedByServer(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof SdkError && [SdkErrorCode.ConnectionClosed, SdkErrorCode.NotConnected].includes(e.code))
      return true;
    if (e instanceof StreamClosedError) return true;
    // The SDK's (closed under a request, or before it was sent), the line writer's and the
    // child transport's words for it.
    if (/connection closed|stream closed|transport closed|not connected/i.test(e.message)) return true;
  }
  return false;
}

/**
 * Why a remote server is lost, when `error` says nothing answers at its address any more
 * (refused, reset): that is its crash, as an exit is for a process. A slow answer is not.
 */
export function lostConnection(spec: ServerSpec, error: unknown): string | undefined {
  if (spec.transport !== 'http' || !isConnectionFailure(error)) return undefined;
  return `connection to ${spec.url} lost (${connectionFailureCode(error)})`;
}

/** A network error of fetch: nothing answers at that address any more. */
export function isConnectionFailure(error: unknown): boolean {
  return connectionFailureCode(error) !== undefined;
}

/** An error and the errors it wraps (its `cause`, theirs…), outermost first, at most `max`. */
function* causeChain(error: unknown, max: number): Generator<Error> {
  for (let e = error, depth = 0; e instanceof Error && depth < max; e = e.cause, depth++) yield e;
}

/** A sign-in that failed or a refusal of mcpmux (AUTH_*) among an error and the errors it wraps. */
function authRefusal(error: unknown): MuxError | undefined {
  for (const e of causeChain(error, 5))
    if (e instanceof MuxError && (e.code === 'AUTH_REQUIRED' || e.code === 'AUTH_FAILED')) return e;
  return undefined;
}

export function connectionFailureCode(error: unknown): string | undefined {
  for (const e of causeChain(error, 4)) {
    const code = (e as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'UND_ERR_SOCKET'].includes(code)
    )
      return code;
  }
  return undefined;
}

/** An error's message and, when it wraps others, the innermost one's ("fetch failed" says little alone). */
function withRootCause(error: unknown): string {
  const chain = [...causeChain(error, 5)];
  return chain.length > 1 ? `${messageOf(error)} (${messageOf(chain.at(-1))})` : messageOf(error);
}
