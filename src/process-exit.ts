// How mcpmux ends. Whatever the way (stdin EOF when serving, a signal, a fatal error, exit),
// every child process group it started is killed first.
import { killAllProcessGroupsSync } from './child/process/child-process.js';
import { messageOf } from './common/errors.js';
import type { Logger } from './common/log.js';

export const EXIT_USAGE = 2;
/** Longest a graceful shutdown may take before the remaining groups are SIGKILLed. */
const SHUTDOWN_DEADLINE_MS = 10_000;
/**
 * Longest the requests a stdio client made before it closed its input wait for their answers.
 * A script piped into mcpmux gets them (as from a server built on an MCP SDK, which all finish
 * what they read); a client that closes its input while a long call runs and then leaves
 * without a signal does not keep mcpmux and its servers running much longer for it, and not
 * at all once it is seen to be gone (mcpmux's parent process ended: it was reparented).
 */
const ANSWER_GRACE_MS = 10_000;
/**
 * The process that started mcpmux: most often the client (or an npx it ran, which waits for
 * mcpmux). Read as this module loads, at start: read once serving had begun, after the SDK has
 * loaded, it could already be the process mcpmux was handed to, and the client would never be
 * seen to be gone.
 */
const startedBy = process.ppid;

/** However mcpmux ends (stdin EOF when serving, a signal, a fatal error, exit), its children end first. */
export function installExitHandlers(
  log: Logger,
  close: () => Promise<void>,
  {
    watchStdin = true,
    onHangup,
    finishAnswering,
    drain,
  }: {
    watchStdin?: boolean;
    onHangup?: () => void;
    /** On SIGTERM, before the end: new requests refused, those in flight finished (bounded by its caller). */
    drain?: () => Promise<void>;
    /**
     * Once stdin has ended: settles when what the client asked before is answered, or once
     * `stopWaiting` says so, with the number of requests still open.
     */
    finishAnswering?: (stopWaiting: () => boolean) => Promise<number>;
  } = {},
): void {
  let shuttingDown = false;
  const shutdown = (why: string, code: number, drainFirst = false) => {
    if (shuttingDown) {
      // A second signal while shutting down: stop waiting.
      killAllProcessGroupsSync();
      process.exit(code);
    }
    shuttingDown = true;
    log.info(`shutting down (${why})`);
    if (drainFirst && drain)
      void drain()
        .catch((error: unknown) => log.error(`error while draining: ${messageOf(error)}`))
        .then(() => stop(code));
    else stop(code);
  };
  const stop = (code: number) => {
    const deadline = setTimeout(() => {
      log.warn('shutdown took too long; killing the remaining servers');
      killAllProcessGroupsSync();
      process.exit(code);
    }, SHUTDOWN_DEADLINE_MS);
    close()
      .catch((error) => log.error(`error while shutting down: ${messageOf(error)}`))
      .finally(() => {
        clearTimeout(deadline);
        killAllProcessGroupsSync();
        process.exit(code);
      });
  };
  if (watchStdin) endWithStdin(log, finishAnswering, () => shuttingDown || shutdown('stdin closed', 0));
  process.stdout.on('error', () => shutdown('stdout closed', 0));
  for (const [signal, number] of [
    ['SIGINT', 2],
    ['SIGTERM', 15],
    ['SIGHUP', 1],
  ] as const) {
    if (signal === 'SIGHUP' && onHangup) process.on(signal, () => onHangup());
    else process.on(signal, () => shutdown(signal, 128 + number, signal === 'SIGTERM'));
  }
  const fatal = (kind: string) => (error: unknown) => {
    log.error(`${kind}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killAllProcessGroupsSync();
    process.exit(1);
  };
  process.on('uncaughtException', fatal('uncaught exception'));
  process.on('unhandledRejection', fatal('unhandled rejection'));
  // Last line of defence: whatever path leads to exit, no group outlives us.
  process.on('exit', () => killAllProcessGroupsSync());
}

/**
 * The client closing mcpmux's stdin is the normal end of a stdio session, once what it asked
 * is answered (or the client is gone, or the grace is over): then `end`.
 */
function endWithStdin(
  log: Logger,
  finishAnswering: ((stopWaiting: () => boolean) => Promise<number>) | undefined,
  end: () => void,
): void {
  let ended = false;
  const stdinEnded = () => {
    if (ended) return;
    ended = true;
    const deadline = Date.now() + ANSWER_GRACE_MS;
    const clientGone = () => process.ppid !== startedBy;
    void (finishAnswering?.(() => clientGone() || Date.now() >= deadline) ?? Promise.resolve(0))
      .then((left) => {
        if (left > 0)
          log.warn(
            `stdin closed; ${left} request(s) still unanswered ${clientGone() ? 'when the client was gone' : `after ${ANSWER_GRACE_MS / 1000} s`} end with the shutdown`,
          );
      })
      .catch((error: unknown) => log.error(`error while answering the last requests: ${messageOf(error)}`))
      .then(end);
  };
  process.stdin.once('end', stdinEnded);
  process.stdin.once('close', stdinEnded);
  if (process.stdin.readableEnded) stdinEnded();
}

export function exitWith(code: number, text: string, stream: NodeJS.WriteStream = process.stderr): never {
  stream.write(text + '\n');
  process.exit(code);
}
