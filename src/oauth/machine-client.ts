// The OAuth client of a remote server when that client is a machine: it asks the
// authorization server for tokens itself, with no person, browser or loopback redirect, so a
// sandboxed agent or a CI job can use such a server, and a token refused or expired is simply
// asked for again. Two grants:
// - client_credentials (SEP-1046), proving who it is with its secret (client_secret_basic or
//   client_secret_post, whichever the server takes) or with an assertion its private key signs
//   (private_key_jwt, RFC 7523);
// - jwt_bearer (RFC 7523 §2.1, SEP-1933's workload identity federation): the token its
//   platform issued the workload (a Kubernetes projected service-account token, a cloud's
//   federated token file) is the grant; the file is read for each request, as it rotates.
//   Or, for a person in an organisation that manages access centrally, the grant its
//   identity provider issues for their ID token (SEP-990, enterprise-grant.ts).
// Tokens and discovery are kept as for a person's sign-in (credential-store.ts).
import { createPrivateKey } from 'node:crypto';
import type { AddClientAuthentication, OAuthClientMetadata } from '@modelcontextprotocol/client';
import { clientSdk } from '../protocol/client-sdk.js';
import { MuxError } from '../common/errors.js';
import { enterpriseGrant } from './enterprise-grant.js';
import { MuxOAuthProvider } from './oauth-provider.js';
import { tokenInFile } from './token-file.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

export class MachineOAuthProvider extends MuxOAuthProvider {
  #issuer: string | undefined;
  #resource: string | undefined;

  /** No redirect: the SDK's auth() then runs its non-interactive flow (prepareTokenRequest). */
  override get redirectUrl(): undefined {
    return undefined;
  }

  override get clientMetadata(): OAuthClientMetadata {
    const { scopes, privateKey, clientSecret, grantType } = this.settings;
    return {
      client_name: 'mcpmux',
      redirect_uris: [],
      grant_types: [grantType === 'jwt_bearer' ? JWT_BEARER : 'client_credentials'],
      token_endpoint_auth_method:
        privateKey !== undefined
          ? 'private_key_jwt'
          : clientSecret !== undefined
            ? 'client_secret_basic'
            : 'none',
      ...(scopes && scopes.length > 0 && { scope: scopes.join(' ') }),
    };
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const params =
      this.settings.grantType === 'jwt_bearer'
        ? new URLSearchParams({ grant_type: JWT_BEARER, assertion: await this.#assertion(scope) })
        : new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  /** jwt_bearer's grant: the workload's token, or one the person's identity provider issues. */
  async #assertion(scope: string | undefined): Promise<string> {
    const { assertionFile, idp } = this.settings;
    if (idp === undefined) return tokenInFile(assertionFile!, 'oauth.assertion_file', 'the workload token');
    if (this.#resource === undefined || this.#issuer === undefined)
      throw new MuxError(
        'AUTH_FAILED',
        'the server publishes no protected-resource metadata (RFC 9728), which a grant from an identity provider names',
      );
    return enterpriseGrant(idp, { audience: this.#issuer, resource: this.#resource, scope }, this.idpSession);
  }

  // What the SDK's auth() found in discovery: a grant from an identity provider names both.
  saveAuthorizationServerUrl(issuer: string): void {
    this.#issuer = issuer;
  }
  saveResourceUrl(resource: string): void {
    this.#resource = resource;
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
