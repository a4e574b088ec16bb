// Signing in to one remote server, under its HTTP requests. Every request carries the
// access token kept for the server; a 401, or a 403 that asks for more scope, starts a
// sign-in (the SDK's auth(): discovery, registration, PKCE, the token exchange), the person
// is sent to the authorization URL, mcpmux waits on its loopback redirect for the code,
// and the request is sent again with the new token. A token about to expire is refreshed
// first. A machine client (client credentials, a workload's token) gets its tokens itself,
// with no person (machine-client.ts). Tokens bound to mcpmux's key (DPoP, dpop-key.ts) go
// with a proof. The rest of mcpmux sees a server that answers, or an AUTH_* error that says why.
import { telemetry } from '../common/telemetry.js';
import type { AuthOptions, AuthResult, FetchLike } from '@modelcontextprotocol/client';
import { clientSdk } from '../protocol/client-sdk.js';
import { MuxError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { OAuthSettings } from './oauth-settings.js';
import { CredentialStore, oauthStateDir } from './credential-store.js';
import { IdpSession } from './idp-session.js';
import { LoopbackRedirect, authorizationCodeOf } from './loopback-redirect.js';
import { MachineOAuthProvider } from './machine-client.js';
import { MuxOAuthProvider } from './oauth-provider.js';
import { withSignInLock, type HeldSignInLock } from './sign-in-lock.js';
import { nearsItsEnd } from './token-life.js';
import { challengeOf, hintFor, needsSignIn } from './auth-answers.js';
import { sdkAuth } from './sdk-auth.js';
import { UnsignedAnswers } from './sign-in-offer.js';

/** How long mcpmux waits for the person to finish signing in. */
const SIGN_IN_WAIT_MS = 5 * 60_000;

export interface ServerSignInOptions {
  serverName: string;
  serverUrl: string;
  settings: OAuthSettings;
  log: Logger;
  /** Sends the person to the authorization URL (send-to-sign-in.ts by default). */
  sendToSignIn: (url: URL, why: string) => void | Promise<void>;
  /** Where credentials are kept (default: oauthStateDir()). */
  stateDir?: string;
  waitMs?: number;
  /**
   * The entry gave no "oauth": requests go as they are until the server refuses one with an
   * OAuth challenge or metadata (or tokens are kept for it); one that offers no sign-in fails
   * the request with the header it probably wants (sign-in-offer.ts).
   */
  implicit?: boolean;
}

export class ServerSignIn {
  readonly #options: ServerSignInOptions;
  readonly #provider: MuxOAuthProvider;
  readonly #store: CredentialStore;
  #redirect: LoopbackRedirect | undefined;
  /** The sign-in under way: requests that need one wait for it rather than start another. */
  #signingIn: Promise<boolean> | undefined;
  /** The authorization URL while mcpmux waits for the person (list_servers shows it). */
  #pendingUrl: string | undefined;
  /** Why a sign-in is needed, said with its URL. */
  #why = 'not signed in yet';
  readonly #onPending = new Set<(url: string) => void>();
  readonly #onSignedIn = new Set<(url: string) => void>();
  /** The SDK's auth(), for this server's provider. */
  readonly #auth: (options: AuthOptions) => Promise<AuthResult>;
  /** fetch that presents DPoP-bound tokens (oauth-provider.ts's dpop()). */
  #dpopFetch: FetchLike | undefined;
  /** The lock across processes, while this one holds it: told where the person was sent. */
  #heldLock: HeldSignInLock | undefined;
  /** Requests carry kept tokens and refresh them: always, but for an implicit sign-in not yet asked for. */
  #engaged: boolean;
  /** Until then: the answers to requests sent with no sign-in. */
  readonly #unsigned: UnsignedAnswers;

  constructor(options: ServerSignInOptions) {
    this.#options = options;
    this.#store = new CredentialStore(options.serverUrl, options.stateDir ?? oauthStateDir());
    this.#engaged = !options.implicit || this.#store.read().tokens !== undefined;
    this.#unsigned = new UnsignedAnswers(options.serverUrl, false);
    const machine = options.settings.grantType !== undefined;
    const sendToSignIn = async (url: URL) => {
      this.#pending(url);
      await options.sendToSignIn(url, this.#why);
    };
    const { idp } = options.settings;
    // A person of an organisation whose ID token no SSO agent keeps: mcpmux signs them in there.
    const idpSession =
      idp && idp.idTokenFile === undefined
        ? new IdpSession({
            idp,
            stateDir: options.stateDir ?? oauthStateDir(),
            redirect: async () => (this.#redirect ??= await this.#listen()),
            sendToSignIn: (url) => {
              this.#why = `not signed in to the identity provider ${idp.issuer} yet, or no longer`;
              return sendToSignIn(url);
            },
            // Another server of the organisation sent the person there: this one shows it too.
            waiting: (url) => {
              this.#why = `not signed in to the identity provider ${idp.issuer} yet (another server's sign-in)`;
              this.#pending(url);
            },
            waitMs: options.waitMs ?? SIGN_IN_WAIT_MS,
            log: options.log,
          })
        : undefined;
    this.#provider = new (machine ? MachineOAuthProvider : MuxOAuthProvider)({
      settings: options.settings,
      store: this.#store,
      redirectUrl: () => {
        if (!this.#redirect) throw new Error('the OAuth redirect listener is not started');
        return this.#redirect.url;
      },
      sendToSignIn,
      ...(idpSession && { idpSession }),
    });
    this.#auth = sdkAuth(this.#provider, options);
  }

  /** The person is to visit `url`: list_servers shows it, and the processes that wait on this one's lock. */
  #pending(url: URL): void {
    this.#pendingUrl = url.href;
    this.#heldLock?.sentTo(url);
    for (const listener of this.#onPending) listener(url.href);
  }

  /** The authorization URL the person has yet to visit, while mcpmux waits for them. */
  get pendingUrl(): string | undefined {
    return this.#pendingUrl;
  }

  /** Why the pending sign-in is needed. */
  get pendingReason(): string | undefined {
    return this.#pendingUrl === undefined ? undefined : this.#why;
  }

  /** Calls `listener` each time a sign-in starts waiting for the person; returns how to stop. */
  onPending(listener: (url: string) => void): () => void {
    this.#onPending.add(listener);
    return () => this.#onPending.delete(listener);
  }

  /** Calls `listener` with the URL the person was sent to, each time signing in there succeeded. */
  onSignedIn(listener: (url: string) => void): () => void {
    this.#onSignedIn.add(listener);
    return () => this.#onSignedIn.delete(listener);
  }

  /** Resolves when a sign-in is waiting for the person (at once if one is). */
  whenPending(): Promise<void> {
    if (this.#pendingUrl !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const stop = this.onPending(() => {
        stop();
        resolve();
      });
    });
  }

  /** Stops waiting for the person (they declined): the sign-in fails with `why`. */
  abandon(why: string): void {
    this.#redirect?.abandon(new MuxError('AUTH_REQUIRED', why));
  }

  /** Whether tokens are kept for the server. */
  get signedIn(): boolean {
    return this.#provider.tokens() !== undefined;
  }

  /** fetch for the server's transport: tokens on every request, a sign-in when it is refused. */
  readonly fetch: FetchLike = async (input, init) => {
    // The SDK's client is loaded with the first child (an empty mcpmux does not hold it).
    const sdk = await clientSdk();
    const signal = init?.signal ?? undefined;
    let sent: string | undefined;
    let response: Response;
    if (this.#engaged) {
      await this.#signingIn?.catch(() => {});
      await this.#refreshIfExpiring(signal);
      sent = this.#provider.tokens()?.access_token;
      response = await this.#send(input, init);
    } else {
      response = await fetch(input, init);
      if ((await this.#unsigned.judge(response)) === 'answer') return response;
      const { serverUrl, serverName, log } = this.#options;
      log.info(
        `[${serverName}] ${serverUrl} asks for a sign-in (HTTP ${response.status}): signing in with OAuth`,
      );
      this.#engaged = true;
    }
    if (!needsSignIn(sdk, response)) return response;
    // One sign-in per request: a server that refuses a fresh token again is not asked forever.
    let signedInHere = await this.#signIn(response, signal, sent);
    response = await this.#send(input, init);
    if (needsSignIn(sdk, response) && !signedInHere) {
      // Another process's sign-in was used, and refused here (a scope it did not ask for): this one's own.
      const refused = this.#provider.tokens()?.access_token;
      signedInHere = await this.#signIn(response, signal, refused);
      response = await this.#send(input, init);
    }
    if (needsSignIn(sdk, response))
      throw new MuxError(
        'AUTH_FAILED',
        `${this.#options.serverUrl} refused the token it just issued (HTTP ${response.status}${challengeOf(sdk, response)})`,
      );
    return response;
  };

  /**
   * The loopback redirect: on the configured port, else on the one used last time (a client
   * registered for it stays valid), else on any free port.
   */
  async #listen(): Promise<LoopbackRedirect> {
    const configured = this.#options.settings.redirectPort;
    if (configured !== undefined) return LoopbackRedirect.listen(configured);
    const last = this.#store.read().redirectPort;
    const redirect =
      (last !== undefined && (await LoopbackRedirect.listen(last).catch(() => undefined))) ||
      (await LoopbackRedirect.listen(0));
    const port = Number(new URL(redirect.url).port);
    if (port !== last) this.#store.update((stored) => ({ ...stored, redirectPort: port }));
    return redirect;
  }

  async close(): Promise<void> {
    const redirect = this.#redirect;
    this.#redirect = undefined;
    await redirect?.close();
  }

  async #send(input: string | URL, init: RequestInit | undefined): Promise<Response> {
    const headers = new Headers(init?.headers);
    const tokens = this.#provider.tokens();
    if (tokens?.token_type?.toLowerCase() === 'dpop') {
      // The SDK's DPoP fetch: the DPoP scheme, a proof for this request, a nonce it is asked for.
      this.#dpopFetch ??= (await clientSdk()).withDpopFromProvider(this.#provider)(fetch);
      return this.#dpopFetch(input, { ...init, headers });
    }
    if (tokens) headers.set('Authorization', `Bearer ${tokens.access_token}`);
    return fetch(input, { ...init, headers });
  }

  /**
   * `sent`: the access token the refused request carried. Resolves true when this process
   * signed in, false when another one's newer tokens are to be tried first.
   */
  #signIn(refused: Response, signal: AbortSignal | undefined, sent: string | undefined): Promise<boolean> {
    this.#signingIn ??= this.#acrossProcesses(signal, async () => {
      // Another mcpmux process signed in while this one waited: its tokens are tried first.
      const kept = this.#provider.tokens()?.access_token;
      if (kept !== undefined && kept !== sent) return false;
      await this.#runSignIn(refused, signal);
      return true;
    }).finally(() => (this.#signingIn = undefined));
    return this.#signingIn;
  }

  /**
   * `work` while no other mcpmux process signs in to this server or renews its tokens
   * (sign-in-lock.ts). While another's sign-in waits for the person, this one shows where
   * they were sent (and stops holding its client's first lists back), but sends no one.
   */
  #acrossProcesses<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    const { serverName, log, waitMs } = this.#options;
    let othersUrl: string | undefined;
    const stopShowing = () => {
      if (othersUrl !== undefined && this.#pendingUrl === othersUrl) this.#pendingUrl = undefined;
    };
    const onOthersSignIn = (url: URL, pid: number) => {
      othersUrl = url.href;
      this.#why = `another mcpmux process (pid ${pid}) waits for this sign-in; this one uses what it keeps`;
      log.warn(`[${serverName}] ${this.#why}: ${url.href}`);
      this.#pending(url);
    };
    const maxHoldMs = (waitMs ?? SIGN_IN_WAIT_MS) + 60_000;
    return withSignInLock(
      `${this.#store.path}.lock`,
      async (lock) => {
        stopShowing();
        this.#heldLock = lock;
        try {
          return await work();
        } finally {
          this.#heldLock = undefined;
        }
      },
      { maxHoldMs, signal, onOthersSignIn },
    ).finally(stopShowing);
  }

  async #runSignIn(refused: Response, signal: AbortSignal | undefined): Promise<void> {
    const { resourceMetadataUrl, scope: challenged } = (await clientSdk()).extractWWWAuthenticateParams(
      refused,
    );
    const granted = this.#provider.tokens()?.scope;
    const configured = this.#options.settings.scopes?.join(' ');
    // Keep what was granted and add what is asked for (SEP-2350).
    const scope = union(configured ?? granted, challenged);
    const signedIn = this.signedIn;
    this.#why =
      refused.status === 403
        ? `the server asks for more scope (${challenged ?? 'unnamed'})`
        : signedIn
          ? 'the kept sign-in was refused or could not be renewed (revoked or expired)'
          : 'not signed in yet';
    // A refresh cannot widen the scope: a step-up needs the person again.
    if (refused.status === 403) this.#provider.invalidateCredentials('tokens');
    // A token refused that was accepted before: the server may have moved to another
    // authorization server, which only its metadata, read afresh, names (SEP-2352).
    else if (signedIn) this.#provider.invalidateCredentials('discovery');
    const authorize = () => this.#authorize({ resourceMetadataUrl, scope }, signal);
    await (telemetry.enabled
      ? telemetry.internal(
          `sign_in ${this.#options.serverName}`,
          { 'mcpmux.server.name': this.#options.serverName, 'mcpmux.sign_in.reason': this.#why },
          authorize,
        )
      : authorize());
  }

  async #refreshIfExpiring(signal: AbortSignal | undefined): Promise<void> {
    if (!this.#expiring()) return;
    this.#why = 'the kept sign-in could not be renewed (its refresh was refused)';
    this.#signingIn ??= this.#acrossProcesses(signal, async () => {
      // Another mcpmux process may have renewed them while this one waited.
      if (!this.#expiring()) return false;
      await this.#authorize({}, signal);
      return true;
    }).finally(() => (this.#signingIn = undefined));
    await this.#signingIn;
  }

  /** The kept tokens near their end, and can be renewed without the person. */
  #expiring(): boolean {
    const life = this.#provider.tokensLife();
    if (!life || !nearsItsEnd(life.savedAt, life.expiresAt)) return false;
    // A machine client asks for a new token; a person's needs a refresh token.
    return (
      this.#provider.tokens()?.refresh_token !== undefined || this.#provider instanceof MachineOAuthProvider
    );
  }

  /** auth() with a refresh token, or else with the person: waits for the redirect's code. */
  async #authorize(
    { resourceMetadataUrl, scope }: { resourceMetadataUrl?: URL | undefined; scope?: string | undefined },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { serverUrl, serverName, log } = this.#options;
    // A person comes back through the loopback redirect; a machine client needs none.
    const redirect =
      this.#provider instanceof MachineOAuthProvider ? undefined : (this.#redirect ??= await this.#listen());
    const base = {
      serverUrl,
      ...(resourceMetadataUrl && { resourceMetadataUrl }),
      ...(scope !== undefined && { scope }),
      fetchFn: fetch,
    };
    let result: AuthResult;
    /** Where the person was sent, if they were (here or at their identity provider). */
    let sentTo: string | undefined;
    try {
      result = await this.#auth(base);
      if (result === 'REDIRECT' && redirect) {
        log.info(`[${serverName}] waiting for the sign-in at ${this.#pendingUrl}`);
        const query = await redirect.next(signal, this.#options.waitMs ?? SIGN_IN_WAIT_MS);
        const { code, iss } = authorizationCodeOf(
          query,
          this.#provider.expectedState,
          'the authorization server',
        );
        result = await this.#auth({ ...base, authorizationCode: code, ...(iss !== undefined && { iss }) });
      }
      sentTo = this.#pendingUrl;
    } catch (error) {
      if (error instanceof MuxError) throw error;
      // An entry without "oauth" may be a server that takes a token and answers 401 with a bare Bearer challenge.
      const orHeaders = this.#options.implicit
        ? '; if the server takes a token instead of a sign-in, give it in the entry\'s "headers" (e.g. {"Authorization": "Bearer ${TOKEN}"}) and set "oauth": false'
        : '';
      const why = `signing in to ${serverUrl} failed: ${messageOf(error)}${await hintFor(error, this.#options.settings)}${orHeaders}`;
      throw new MuxError('AUTH_FAILED', why, { cause: error });
    } finally {
      this.#pendingUrl = undefined;
    }
    if (result !== 'AUTHORIZED')
      throw new MuxError('AUTH_FAILED', `signing in to ${serverUrl} did not complete (${result})`);
    log.info(`[${serverName}] signed in`);
    if (sentTo !== undefined) for (const listener of this.#onSignedIn) listener(sentTo);
  }
}

function union(...scopes: (string | undefined)[]): string | undefined {
  const all = new Set(scopes.flatMap((s) => s?.split(' ') ?? []).filter(Boolean));
  return all.size > 0 ? [...all].join(' ') : undefined;
}
