// The door of mcpmux's HTTP endpoint, checked before any handler sees a request. A page in
// the user's browser can reach a loopback port through DNS rebinding (its own name made to
// resolve to 127.0.0.1), so the Host and Origin a browser sends must name this machine
// (the SDK's validators, port-agnostic); then the bearer token, when one is set, compared
// in constant time. A refusal says what to change and is logged without the token.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { hostname as machineName, networkInterfaces } from 'node:os';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { LOOPBACK_NAMES, hostnameOf, isLoopbackHost } from './host-names.js';

export interface HttpGuardOptions {
  /** The address mcpmux is bound to: loopback, one address, or a wildcard (0.0.0.0, ::). */
  bindHost: string;
  /** --allowed-host: more Host names to accept (a reverse proxy's public name). */
  allowedHosts?: readonly string[];
  /** --allowed-origin: more browser origins to accept, as a hostname or a full origin (https://app.example.com). */
  allowedOrigins?: readonly string[];
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  authToken?: string | undefined;
}

export type GuardVerdict =
  { ok: true } | { ok: false; status: 401 | 403; message: string; headers?: Record<string, string> };

export class HttpGuard {
  readonly #hosts: readonly string[];
  readonly #originHosts: readonly string[];
  /** Allowed origins given in full (scheme, host and port must all match). */
  readonly #fullOrigins: ReadonlySet<string>;
  readonly #tokenDigest: Buffer | undefined;

  constructor(options: HttpGuardOptions) {
    const extraHosts = (options.allowedHosts ?? []).map(hostnameOf);
    this.#hosts = [...new Set([...LOOPBACK_NAMES, ...ownNames(options.bindHost), ...extraHosts])];
    const origins = options.allowedOrigins ?? [];
    this.#fullOrigins = new Set(origins.filter((o) => o.includes('://')).map((o) => new URL(o).origin));
    this.#originHosts = [
      ...new Set([...this.#hosts, ...origins.filter((o) => !o.includes('://')).map(hostnameOf)]),
    ];
    this.#tokenDigest = options.authToken === undefined ? undefined : digest(options.authToken);
  }

  /** The Host names accepted (for the start-up log and error messages). */
  get allowedHosts(): readonly string[] {
    return this.#hosts;
  }

  check(headers: IncomingHttpHeaders): GuardVerdict {
    const host = validateHostHeader(headers.host, [...this.#hosts]);
    if (!host.ok) {
      return {
        ok: false,
        status: 403,
        message: `${host.message}: mcpmux answers only to ${this.#hosts.join(', ')} (widen it with --allowed-host NAME)`,
      };
    }
    const origin = headers.origin;
    if (origin !== undefined && !this.#fullOrigins.has(origin)) {
      const verdict = validateOriginHeader(origin, [...this.#originHosts]);
      if (!verdict.ok) {
        return {
          ok: false,
          status: 403,
          message: `${verdict.message}: a browser page of another site may not use mcpmux (allow it with --allowed-origin ORIGIN)`,
        };
      }
    }
    if (this.#tokenDigest === undefined) return { ok: true };
    const given = headers.authorization;
    // The scheme's name is case-insensitive (RFC 9110, 11.1); the token is not. Digests of
    // equal length: the compare takes the same time whatever was sent.
    const bearer = given === undefined ? undefined : /^bearer +(\S+) *$/i.exec(given)?.[1];
    if (bearer !== undefined && timingSafeEqual(digest(bearer), this.#tokenDigest)) return { ok: true };
    return {
      ok: false,
      status: 401,
      message:
        given === undefined
          ? 'missing bearer token (send Authorization: Bearer <token>)'
          : 'wrong bearer token',
      headers: { 'WWW-Authenticate': 'Bearer realm="mcpmux"' },
    };
  }
}

/** The names a request to this bind address may carry besides loopback: the address itself, or every address of the machine for a wildcard. */
function ownNames(bindHost: string): string[] {
  if (isLoopbackHost(bindHost)) return [hostnameOf(bindHost)];
  if (bindHost !== '0.0.0.0' && bindHost !== '::') return [hostnameOf(bindHost)];
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return [machineName().toLowerCase(), ...addresses.map(hostnameOf)];
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
