// Whether a server that refused mcpmux (HTTP 401) offers an OAuth sign-in, and what to tell
// the person when it does not, or when its entry turned sign-in off ("oauth": false). A
// Bearer challenge is the MCP authorization flow's signal (RFC 6750, RFC 9728); without one,
// metadata where discovery looks is; without either, the server wants a token of its own.
import type { FetchLike } from '@modelcontextprotocol/client';
import { clientSdk, type ClientSdk } from '../protocol/client-sdk.js';
import { MuxError } from '../common/errors.js';
import { needsSignIn } from './auth-answers.js';

/** The schemes a WWW-Authenticate header names (`Basic realm="x", Bearer` → Basic, Bearer). */
export function challengeSchemes(header: string | null): string[] {
  if (!header) return [];
  // A scheme is a token at the start or after a comma, followed by a space or the end (not "=").
  return [...header.matchAll(/(?:^|,)\s*([A-Za-z][\w!#$%&'*+.^`|~-]*)(?=\s|,|$)(?!\s*=)/g)].map((m) => m[1]!);
}

/** A 401's challenge or metadata names an OAuth authorization server for it. */
export async function offersSignIn(sdk: ClientSdk, response: Response, serverUrl: string): Promise<boolean> {
  const schemes = challengeSchemes(response.headers.get('www-authenticate')).map((s) => s.toLowerCase());
  if (schemes.includes('bearer') || schemes.includes('dpop')) return true;
  // No challenge of OAuth's: metadata at the places discovery reads (RFC 9728, then RFC 8414 at
  // the origin, as 2025-03-26 servers publish it). Each is a GET that fails fast when absent.
  const bounded: FetchLike = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(5000) });
  const found = await Promise.all([
    sdk.discoverOAuthProtectedResourceMetadata(serverUrl, {}, bounded).then(
      () => true,
      () => false,
    ),
    sdk
      .discoverAuthorizationServerMetadata(new URL(serverUrl).origin, { fetchFn: bounded })
      .then((metadata) => metadata !== undefined)
      .catch(() => false),
  ]);
  return found.some(Boolean);
}

/**
 * The header a server that offers no sign-in probably wants, as an entry's "headers" value:
 * the scheme it names (Basic, Token…), else a header its answer names (X-API-Key…), else a bearer token.
 */
export function likelyHeader(response: Response, body: string): string {
  const [scheme] = challengeSchemes(response.headers.get('www-authenticate'));
  if (scheme?.toLowerCase() === 'basic') return '{"Authorization": "Basic ${BASE64_USER_COLON_PASSWORD}"}';
  if (scheme) return `{"Authorization": "${scheme} \${TOKEN}"}`;
  const named = /\b(x-[a-z0-9-]*(?:key|token|auth)[a-z0-9-]*)\b/i.exec(body)?.[1];
  if (named) return `{"${named}": "\${API_KEY}"}`;
  return '{"Authorization": "Bearer ${TOKEN}"}';
}

/** What is wrong when a server answered 401 and no sign-in is to be tried; `offered`: it offers one. */
export async function unauthorizedError(
  response: Response,
  serverUrl: string,
  offered: boolean,
): Promise<MuxError> {
  if (offered)
    return new MuxError(
      'AUTH_REQUIRED',
      `${serverUrl} wants a sign-in (HTTP ${response.status} with an OAuth challenge), and its entry has "oauth": false: remove "oauth": false to sign in, or give a token in "headers"`,
    );
  const body = await response.text().catch(() => '');
  const challenge = response.headers.get('www-authenticate');
  return new MuxError(
    'AUTH_REQUIRED',
    `${serverUrl} answered HTTP ${response.status} (${challenge ? `challenge "${challenge.slice(0, 120)}"` : 'no WWW-Authenticate challenge'}) and offers no OAuth sign-in: it probably wants a token or key in a header; give it in the entry's "headers", e.g. ${likelyHeader(response, body)}`,
  );
}

/**
 * A server's answers to requests sent with no sign-in (an entry with "oauth": false, or
 * without "oauth" until its server asks): it passes them on, and of a 401 (or a 403 asking
 * for scope) judges whether to sign in, or fails it saying what to do. A refusal of a server
 * that let mcpmux in before (a header's token that expired) is passed on as it is (http-refusal.ts).
 */
export class UnsignedAnswers {
  readonly #serverUrl: string;
  readonly #signInOff: boolean;
  /** The server has answered a request without a sign-in. */
  #letIn = false;

  constructor(serverUrl: string, signInOff: boolean) {
    this.#serverUrl = serverUrl;
    this.#signInOff = signInOff;
  }

  /** 'answer': pass `response` on; 'sign-in': the server offers one, to be made; else throws what to do. */
  async judge(response: Response): Promise<'answer' | 'sign-in'> {
    if (response.status !== 401 && response.status !== 403) {
      this.#letIn ||= response.ok;
      return 'answer';
    }
    const sdk = await clientSdk();
    if (!needsSignIn(sdk, response)) return 'answer';
    const offered = await offersSignIn(sdk, response, this.#serverUrl);
    if (offered && !this.#signInOff) return 'sign-in';
    if (!offered && this.#letIn) return 'answer';
    throw await unauthorizedError(response, this.#serverUrl, offered);
  }
}

/** fetch for an entry with "oauth": false. */
export function fetchWithoutSignIn(serverUrl: string, inner: FetchLike = fetch): FetchLike {
  const answers = new UnsignedAnswers(serverUrl, true);
  return async (input, init) => {
    const response = await inner(input, init);
    await answers.judge(response);
    return response;
  };
}
