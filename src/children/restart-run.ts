// A crashed server's restart policy at work: wait its backoff, start it, and again, until it
// runs or its attempts are spent. A server that crashes again soon after a restart is in a
// crash loop, so its attempts add up rather than starting over.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildConnection } from '../child/child-connection.js';
import { telemetry } from '../common/telemetry.js';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { RestartPolicy } from '../child/server-spec.js';

/** A server that crashes again within this long of a restart is in a crash loop: its attempts add up. */
const CRASH_LOOP_WINDOW_MS = 10_000;

export interface RestartRun {
  /** Attempts made since the server last ran for CRASH_LOOP_WINDOW_MS. */
  attempts: number;
  /** When the last attempt started it. */
  startedAt: number;
  /** Aborted by remove_server, reload_server and shutdown. */
  readonly abort: AbortController;
}

/** The run after a crash: the one under way, its count reset when the server had run long enough. */
export function restartRunAfterCrash(previous: RestartRun | undefined): RestartRun {
  const run = previous ?? { attempts: 0, startedAt: 0, abort: new AbortController() };
  if (run.startedAt > 0 && Date.now() - run.startedAt >= CRASH_LOOP_WINDOW_MS) run.attempts = 0;
  return run;
}

export interface RestartUntilRunning {
  name: string;
  connection: ChildConnection;
  policy: RestartPolicy;
  run: RestartRun;
  /** False once the server was removed or reloaded, or the run aborted: nothing more is done. */
  current: () => boolean;
  log: Logger;
  /** The run is over: the server runs again (true) or was given up (false). */
  settle: (running: boolean) => Promise<void>;
}

export async function restartUntilRunning(restart: RestartUntilRunning): Promise<void> {
  const { name, connection, policy, run, current, log } = restart;
  while (current()) {
    if (run.attempts >= policy.maxAttempts) {
      connection.giveUpRestarting(run.attempts);
      log.error(
        `server '${name}' gave up after ${run.attempts} restart attempt(s); reload_server tries again`,
      );
      await restart.settle(false);
      return;
    }
    const attempt = ++run.attempts;
    const waitMs = policy.backoffMs[Math.min(attempt - 1, policy.backoffMs.length - 1)]!;
    connection.markRestarting(attempt, policy.maxAttempts, Date.now() + waitMs);
    log.warn(
      `server '${name}' crashed; restarting it in ${waitMs / 1000} s (attempt ${attempt} of ${policy.maxAttempts})`,
    );
    // Cancelled (remove, reload, shutdown): the wait ends at once.
    if (!(await sleep(waitMs, true, { signal: run.abort.signal }).catch(() => false)) || !current()) return;
    run.startedAt = Date.now();
    try {
      await (telemetry.enabled
        ? telemetry.internal(
            `restart_server ${name}`,
            { 'mcpmux.server.name': name, 'mcpmux.restart.attempt': attempt },
            () => connection.start(),
          )
        : connection.start());
    } catch (error) {
      log.warn(`server '${name}' restart attempt ${attempt} failed: ${messageOf(error)}`);
      continue;
    }
    log.info(`server '${name}' restarted (attempt ${attempt})`);
    telemetry.add('mcpmux.server.restarts', 1, { 'mcpmux.server.name': name });
    await restart.settle(true);
    return;
  }
}
