// How a process's end is told in messages ("exit 1", "SIGKILL"): used by the start, the status
// and the stop of a child alike.
import type { ExitInfo } from './child-process.js';

/** An end as a message says it: "exit 1", "killed by SIGKILL". */
export function describeEnd(exit?: ExitInfo, fallback = 'unknown cause'): string {
  if (!exit) return fallback;
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit ${exit.code}`;
}
