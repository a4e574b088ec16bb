// DPoP's key: the algorithm chosen from what an authorization server offers, RFC 7638's
// thumbprint, the key kept on disk and read back as the same key, and when the provider
// uses DPoP at all. Real files in a temporary folder; proofs checked with node:crypto.
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CredentialStore } from '../../src/oauth/credential-store.js';
import { dpopAlgorithm, dpopSessionFor, jwkThumbprint } from '../../src/oauth/dpop-key.js';
import { MuxOAuthProvider } from '../../src/oauth/oauth-provider.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpmux-dpop-unit-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let stores = 0;
const newStore = () => new CredentialStore(`https://mcp${++stores}.example.com/mcp`, dir);

t.test('the algorithm: the first mcpmux prefers of those offered; none offered, no DPoP', async (t) => {
  t.equal(dpopAlgorithm(['RS256', 'ES256']), 'ES256');
  t.equal(dpopAlgorithm(['RS256', 'EdDSA']), 'EdDSA');
  t.equal(dpopAlgorithm(['RS256', 'PS256']), 'PS256');
  t.equal(dpopAlgorithm(['HS256', 'none']), undefined, 'symmetric or none: not usable (RFC 9449 §11.6)');
  t.equal(dpopAlgorithm([]), undefined);
  t.equal(dpopAlgorithm(undefined), undefined);
  t.equal(dpopAlgorithm('ES256'), undefined, 'not a list');
});

t.test("RFC 7638's thumbprint, on the RFC's own example key", async (t) => {
  const jwk = {
    kty: 'RSA',
    n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
    e: 'AQAB',
    alg: 'RS256',
    kid: '2011-04-29',
  };
  t.equal(jwkThumbprint(jwk), 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
});

/** Checks a proof's signature against the public key it carries. */
function verifies(proof: string): boolean {
  const [head, claims, signature] = proof.split('.') as [string, string, string];
  const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg: string; jwk: object };
  const key = createPublicKey({ key: header.jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
  const digest = header.alg === 'EdDSA' ? null : 'sha256';
  return verify(
    digest,
    Buffer.from(`${head}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
}

for (const alg of ['ES256', 'RS256', 'EdDSA'] as const)
  t.test(`${alg}: a new key is kept, and read back as the same key`, async (t) => {
    const store = newStore();
    const first = await dpopSessionFor(store, alg);
    t.equal(store.read().dpopKey?.alg, alg);
    t.ok(store.read().dpopKey?.jwk.d, 'the private key is kept (0600, beside the tokens it binds)');
    const again = await dpopSessionFor(store, alg);
    t.equal(again.thumbprint, first.thumbprint, 'the same key');
    t.equal(again.thumbprint, jwkThumbprint(again.publicJwk));
    t.notOk('d' in again.publicJwk, 'the proof carries the public key alone');
    const proof = await again.buildProof({ htm: 'POST', htu: 'https://mcp.example.com/mcp?x=1' });
    t.ok(verifies(proof), 'the key read back signs proofs its public key verifies');
  });

t.test('a key of another algorithm is replaced', async (t) => {
  const store = newStore();
  const es = await dpopSessionFor(store, 'ES256');
  const ed = await dpopSessionFor(store, 'EdDSA');
  t.not(ed.thumbprint, es.thumbprint);
  t.equal(store.read().dpopKey?.alg, 'EdDSA');
});

t.test(
  'the provider: DPoP where the authorization server offers it, or while the tokens are bound',
  async (t) => {
    const store = newStore();
    const provider = new MuxOAuthProvider({
      settings: {},
      store,
      redirectUrl: () => 'http://127.0.0.1:5000/callback',
      sendToSignIn: () => {},
    });
    const discovery = (offered?: string[]) =>
      provider.saveDiscoveryState({
        authorizationServerUrl: 'https://auth.example.com',
        authorizationServerMetadata: {
          issuer: 'https://auth.example.com',
          authorization_endpoint: 'https://auth.example.com/authorize',
          token_endpoint: 'https://auth.example.com/token',
          response_types_supported: ['code'],
          ...(offered && { dpop_signing_alg_values_supported: offered }),
        },
      });
    discovery();
    t.equal(provider.dpop(), undefined, 'not offered: bearer tokens');
    discovery(['ES256']);
    const session = await provider.dpop();
    t.equal(session?.alg, 'ES256');
    t.equal(await provider.dpop(), session, 'one session (its nonces) for the provider');

    provider.saveTokens({ access_token: 'a', token_type: 'DPoP' });
    discovery();
    t.equal(await provider.dpop(), session, 'bound tokens keep their key though the offer is gone');
    provider.saveTokens({ access_token: 'b', token_type: 'Bearer' });
    t.equal(provider.dpop(), undefined);

    provider.invalidateCredentials('all');
    t.equal(store.read().dpopKey, undefined, 'forgetting everything forgets the key');

    const off = new MuxOAuthProvider({
      settings: { dpop: false },
      store,
      redirectUrl: () => 'http://127.0.0.1:5000/callback',
      sendToSignIn: () => {},
    });
    discovery(['ES256']);
    t.equal(off.dpop(), undefined, '"dpop": false: bearer tokens though it is offered');
  },
);
