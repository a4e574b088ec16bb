// A person's session at their organisation's identity provider, for enterprise-managed
// authorization (enterprise-grant.ts) when no SSO agent keeps their ID token in a file:
// mcpmux signs them in itself (OpenID Connect: the authorization code with PKCE, through the
// loopback redirect, as for a server's own sign-in), keeps the ID token and the refresh
// token per provider and client rather than per server, so that one sign-in serves every
// server of the organisation, renews the ID token as it nears its end, and asks the person
// again only when renewing fails.
import { randomBytes } from 'node:crypto';
import type { AuthorizationServerMetadata, OAuthClientInformation } from '@modelcontextprotocol/client';
import { clientSdk } from '../protocol/client-sdk.js';
import { MuxError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import { CredentialStore } from './credential-store.js';
import { authorizationCodeOf, type LoopbackRedirect } from './loopback-redirect.js';
import type { EnterpriseIdp } from './oauth-settings.js';
import { withSignInLock } from './sign-in-lock.js';
import { nearsItsEnd } from './token-life.js';

/**
 * Sign-ins and renewals under way in this process, by the file of their session: the
 * organisation's servers starting together wait for one sign-in (the first one's) rather
 * than each send the person to the provider; each is told where the person was sent.
 */
const underWay = new Map<string, UnderWay>();

interface UnderWay {
  readonly token: Promise<string>;
  /** The provider's page the person was sent to, once they were. */
  sentTo?: URL;
  /** The waiting sessions' `waiting` callbacks. */
  readonly waiting: Set<(url: URL) => void>;
}

export interface IdpSessionOptions {
  idp: EnterpriseIdp;
  stateDir: string;
  /** The loopback redirect the provider sends the browser back to, started on first need. */
  redirect: () => Promise<LoopbackRedirect>;
  /** Sends the person to the provider's sign-in page (as for a server's sign-in). */
  sendToSignIn: (url: URL) => void | Promise<void>;
  /** Another server's sign-in sent the person to `url`; this one waits for it too. */
  waiting: (url: URL) => void;
  waitMs: number;
  log: Logger;
}

/** Where the session with `idp` is kept: one file per provider and client. */
export function idpSessionStore(idp: EnterpriseIdp, stateDir: string): CredentialStore {
  return new CredentialStore(`idp:${idp.issuer}#${idp.clientId}`, stateDir);
}

export class IdpSession {
  readonly #options: IdpSessionOptions;
  readonly #store: CredentialStore;

  constructor(options: IdpSessionOptions) {
    this.#options = options;
    this.#store = idpSessionStore(options.idp, options.stateDir);
  }

  /** The person's ID token: the kept one while it lasts, else renewed, else they sign in. */
  idToken(): Promise<string> {
    const kept = this.#store.read().tokens?.id_token;
    if (kept !== undefined && !nearingItsEnd(kept)) return Promise.resolve(kept);
    const key = this.#store.path;
    const shared = underWay.get(key);
    if (shared) {
      if (shared.sentTo) this.#options.waiting(shared.sentTo);
      else shared.waiting.add(this.#options.waiting);
      return shared.token;
    }
    const sent = (url: URL) => {
      own.sentTo = url;
      for (const waiting of own.waiting) waiting(url);
    };
    // One process at a time too (sign-in-lock.ts); one that waited uses what the other kept,
    // and shows where the other sent the person meanwhile.
    const renewed = withSignInLock(
      `${key}.lock`,
      async (lock) => {
        const keptMeanwhile = this.#store.read().tokens?.id_token;
        if (keptMeanwhile !== undefined && !nearingItsEnd(keptMeanwhile)) return keptMeanwhile;
        return this.#renewOrSignIn((url) => {
          lock.sentTo(url);
          sent(url);
        });
      },
      {
        maxHoldMs: this.#options.waitMs + 60_000,
        onOthersSignIn: (url, pid) => {
          const { idp, log } = this.#options;
          log.warn(
            `another mcpmux process (pid ${pid}) waits for the sign-in to ${idp.issuer}; this one uses what it keeps: ${url.href}`,
          );
          this.#options.waiting(url);
          sent(url);
        },
      },
    );
    const own: UnderWay = { token: renewed.finally(() => underWay.delete(key)), waiting: new Set() };
    underWay.set(key, own);
    return own.token;
  }

  /** The provider refused the kept ID token: the next idToken() renews it or asks the person. */
  forgetIdToken(): void {
    this.#store.update(({ tokens, ...rest }) =>
      tokens ? { ...rest, tokens: { ...tokens, id_token: undefined } } : rest,
    );
  }

  async #renewOrSignIn(sent: (url: URL) => void): Promise<string> {
    const { idp, log } = this.#options;
    const metadata = await this.#metadata();
    const refreshToken = this.#store.read().tokens?.refresh_token;
    if (refreshToken !== undefined) {
      try {
        const sdk = await clientSdk();
        const tokens = await sdk.refreshAuthorization(idp.issuer, {
          metadata,
          clientInformation: this.#client(),
          refreshToken,
        });
        if (tokens.id_token !== undefined) return this.#keep(tokens);
        log.info(`the identity provider ${idp.issuer} renewed the session without an ID token`);
      } catch (error) {
        log.info(`the identity provider ${idp.issuer} did not renew the session: ${messageOf(error)}`);
      }
    }
    return this.#signIn(metadata, sent);
  }

  async #signIn(metadata: AuthorizationServerMetadata, sent: (url: URL) => void): Promise<string> {
    const { idp, log } = this.#options;
    const sdk = await clientSdk();
    const redirect = await this.#options.redirect();
    const state = randomBytes(16).toString('base64url');
    // A refresh token where the provider gives one for the asking (OpenID's offline_access).
    const scope = metadata.scopes_supported?.includes('offline_access') ? 'openid offline_access' : 'openid';
    const { authorizationUrl, codeVerifier } = await sdk.startAuthorization(idp.issuer, {
      metadata,
      clientInformation: this.#client(),
      redirectUrl: redirect.url,
      scope,
      state,
    });
    // Waiting before the browser is sent, so that a quick return is not missed.
    const back = redirect.next(undefined, this.#options.waitMs);
    await this.#options.sendToSignIn(authorizationUrl);
    sent(authorizationUrl);
    log.info(`waiting for the sign-in to ${idp.issuer} at ${authorizationUrl.href}`);
    const { code, iss } = authorizationCodeOf(await back, state, 'the identity provider');
    const tokens = await sdk.exchangeAuthorization(idp.issuer, {
      metadata,
      clientInformation: this.#client(),
      authorizationCode: code,
      codeVerifier,
      redirectUri: redirect.url,
      ...(iss !== undefined && { iss }),
    });
    if (tokens.id_token === undefined)
      throw new MuxError(
        'AUTH_FAILED',
        `the identity provider ${idp.issuer} signed the person in but gave no ID token: oauth.idp.client_id must be an OpenID Connect client allowed the openid scope`,
      );
    log.info(`signed in to the identity provider ${idp.issuer}`);
    return this.#keep(tokens);
  }

  #keep(tokens: { id_token?: string | undefined; refresh_token?: string | undefined }): string {
    this.#store.update((stored) => ({
      ...stored,
      tokens: { ...stored.tokens, ...tokens } as NonNullable<typeof stored.tokens>,
      savedAt: Date.now(),
    }));
    return tokens.id_token!;
  }

  /** The provider's metadata (OpenID or RFC 8414), which names where to sign in and renew. */
  async #metadata(): Promise<AuthorizationServerMetadata> {
    const { idp } = this.#options;
    try {
      const metadata = await (await clientSdk()).discoverAuthorizationServerMetadata(idp.issuer);
      if (metadata) return metadata;
    } catch (error) {
      throw new MuxError(
        'AUTH_FAILED',
        `cannot read the identity provider's metadata at ${idp.issuer}: ${messageOf(error)}`,
      );
    }
    throw new MuxError(
      'AUTH_FAILED',
      `the identity provider ${idp.issuer} publishes no OpenID or OAuth metadata: check oauth.idp.issuer`,
    );
  }

  #client(): OAuthClientInformation {
    const { clientId, clientSecret } = this.#options.idp;
    return { client_id: clientId, ...(clientSecret !== undefined && { client_secret: clientSecret }) };
  }
}

/** Whether an ID token (a JWT) is due for renewal (token-life.ts); one without a readable expiry is used as is. */
function nearingItsEnd(idToken: string): boolean {
  try {
    const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString()) as {
      exp?: unknown;
      iat?: unknown;
    };
    if (typeof claims.exp !== 'number') return false;
    const issuedAt = typeof claims.iat === 'number' ? claims.iat * 1000 : -Infinity;
    return nearsItsEnd(issuedAt, claims.exp * 1000);
  } catch {
    return false;
  }
}
