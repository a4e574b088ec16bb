// The logger. stdout belongs to the MCP protocol, so every line goes to a sink that is
// stderr by default. Levels are filtered here so callers never format what is dropped; every
// line passes `scrub` last (main.ts gives it secrets/secret-scrubber.ts, which takes out the
// secrets mcpmux holds).
import type { Writable } from 'node:stream';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  readonly level: LogLevel;
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string | (() => string)): void;
  /** Written whatever the level: the operator's record of what was spawned. */
  audit(message: string): void;
  /** True when messages of this level are written; lets hot paths skip work. */
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  /** Lowest level written. Default 'info'. */
  level?: LogLevel;
  /** Where lines go. Default: process.stderr. */
  sink?: (line: string) => void;
  /** What every line passes before it goes: mcpmux's takes out the secrets it holds. Default: none. */
  scrub?: (line: string) => string;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const scrub = options.scrub ?? ((line: string) => line);
  const out = options.sink ?? boundedSink(process.stderr);
  const sink = (line: string) => out(scrub(line));
  const rank = LOG_LEVELS.indexOf(level);
  const enabled = (l: LogLevel) => LOG_LEVELS.indexOf(l) <= rank;
  const write = (l: LogLevel, message: string) => {
    if (enabled(l)) sink(`mcpmux ${l}: ${message}`);
  };
  return {
    level,
    enabled,
    error: (m) => write('error', m),
    warn: (m) => write('warn', m),
    info: (m) => write('info', m),
    debug: (m) => {
      if (enabled('debug')) write('debug', typeof m === 'function' ? m() : m);
    },
    audit: (m) => sink(`mcpmux audit: ${m}`),
  };
}

/** A logger that drops everything, for tests and benchmarks that do not read logs. */
export const silentLogger: Logger = createLogger({ level: 'error', sink: () => {} });

/** How much of the log may wait for a reader before lines are dropped. */
export const MAX_LOG_BACKLOG_BYTES = 1024 * 1024;

/**
 * Lines to a stream that may not be read: a client that pipes mcpmux's stderr and never reads
 * it left every line (a chatty server's stderr included) in mcpmux's memory, 40 MB of a
 * server's stderr took RSS from 69 to 167 MB. Past `maxBacklog` bytes waiting, lines are
 * dropped and counted; once the stream drains, one line says how many.
 */
export function boundedSink(stream: Writable, maxBacklog = MAX_LOG_BACKLOG_BYTES): (line: string) => void {
  // Past the high-water mark a write has been refused, so 'drain' comes once it is read.
  const bound = Math.max(maxBacklog, stream.writableHighWaterMark);
  let dropped = 0;
  const reportDropped = () => {
    stream.write(`mcpmux warn: ${dropped} log line(s) dropped: mcpmux's stderr was not read\n`);
    dropped = 0;
  };
  return (line) => {
    if (stream.writableLength <= bound) {
      stream.write(line + '\n');
      return;
    }
    if (dropped++ === 0) stream.once('drain', reportDropped);
  };
}
