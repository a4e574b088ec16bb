// The OAuth client of one remote server, as the SDK's auth() drives it (discovery, dynamic
// registration or a client given in the config, PKCE, token exchange and refresh): where
// it keeps what it learns (credential-store.ts) and how it sends a person to sign in.
import { randomBytes } from 'node:crypto';
import type {
  DpopSession,
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthSettings } from './oauth-settings.js';
import type { CredentialStore } from './credential-store.js';
import { dpopAlgorithm, dpopSessionFor } from './dpop-key.js';
import type { IdpSession } from './idp-session.js';

export interface MuxOAuthProviderOptions {
  settings: OAuthSettings;
  store: CredentialStore;
  /** The loopback redirect URI in use (the listener is started before auth() runs). */
  redirectUrl: () => string;
  /** Sends the person to sign in: opens a browser, prints the URL, asks the client. */
  sendToSignIn: (url: URL) => void | Promise<void>;
  /** The person's session at their organisation's identity provider (oauth.idp with no id_token_file). */
  idpSession?: IdpSession;
}

export class MuxOAuthProvider implements OAuthClientProvider {
  readonly #options: MuxOAuthProviderOptions;
  #verifier: string | undefined;
  #state: string | undefined;
  /** One DPoP session for the provider's life: its key, and the nonces servers gave it. */
  #dpop: { alg: string; session: Promise<DpopSession> } | undefined;

  /** A client ID metadata document's URL: the client's ID where the server supports them. */
  readonly clientMetadataUrl?: string;

  constructor(options: MuxOAuthProviderOptions) {
    this.#options = options;
    if (options.settings.clientMetadataUrl !== undefined)
      this.clientMetadataUrl = options.settings.clientMetadataUrl;
  }

  get redirectUrl(): string | undefined {
    return this.#options.redirectUrl();
  }

  protected get settings(): OAuthSettings {
    return this.#options.settings;
  }

  protected get idpSession(): IdpSession | undefined {
    return this.#options.idpSession;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { scopes, clientSecret } = this.#options.settings;
    return {
      client_name: 'mcpmux',
      redirect_uris: [this.#options.redirectUrl()],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: clientSecret !== undefined ? 'client_secret_basic' : 'none',
      ...(scopes && scopes.length > 0 && { scope: scopes.join(' ') }),
      // A command-line program with a loopback redirect: a native application (SEP-837).
      application_type: 'native',
    } as OAuthClientMetadata;
  }

  /** The value the authorization redirect must carry back (checked before the code is used). */
  state(): string {
    this.#state = randomBytes(16).toString('base64url');
    return this.#state;
  }

  get expectedState(): string | undefined {
    return this.#state;
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    const { clientId, clientSecret } = this.#options.settings;
    // A client registered beforehand is the client, bound to the authorization server it
    // was first used with (the SDK then refuses to send it to another, SEP-2352).
    if (clientId !== undefined) {
      let issuer = this.#options.store.read().configuredClientIssuers?.[clientId];
      if (issuer === undefined && ctx) {
        issuer = ctx.issuer;
        this.#bindConfiguredClient(clientId, issuer);
      }
      return {
        client_id: clientId,
        ...(clientSecret !== undefined && { client_secret: clientSecret }),
        ...(issuer !== undefined && { issuer }),
      };
    }
    if (!ctx) return undefined;
    const stored = this.#options.store.read().clients?.[ctx.issuer];
    // Registered for another redirect URI (another port): register again.
    const uris = (stored as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (stored && uris && !uris.includes(this.#options.redirectUrl())) return undefined;
    return stored;
  }

  saveClientInformation(info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): void {
    const { clientId } = this.#options.settings;
    if (clientId !== undefined) {
      // The SDK stamps a configured client with the issuer of its first use: only that is kept (never its secret).
      if (info.client_id === clientId && info.issuer !== undefined)
        this.#bindConfiguredClient(clientId, info.issuer);
      return;
    }
    if (!ctx) return;
    this.#options.store.update((stored) => ({
      ...stored,
      clients: { ...stored.clients, [ctx.issuer]: info },
    }));
  }

  #bindConfiguredClient(clientId: string, issuer: string): void {
    this.#options.store.update((stored) => ({
      ...stored,
      configuredClientIssuers: { ...stored.configuredClientIssuers, [clientId]: issuer },
    }));
  }

  /** The kept tokens; asked for one authorization server's, none issued by another (it moved). */
  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    const { tokens, tokensIssuer } = this.#options.store.read();
    if (ctx && tokensIssuer !== undefined && tokensIssuer !== ctx.issuer) return undefined;
    return tokens;
  }

  saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): void {
    this.#options.store.update((stored) => {
      const next = { ...stored, tokens, savedAt: Date.now() };
      if (ctx) next.tokensIssuer = ctx.issuer;
      else delete next.tokensIssuer;
      return next;
    });
  }

  /** When the kept access token was saved and expires (ms since the epoch), if the server said. */
  tokensLife(): { savedAt: number; expiresAt: number } | undefined {
    const { tokens, savedAt } = this.#options.store.read();
    return tokens?.expires_in !== undefined && savedAt !== undefined
      ? { savedAt, expiresAt: savedAt + tokens.expires_in * 1000 }
      : undefined;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    await this.#options.sendToSignIn(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no sign-in is under way (no PKCE verifier)');
    return this.#verifier;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.#options.store.update((stored) => ({ ...stored, discovery }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#options.store.read().discovery;
  }

  /**
   * DPoP (dpop-key.ts): with an authorization server that advertises it, and while the kept
   * tokens are bound to the kept key; otherwise (or with "dpop": false) none: bearer tokens.
   */
  dpop(): Promise<DpopSession> | undefined {
    if (this.#options.settings.dpop === false) return undefined;
    const { tokens, dpopKey, discovery } = this.#options.store.read();
    const bound = tokens?.token_type?.toLowerCase() === 'dpop';
    const metadata = discovery?.authorizationServerMetadata as Record<string, unknown> | undefined;
    const alg = dpopAlgorithm(bound ? [dpopKey?.alg] : metadata?.['dpop_signing_alg_values_supported']);
    if (alg === undefined) return undefined;
    if (this.#dpop?.alg !== alg) {
      const session = dpopSessionFor(this.#options.store, alg);
      this.#dpop = { alg, session };
      session.catch(() => (this.#dpop = undefined)); // tried again on the next request
    }
    return this.#dpop.session;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return;
    }
    if (scope === 'all') this.#dpop = undefined;
    this.#options.store.update((stored) => {
      const next = { ...stored };
      if (scope === 'all' || scope === 'tokens') {
        delete next.tokens;
        delete next.savedAt;
        delete next.tokensIssuer;
      }
      if (scope === 'all' || scope === 'client') delete next.clients;
      if (scope === 'all') delete next.configuredClientIssuers;
      if (scope === 'all') delete next.dpopKey;
      if (scope === 'all' || scope === 'discovery') delete next.discovery;
      return next;
    });
  }
}
