// Enterprise-managed authorization (SEP-990, the MCP extension
// io.modelcontextprotocol/enterprise-managed-authorization): in an organisation whose people
// sign in once to its identity provider (Okta, Entra ID…), that provider decides which MCP
// servers they may use. mcpmux presents the person's ID token to the provider (RFC 8693 token
// exchange) and gets back a short-lived grant for one server's authorization server (an
// ID-JAG, RFC 7523's JWT), which that server then exchanges for an access token: no consent
// screen per server, and access ends when the organisation says so.
import { clientSdk } from '../protocol/client-sdk.js';
import { MuxError, messageOf } from '../common/errors.js';
import type { IdpSession } from './idp-session.js';
import type { EnterpriseIdp } from './oauth-settings.js';
import { tokenInFile } from './token-file.js';

export interface GrantRequest {
  /** The authorization server the grant is for (its issuer: the ID-JAG's audience). */
  readonly audience: string;
  /** The MCP server's resource identifier. */
  readonly resource: string;
  readonly scope?: string | undefined;
}

/**
 * A grant from the identity provider for `request`, to present as a jwt_bearer assertion, for
 * the ID token in the configured file, or else the one kept by the person's `session` there
 * (which, refused, is renewed or signed in again once).
 */
export async function enterpriseGrant(
  idp: EnterpriseIdp,
  request: GrantRequest,
  session: IdpSession | undefined,
): Promise<string> {
  const file = idp.idTokenFile;
  if (file !== undefined) {
    const idToken = tokenInFile(file, 'oauth.idp.id_token_file', "the person's ID token");
    return exchange(idp, request, idToken, `the ID token in ${file}`);
  }
  // server-sign-in.ts gives every idp without a file the person's session there.
  if (session === undefined) throw new Error('oauth.idp has neither id_token_file nor a session');
  try {
    return await exchange(idp, request, await session.idToken(), 'the kept ID token');
  } catch (error) {
    if (!(error instanceof IdTokenRefused)) throw error;
    session.forgetIdToken();
    return exchange(idp, request, await session.idToken(), 'the ID token of a new sign-in');
  }
}

/** The identity provider refused the ID token itself (expired, revoked, another client's). */
class IdTokenRefused extends MuxError {}

/** RFC 8693's token exchange at the provider: the ID token for an ID-JAG. */
async function exchange(
  idp: EnterpriseIdp,
  request: GrantRequest,
  idToken: string,
  whose: string,
): Promise<string> {
  try {
    const sdk = await clientSdk();
    const exchange = {
      audience: request.audience,
      resource: request.resource,
      idToken,
      clientId: idp.clientId,
      ...(idp.clientSecret !== undefined && { clientSecret: idp.clientSecret }),
      ...(request.scope !== undefined && { scope: request.scope }),
    };
    const { jwtAuthGrant } =
      idp.tokenEndpoint === undefined
        ? await sdk.discoverAndRequestJwtAuthGrant({ idpUrl: idp.issuer, ...exchange })
        : await sdk.requestJwtAuthorizationGrant({ tokenEndpoint: idp.tokenEndpoint, ...exchange });
    return jwtAuthGrant;
  } catch (error) {
    const message = messageOf(error);
    const why = `the identity provider ${idp.issuer} gave no grant for ${request.resource} (${message})`;
    if (/invalid_grant/.test(message))
      throw new IdTokenRefused(
        'AUTH_FAILED',
        `${why}: ${whose} was refused (expired, or issued for another client than ${idp.clientId}); sign in to ${idp.issuer} again`,
      );
    const hint = /invalid_client|unauthorized_client/.test(message)
      ? ': check oauth.idp.client_id and client_secret'
      : '';
    throw new MuxError('AUTH_FAILED', `${why}${hint}`);
  }
}
