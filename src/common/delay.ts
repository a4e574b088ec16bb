// A wait that holds no process open: a timer mcpmux races against (a child's exit, an answer)
// must not keep mcpmux, or a test, alive once everything else has ended.
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves after `ms`, without holding the process open. */
export const delay = (ms: number): Promise<void> => sleep(ms, undefined, { ref: false });
