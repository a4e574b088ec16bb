// DPoP (RFC 9449, SEP-1932): tokens bound to a key of mcpmux's, so that a token copied from a
// log or a disk is of no use without that key. mcpmux uses it with an authorization server
// that advertises it (dpop_signing_alg_values_supported), and keeps using it while the tokens
// it holds are DPoP-bound. The key is kept beside the tokens it binds (credential-store.ts,
// 0600): a refresh token bound to a key that a restart lost would need the person again.
import { createHash, type webcrypto } from 'node:crypto';
import type { DpopAlg, DpopKeyPair, DpopSession } from '@modelcontextprotocol/client';
import { clientSdk } from '../protocol/client-sdk.js';
import type { CredentialStore, JWK } from './credential-store.js';

/** How Web Crypto imports a private key of each algorithm the SDK signs proofs with. */
const IMPORT_PARAMS: Record<
  DpopAlg,
  webcrypto.AlgorithmIdentifier | webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams
> = {
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  ES384: { name: 'ECDSA', namedCurve: 'P-384' },
  ES512: { name: 'ECDSA', namedCurve: 'P-521' },
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  RS384: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' },
  RS512: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' },
  PS256: { name: 'RSA-PSS', hash: 'SHA-256' },
  PS384: { name: 'RSA-PSS', hash: 'SHA-384' },
  PS512: { name: 'RSA-PSS', hash: 'SHA-512' },
  EdDSA: { name: 'Ed25519' },
};
/** Small keys and fast signatures first (ES256 is what authorization servers most often take). */
const PREFERENCE: readonly DpopAlg[] = [
  'ES256',
  'EdDSA',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
];

/** The algorithm to sign proofs with, from what an authorization server advertises; none: no DPoP. */
export function dpopAlgorithm(advertised: unknown): DpopAlg | undefined {
  if (!Array.isArray(advertised)) return undefined;
  return PREFERENCE.find((alg) => advertised.includes(alg));
}

/** The public members of a JWK, in the order RFC 7638's thumbprint hashes them. */
function publicMembers(jwk: JWK): JWK {
  switch (jwk.kty) {
    case 'RSA':
      return { e: jwk.e, kty: jwk.kty, n: jwk.n } as JWK;
    case 'OKP':
      return { crv: jwk.crv, kty: jwk.kty, x: jwk.x } as JWK;
    default:
      return { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } as JWK;
  }
}

/** RFC 7638's SHA-256 thumbprint: what an authorization server binds a token to (cnf.jkt). */
export function jwkThumbprint(jwk: JWK): string {
  return createHash('sha256')
    .update(JSON.stringify(publicMembers(jwk)))
    .digest('base64url');
}

/** A session on the kept key when it signs with `alg`; else on a new key, kept for next time. */
export async function dpopSessionFor(store: CredentialStore, alg: DpopAlg): Promise<DpopSession> {
  const sdk = await clientSdk();
  const kept = store.read().dpopKey;
  if (kept?.alg === alg) {
    const params = IMPORT_PARAMS[alg];
    const publicJwk = publicMembers(kept.jwk);
    const keyPair: DpopKeyPair = {
      privateKey: await crypto.subtle.importKey('jwk', kept.jwk as webcrypto.JsonWebKey, params, false, [
        'sign',
      ]),
      publicKey: await crypto.subtle.importKey('jwk', publicJwk as webcrypto.JsonWebKey, params, true, [
        'verify',
      ]),
      publicJwk,
      thumbprint: jwkThumbprint(publicJwk),
      alg,
    };
    return sdk.DpopSession.create({ keyPair });
  }
  const keyPair = await sdk.generateDpopKeyPair({ alg, extractable: true });
  const jwk = (await crypto.subtle.exportKey('jwk', keyPair.privateKey)) as JWK;
  store.update((credentials) => ({ ...credentials, dpopKey: { alg, jwk } }));
  return sdk.DpopSession.create({ keyPair });
}
