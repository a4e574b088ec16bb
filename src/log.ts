// The logger. stdout belongs to the MCP protocol, so every line goes to a sink that is
// stderr by default. Levels are filtered here so callers never format what is dropped.

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
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const sink = options.sink ?? ((line: string) => void process.stderr.write(line + '\n'));
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
