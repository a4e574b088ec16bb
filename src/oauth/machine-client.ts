// The OAuth client of a remote server when that client is a machine ("grant_type":
// "client_credentials", SEP-1046): it asks the authorization server for tokens itself,
// proving who it is with its secret (client_secret_basic or client_secret_post, whichever the
// server takes) or with an assertion its private key signs (private_key_jwt, RFC 7523). No
// person, browser or loopback redirect: a sandboxed agent or a CI job can use such a server,
// and a token refused or expired is simply asked for again. Tokens and discovery are kept
// as for a person's sign-in (credential-store.ts).
import { createPrivateKey } from 'node:crypto';
import type { AddClientAuthentication, OAuthClientMetadata } from '@modelcontextprotocol/client';
import { clientSdk } from '../child/client-sdk.js';
import { MuxOAuthProvider } from './oauth-provider.js';

export class MachineOAuthProvider extends MuxOAuthProvider {
  /** No redirect: the SDK's auth() then runs its non-interactive flow (prepareTokenRequest). */
  override get redirectUrl(): undefined {
    return undefined;
  }

  override get clientMetadata(): OAuthClientMetadata {
    const { scopes, privateKey } = this.settings;
    return {
      client_name: 'mcpmux',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: privateKey !== undefined ? 'private_key_jwt' : 'client_secret_basic',
      ...(scopes && scopes.length > 0 && { scope: scopes.join(' ') }),
    };
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  /** With a private key, the token request carries an assertion it signs (the SDK signs it, with jose). */
  get addClientAuthentication(): AddClientAuthentication | undefined {
    const { privateKey, clientId, signingAlgorithm } = this.settings;
    if (privateKey === undefined || clientId === undefined) return undefined;
    return async (headers, params, url, metadata) => {
      const sign = (await clientSdk()).createPrivateKeyJwtAuth({
        issuer: clientId,
        subject: clientId,
        privateKey,
        alg: signingAlgorithm ?? usualAlgorithm(privateKey),
      });
      await sign(headers, params, url, metadata);
    };
  }
}

/** The JWS algorithm a key of its type usually signs with (RFC 7518): RS256, ES256/384/512, EdDSA. */
export function usualAlgorithm(pem: string): string {
  const key = createPrivateKey(pem);
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RS256';
    case 'rsa-pss':
      return 'PS256';
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
    }
    default:
      return 'EdDSA';
  }
}
