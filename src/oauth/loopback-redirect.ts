// Where the browser comes back after the person signed in: an HTTP listener on 127.0.0.1
// (RFC 8252's loopback redirect for native apps) that takes the authorization server's
// redirect to /callback once, answers the browser with a short page, and hands the query
// (code, state, iss, or error) to the flow that waits for it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MuxError } from '../common/errors.js';

const PAGE = (message: string) =>
  `<!doctype html><meta charset="utf-8"><title>mcpmux</title><p>${message}</p>`;

export class LoopbackRedirect {
  readonly #server: Server;
  #waiting: { resolve: (query: URLSearchParams) => void; reject: (error: Error) => void } | undefined;

  private constructor(server: Server) {
    this.#server = server;
    server.on('request', (request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      const waiting = this.#waiting;
      this.#waiting = undefined;
      const failed = url.searchParams.get('error');
      response
        .writeHead(waiting ? 200 : 409, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          PAGE(
            !waiting
              ? 'mcpmux was not waiting for a sign-in here; start it again from mcpmux.'
              : failed
                ? 'Sign-in was refused. You can close this window.'
                : 'Signed in: mcpmux has what it needs. You can close this window.',
          ),
        );
      waiting?.resolve(url.searchParams);
    });
  }

  /** Listens on 127.0.0.1:`port` (0: any free port). */
  static async listen(port = 0): Promise<LoopbackRedirect> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new MuxError(
            'INVALID_ARGUMENTS',
            error.code === 'EADDRINUSE'
              ? `the OAuth redirect port ${port} is in use; free it or set another oauth.redirect_port`
              : `cannot listen for the OAuth redirect on 127.0.0.1:${port}: ${error.message}`,
          ),
        ),
      );
      server.listen(port, '127.0.0.1', () => resolve());
    });
    // Waiting for a person must never keep mcpmux alive on its own.
    server.unref();
    return new LoopbackRedirect(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/callback`;
  }

  /** The query of the next redirect; rejects when `signal` aborts or `timeoutMs` passes. */
  next(signal: AbortSignal | undefined, timeoutMs: number): Promise<URLSearchParams> {
    this.#waiting?.reject(new Error('a newer sign-in replaced this one'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => done(new MuxError('AUTH_REQUIRED', `no sign-in within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
      const onAbort = () => done(new MuxError('AUTH_REQUIRED', 'the sign-in was abandoned'));
      const done = (error?: Error, query?: URLSearchParams) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiting = undefined;
        if (error) reject(error);
        else resolve(query!);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting = { resolve: (query) => done(undefined, query), reject: (error) => done(error) };
    });
  }

  /** Fails the wait under way, if any, with `error`. */
  abandon(error: Error): void {
    this.#waiting?.reject(error);
  }

  async close(): Promise<void> {
    this.#waiting?.reject(new Error('the sign-in listener closed'));
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * The authorization code a sign-in redirect carried back, with its issuer (RFC 9207) when
 * given; fails with what went wrong: the server refused (its error code alone is reported:
 * its description is its own words), another sign-in's state, or no code.
 */
export function authorizationCodeOf(
  query: URLSearchParams,
  expectedState: string | undefined,
  refusedBy: string,
): { code: string; iss?: string } {
  const error = query.get('error');
  if (error) throw new MuxError('AUTH_FAILED', `sign-in refused by ${refusedBy}: ${error}`);
  if (query.get('state') !== expectedState)
    throw new MuxError('AUTH_FAILED', 'the sign-in redirect did not carry the state mcpmux sent');
  const code = query.get('code');
  if (!code) throw new MuxError('AUTH_FAILED', 'the sign-in redirect carried no authorization code');
  const iss = query.get('iss');
  return { code, ...(iss !== null && { iss }) };
}
