// A remote server's "oauth" block: how mcpmux is known to the server's authorization server
// and how it gets tokens (a person's sign-in, or a machine's grant), as add_server and the
// config give it. Validated here, once; the oauth/ modules that use it trust the type.
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';

export type MachineGrant = 'client_credentials' | 'jwt_bearer';
/** RFC 7523's name for jwt_bearer, accepted as written. */
const JWT_BEARER_URN = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** A remote server's OAuth client settings; all optional (dynamic registration by default). */
export interface OAuthSettings {
  /**
   * A machine client, which gets its tokens itself with no person and no browser:
   * client_credentials with its id and its secret or private key (SEP-1046), jwt_bearer with a
   * workload token its platform issues (RFC 7523, SEP-1933). Absent: a person signs in
   * (authorization code).
   */
  readonly grantType?: MachineGrant;
  /** jwt_bearer: the file holding the workload's token, read again for each token asked for (it rotates). */
  readonly assertionFile?: string;
  /** A PEM private key that signs the client's assertions (private_key_jwt; a secret: never echoed). */
  readonly privateKey?: string;
  /** Its JWS algorithm (RS256, ES256, EdDSA…); absent: the key type's usual one. */
  readonly signingAlgorithm?: string;
  /** A client registered beforehand with the authorization server (no dynamic registration). */
  readonly clientId?: string;
  /** Its secret, for a confidential client (a secret: never echoed). */
  readonly clientSecret?: string;
  /** A client ID metadata document's URL (the client's ID where the server supports them). */
  readonly clientMetadataUrl?: string;
  /** Scopes to ask for; absent: what the server's challenge or metadata says. */
  readonly scopes?: readonly string[];
  /** The loopback port the browser is sent back to; absent: any free port. */
  readonly redirectPort?: number;
  /** false: bearer tokens even where the authorization server offers DPoP (dpop-key.ts). */
  readonly dpop?: false;
  /** jwt_bearer with the grant an enterprise's identity provider issues for a person (SEP-990). */
  readonly idp?: EnterpriseIdp;
}

/**
 * Enterprise-managed authorization: the person's ID token from their organisation's identity
 * provider is exchanged there (RFC 8693) for a grant to this server's authorization server
 * (an ID-JAG), which mcpmux then presents as its jwt_bearer assertion (enterprise-grant.ts).
 */
export interface EnterpriseIdp {
  /** The identity provider's issuer URL; its token endpoint is discovered from it. */
  readonly issuer: string;
  /** Its token endpoint, given rather than discovered. */
  readonly tokenEndpoint?: string;
  /** mcpmux's client at the identity provider. */
  readonly clientId: string;
  /** Its secret there, for a confidential client (a secret: never echoed). */
  readonly clientSecret?: string;
  /**
   * The file holding the person's ID token (an SSO agent keeps it fresh), read for each grant;
   * absent: mcpmux signs the person in to the provider itself (idp-session.ts).
   */
  readonly idTokenFile?: string;
}

// Field names say what they are: the fields cost every client's context (add_server's schema).
const idpField = z
  .object({
    issuer: z.string().min(1),
    token_endpoint: z.string().min(1).optional(),
    client_id: z.string().min(1),
    client_secret: z.string().min(1).optional(),
    id_token_file: z.string().min(1).optional(),
  })
  .strict();

export const oauthField = z
  .object({
    grant_type: z
      .enum(['authorization_code', 'client_credentials', 'jwt_bearer', JWT_BEARER_URN])
      .optional()
      .describe(
        'A machine client, no browser: client_credentials (client_secret or private_key) or jwt_bearer (assertion_file).',
      ),
    assertion_file: z.string().min(1).optional().describe("jwt_bearer: the workload token's file."),
    client_id: z
      .string()
      .min(1)
      .optional()
      .describe('A client registered beforehand (skips dynamic registration).'),
    client_secret: z
      .string()
      .min(1)
      .optional()
      .describe('Its secret, for a confidential client; ${VAR} works.'),
    private_key: z
      .string()
      .min(1)
      .optional()
      .describe('PEM private key signing the client assertion (private_key_jwt).'),
    signing_algorithm: z
      .string()
      .min(1)
      .optional()
      .describe("private_key's JWS algorithm. Default: from the key type."),
    client_metadata_url: z
      .url({ protocol: /^https?$/, error: 'client_metadata_url must be an http(s) URL' })
      .optional()
      .describe("A client ID metadata document's URL, used as the client ID where the server supports it."),
    scopes: z
      .array(z.string().min(1))
      .optional()
      .describe('Scopes to ask for. Default: what the server asks.'),
    redirect_port: z
      .number()
      .int()
      .min(1, 'redirect_port must be a port number (1–65535)')
      .max(65_535, 'redirect_port must be a port number (1–65535)')
      .optional()
      .describe(
        'The loopback port of the redirect URI (http://127.0.0.1:PORT/callback). Default: any free port.',
      ),
    dpop: z.boolean().optional().describe('false: no DPoP.'),
    idp: idpField
      .optional()
      .describe("The person's identity provider grants access (SEP-990); no id_token_file: mcpmux signs in."),
  })
  .strict();

/** What does not fit together in an oauth block: a machine client needs its credentials, a person's none of them. */
export function oauthProblem(wire: z.infer<typeof oauthField>): string | undefined {
  const grant = machineGrant(wire);
  if (wire.assertion_file !== undefined && grant !== 'jwt_bearer')
    return 'oauth.assertion_file applies to "grant_type": "jwt_bearer"';
  if (wire.idp !== undefined && grant !== 'jwt_bearer')
    return 'oauth.idp applies to "grant_type": "jwt_bearer" (the grant the identity provider issues)';
  if (wire.idp !== undefined && wire.assertion_file !== undefined)
    return "oauth: give one of assertion_file (a workload's token) and idp (a person's, through an identity provider), not both";
  const urlProblem =
    wire.idp &&
    (idpUrlProblem(wire.idp.issuer, 'issuer') ??
      (wire.idp.token_endpoint === undefined
        ? undefined
        : idpUrlProblem(wire.idp.token_endpoint, 'token_endpoint')));
  if (urlProblem) return urlProblem;
  if (grant === undefined) {
    return wire.private_key !== undefined || wire.signing_algorithm !== undefined
      ? 'oauth.private_key and oauth.signing_algorithm apply to a machine client ("grant_type": "client_credentials" or "jwt_bearer")'
      : undefined;
  }
  if (wire.client_id === undefined)
    return `oauth with "grant_type": "${grant}" needs the client_id the authorization server knows this client by`;
  if (grant === 'jwt_bearer' && wire.assertion_file === undefined && wire.idp === undefined)
    return 'oauth with "grant_type": "jwt_bearer" needs assertion_file: the file the platform writes the workload\'s token to (e.g. "${AZURE_FEDERATED_TOKEN_FILE}", a Kubernetes projected token); or idp, an identity provider that issues the grant for a person';
  if (wire.client_secret !== undefined && wire.private_key !== undefined)
    return 'oauth: give one of client_secret and private_key, not both';
  if (grant === 'client_credentials' && wire.client_secret === undefined && wire.private_key === undefined)
    return 'oauth with "grant_type": "client_credentials" needs one of client_secret and private_key';
  if (wire.signing_algorithm !== undefined && wire.private_key === undefined)
    return 'oauth.signing_algorithm applies to a private_key';
  if (wire.private_key !== undefined) {
    try {
      createPrivateKey(wire.private_key);
    } catch (error) {
      return `oauth.private_key is not a private key in PEM ("-----BEGIN PRIVATE KEY-----…"): ${(error as Error).message}`;
    }
  }
  return undefined;
}

/**
 * The machine grant an oauth block names, RFC 7523's URN read as jwt_bearer, and an idp's
 * implied; none for a person's sign-in in the browser.
 */
function machineGrant(wire: z.infer<typeof oauthField>): MachineGrant | undefined {
  const grant = wire.grant_type ?? (wire.idp && 'jwt_bearer');
  if (grant === JWT_BEARER_URN) return 'jwt_bearer';
  return grant === 'authorization_code' ? undefined : grant;
}

/** An identity provider's URLs are https (http only on this machine, for a test IdP). */
function idpUrlProblem(value: string, field: 'issuer' | 'token_endpoint'): string | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const loopback = url && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url?.protocol === 'https:' || (url?.protocol === 'http:' && loopback)) return undefined;
  return `oauth.idp.${field} '${value}' is not an https URL (e.g. https://acme.okta.com${field === 'issuer' ? '' : '/oauth2/v1/token'})`;
}

export function oauthSettings(wire: z.infer<typeof oauthField>): OAuthSettings {
  const grantType = machineGrant(wire);
  return {
    ...(grantType !== undefined && { grantType }),
    ...(wire.assertion_file !== undefined && { assertionFile: wire.assertion_file }),
    ...(wire.private_key !== undefined && { privateKey: wire.private_key }),
    ...(wire.signing_algorithm !== undefined && { signingAlgorithm: wire.signing_algorithm }),
    ...(wire.client_id !== undefined && { clientId: wire.client_id }),
    ...(wire.client_secret !== undefined && { clientSecret: wire.client_secret }),
    ...(wire.client_metadata_url !== undefined && { clientMetadataUrl: wire.client_metadata_url }),
    ...(wire.scopes !== undefined && { scopes: wire.scopes }),
    ...(wire.redirect_port !== undefined && { redirectPort: wire.redirect_port }),
    ...(wire.dpop === false && { dpop: false }),
    ...(wire.idp !== undefined && {
      idp: {
        issuer: wire.idp.issuer,
        ...(wire.idp.token_endpoint !== undefined && { tokenEndpoint: wire.idp.token_endpoint }),
        clientId: wire.idp.client_id,
        ...(wire.idp.client_secret !== undefined && { clientSecret: wire.idp.client_secret }),
        ...(wire.idp.id_token_file !== undefined && { idTokenFile: wire.idp.id_token_file }),
      },
    }),
  };
}
