// Liveness pings of a running child. A missed ping is counted and logged, never judged a
// crash: under load a healthy child may answer late, and an exit or a closed pipe is what
// the crash monitor acts on. A remote server has no exit to watch: when its transport reports
// an error (a call's stream cut, a reconnection refused) it is pinged at once, so a server
// that went down is known in a moment, not at the next ping (30 s) with its calls waiting.
// 2026-07-28 has no ping: a server of that era is asked server/discover, its cheapest request.
import type { Client } from '@modelcontextprotocol/client';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';

export interface Pinging {
  timer: NodeJS.Timeout;
  /** When the child last answered a ping. */
  lastOk: number;
  /** Pings missed in a row since. */
  missed: number;
  inFlight: boolean;
  /** Pings now, unless a ping is under way or one was sent less than a second ago. */
  soon: () => void;
}

/** The least time between two pings sent out of turn, however many errors come. */
const SOON_INTERVAL_MS = 1000;

export interface PingOptions {
  name: string;
  client: Client;
  intervalMs: number;
  timeoutMs: number;
  logger: Logger;
  /** Whether this generation still runs (pings stop when it does not). */
  running: () => boolean;
  /** A remote server that cannot be reached at all any more: its crash, not a missed ping. */
  lost: (error: unknown) => boolean;
  /** A remote server: pinged out of turn when its transport reports an error (the client's onerror). */
  remote?: boolean;
}

/** Pings the child every interval while it runs; undefined when pings are off (interval 0). */
export function startPinging(options: PingOptions): Pinging | undefined {
  const { name, client, logger: log } = options;
  if (options.intervalMs <= 0) return undefined;
  let lastSent = 0;
  const ping: Pinging = {
    lastOk: Date.now(),
    missed: 0,
    inFlight: false,
    timer: setInterval(() => tick(), options.intervalMs).unref(),
    soon: () => {
      if (Date.now() - lastSent >= SOON_INTERVAL_MS) tick();
    },
  };
  const tick = () => {
    if (!options.running()) return clearInterval(ping.timer);
    if (ping.inFlight) return;
    ping.inFlight = true;
    lastSent = Date.now();
    const asked = { timeout: options.timeoutMs };
    (client.getProtocolEra() === 'modern' ? client.discover(asked) : client.ping(asked))
      .then(
        () => {
          if (ping.missed > 0) log.info(`[${name}] answers pings again after ${ping.missed} missed`);
          ping.lastOk = Date.now();
          ping.missed = 0;
        },
        (error: unknown) => {
          if (options.lost(error)) return;
          ping.missed++;
          if (options.running())
            log.warn(`[${name}] missed a ping (${ping.missed} in a row): ${messageOf(error)}`);
        },
      )
      .finally(() => (ping.inFlight = false));
  };
  if (options.remote) {
    const logError = client.onerror;
    client.onerror = (error) => {
      logError?.(error);
      ping.soon();
    };
  }
  return ping;
}
