// A warning that can come in floods, such as a server printing text on its stdout many lines
// a second: the first few of each window are logged, and how many more came is said once
// when the window ends. Logging every one was a synchronous write to stderr per line.
import type { Logger } from './log.js';

export interface WarningWindow {
  /** Warnings logged in full per window. Default 10. */
  perWindow?: number;
  /** The window's length. Default 10 s. */
  windowMs?: number;
}

/**
 * A function that logs `message()` as a warning within the window's allowance and otherwise
 * counts it; `unlogged(count, seconds)` says how many went unlogged in a window.
 */
export function throttledWarning(
  log: Logger,
  unlogged: (count: number, seconds: number) => string,
  { perWindow = 10, windowMs = 10_000 }: WarningWindow = {},
): (message: () => string) => void {
  let windowStart = -Infinity;
  let logged = 0;
  let skipped = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (skipped > 0) log.warn(unlogged(skipped, windowMs / 1000));
    skipped = 0;
  };
  return (message) => {
    if (!log.enabled('warn')) return;
    const now = performance.now();
    if (now - windowStart >= windowMs) {
      flush();
      windowStart = now;
      logged = 0;
    }
    if (logged < perWindow) {
      logged++;
      return log.warn(message());
    }
    skipped++;
    // Said when the window ends, even if nothing more comes; it keeps no process alive.
    timer ??= setTimeout(flush, windowStart + windowMs - now).unref();
  };
}
