// The OAuth provider's keeping: tokens bound to the issuer that gave them, clients keyed by
// issuer and redirect URI, a client given in the config bound to the issuer of its first
// use, and what invalidation forgets. Real files in a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CredentialStore, oauthStateDir } from '../../src/oauth/credential-store.js';
import { MuxOAuthProvider } from '../../src/oauth/oauth-provider.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpmux-oauth-unit-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const provider = (settings = {}, redirect = 'http://127.0.0.1:5000/callback') => {
  const store = new CredentialStore('https://mcp.example.com/mcp', dir);
  return {
    store,
    provider: new MuxOAuthProvider({ settings, store, redirectUrl: () => redirect, sendToSignIn: () => {} }),
  };
};
const issuerA = { issuer: 'https://auth-a.example.com' };
const issuerB = { issuer: 'https://auth-b.example.com' };

t.test('tokens are bound to the issuer that gave them', async (t) => {
  const { provider: p, store } = provider();
  p.saveTokens({ access_token: 'a1', token_type: 'Bearer', expires_in: 60 }, issuerA);
  t.equal(p.tokens()?.access_token, 'a1', 'for requests');
  t.equal(p.tokens(issuerA)?.access_token, 'a1', 'for its issuer');
  t.equal(p.tokens(issuerB), undefined, 'not for another authorization server (the server moved)');
  const life = p.tokensLife()!;
  t.equal(life.expiresAt - life.savedAt, 60_000);
  p.invalidateCredentials('tokens');
  t.equal(p.tokens(), undefined);
  t.same(Object.keys(store.read()).sort(), ['url'], 'nothing else was kept');
});

t.test('a registered client is kept per issuer, and dropped for another redirect URI', async (t) => {
  const { provider: p } = provider();
  const client = { client_id: 'dyn-1', redirect_uris: ['http://127.0.0.1:5000/callback'] };
  p.saveClientInformation(client, issuerA);
  t.same(p.clientInformation(issuerA), client);
  t.equal(p.clientInformation(issuerB), undefined, "another issuer's client is never shown");
  t.equal(p.clientInformation(), undefined, 'no issuer, no client');
  const { provider: elsewhere } = provider({}, 'http://127.0.0.1:6000/callback');
  t.equal(elsewhere.clientInformation(issuerA), undefined, 'registered for another port: register again');
  p.invalidateCredentials('client');
  t.equal(p.clientInformation(issuerA), undefined);
});

t.test('a client given in the config is never overwritten, and is bound to its first issuer', async (t) => {
  const { provider: p, store } = provider({ clientId: 'pre', clientSecret: 's' });
  t.same(p.clientInformation(), { client_id: 'pre', client_secret: 's' }, 'not bound before its first use');
  // Its first use with an authorization server binds it there (SEP-2352): only that is kept.
  t.same(p.clientInformation(issuerA), { client_id: 'pre', client_secret: 's', issuer: issuerA.issuer });
  t.same(store.read().configuredClientIssuers, { pre: issuerA.issuer }, 'no secret on disk');
  p.saveClientInformation({ client_id: 'other' }, issuerA);
  t.equal(store.read().clients, undefined, 'a registration is not saved over it');
  p.saveClientInformation({ client_id: 'pre', client_secret: 's', issuer: issuerB.issuer }, issuerB);
  t.same(store.read().configuredClientIssuers, { pre: issuerB.issuer }, "the SDK's own stamp is kept too");
  p.saveClientInformation({ client_id: 'pre', client_secret: 's', issuer: issuerA.issuer }, issuerA);
  t.same(p.clientInformation(issuerB), { client_id: 'pre', client_secret: 's', issuer: issuerA.issuer });
  t.same(
    provider({ clientId: 'renamed', clientSecret: 's' }).provider.clientInformation(issuerB),
    { client_id: 'renamed', client_secret: 's', issuer: issuerB.issuer },
    'another configured client is bound at its own first use',
  );
  p.invalidateCredentials('client');
  t.equal(store.read().configuredClientIssuers?.['pre'], issuerA.issuer, 'a refused secret keeps its issuer');
  p.invalidateCredentials('all');
  t.equal(store.read().configuredClientIssuers, undefined);
  t.match(p.clientMetadata, {
    token_endpoint_auth_method: 'client_secret_basic',
    application_type: 'native',
  });
  t.match(provider({ scopes: ['a', 'b'] }).provider.clientMetadata, {
    token_endpoint_auth_method: 'none',
    scope: 'a b',
    redirect_uris: ['http://127.0.0.1:5000/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
  });
});

t.test('PKCE verifier and state', async (t) => {
  const { provider: p } = provider();
  t.throws(() => p.codeVerifier(), /no sign-in is under way/);
  p.saveCodeVerifier('v');
  t.equal(p.codeVerifier(), 'v');
  p.invalidateCredentials('verifier');
  t.throws(() => p.codeVerifier());
  const state = p.state();
  t.match(state, /^[A-Za-z0-9_-]{20,}$/);
  t.equal(p.expectedState, state);
  t.not(p.state(), state, 'a new one each time');
});

t.test('where credentials are kept', async (t) => {
  t.equal(oauthStateDir({ XDG_STATE_HOME: '/x/state' }), '/x/state/mcpmux/oauth');
  t.equal(oauthStateDir({ HOME: '/home/u' }), '/home/u/.local/state/mcpmux/oauth');
  const store = new CredentialStore('https://one.example/mcp', dir);
  t.match(store.path, /\/[0-9a-f]{32}\.json$/);
  t.equal(store.remove(), false, 'nothing to remove');
  store.update((s) => ({ ...s, redirectPort: 1234 }));
  t.equal(
    new CredentialStore('https://two.example/mcp', dir).read().redirectPort,
    undefined,
    'one file per server',
  );
  t.equal(store.remove(), true);
});
