// A remote server's session can end on the server's side: it restarted behind a balancer, or
// it expired the session. Its answer to the session's next request is then HTTP 404, and MCP
// says a client MUST start a new session. Before, mcpmux kept sending the dead session's id,
// and every call failed ("Error POSTing to endpoint … Session not found") while the server
// was listed as running. Now the connection opens a new session as a reload would (the
// catalog stays listed, calls wait), and a request that met the 404, which the server did
// not run, goes again under the new session, once. A server whose new session ends again at
// once is not renewed in a loop: that is its crash, and reload_server is for a person to try.
import { SdkHttpError } from '@modelcontextprotocol/server';
import type { Logger } from '../../common/log.js';
import type { Generation } from '../generation.js';
import { delay } from '../../common/delay.js';

/** A session that ends within this long of being opened is not opened again by itself. */
export const RENEWAL_QUIET_MS = 10_000;

/**
 * How long the requests still out under an ended session are waited for before the new one
 * is opened: each gets its own 404 at once and goes again, rather than be ended by the reload.
 * (A call the server was running when it dropped the session cannot be answered under it.)
 */
export const RENEWAL_SETTLE_MS = 2_000;

export interface SessionRenewalHost {
  name: string;
  url: string;
  log: Logger;
  /** Whether `gen` is the connection's current generation. */
  current: (gen: Generation) => boolean;
  /** Calls that arrive while `renewal` runs wait for it. */
  hold: (renewal: Promise<void>) => void;
  /** Opens the new session (a reload of the connection); settles when it is open or could not be. */
  renew: () => Promise<void>;
  /** The server is lost, for this reason (its crash). */
  lose: (gen: Generation, why: string) => void;
}

export class SessionRenewal {
  readonly #host: SessionRenewalHost;
  #renewedAt = -Infinity;

  constructor(host: SessionRenewalHost) {
    this.#host = host;
  }

  /**
   * Whether `error` says `gen`'s session ended. If it does, a new session is being opened
   * (the caller waits for the hold and may send its request again), or the server is lost.
   */
  ended(gen: Generation, error: unknown, now = Date.now()): boolean {
    if (!this.#host.current(gen) || !sessionEnded(gen, error)) return false;
    if (gen.sessionEnded) return true; // decided for this generation already
    gen.sessionEnded = true;
    if (now - this.#renewedAt < RENEWAL_QUIET_MS) {
      this.#host.lose(
        gen,
        `its sessions at ${this.#host.url} end at once (HTTP 404 to the new session's requests)`,
      );
      return true;
    }
    this.#renewedAt = now;
    this.#host.log.warn(`server '${this.#host.name}' ended mcpmux's session (HTTP 404); opening a new one`);
    // Calls wait from now: any sent meanwhile meets the same 404.
    this.#host.hold(this.#renew(gen));
    return true;
  }

  async #renew(gen: Generation): Promise<void> {
    const until = Date.now() + RENEWAL_SETTLE_MS;
    while (gen.requests > 0 && Date.now() < until) await delay(20);
    await this.#host.renew();
  }
}

/**
 * Whether `error` is a streamable HTTP server's "no such session": a 404 to a request that
 * carried a session id. (A 2026-07-28 server has no sessions: its 404 means an unknown method.)
 */
export function sessionEnded(gen: Generation, error: unknown): boolean {
  if (gen.remote !== 'streamable-http' || !(error instanceof SdkHttpError) || error.status !== 404)
    return false;
  const client = gen.client;
  if (!client || client.getProtocolEra() === 'modern') return false;
  return (client.transport as { sessionId?: string } | undefined)?.sessionId !== undefined;
}
