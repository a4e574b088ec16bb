// Reading what a protected server or its authorization server answered: whether a refusal
// asks for a sign-in, what it names, and what to check when the sign-in itself was refused.
import { clientSdk, type ClientSdk } from '../protocol/client-sdk.js';
import type { OAuthSettings } from './oauth-settings.js';

/** The issuer (RFC 8414 §3.3) check, relaxed only where the server's own origin is its authorization server. */
export function isSameOriginIssuerMismatch(sdk: ClientSdk, error: unknown, serverUrl: string): boolean {
  if (!(error instanceof sdk.IssuerMismatchError) || error.kind !== 'metadata') return false;
  const origin = new URL(serverUrl).origin;
  const originOf = (issuer: string | undefined) =>
    issuer && URL.canParse(issuer) ? new URL(issuer).origin : '';
  return originOf(error.expected) === origin && originOf(error.received) === origin;
}

/** What to check when the authorization server refused the client itself, or a jwt_bearer grant. */
export async function hintFor(error: unknown, settings: OAuthSettings): Promise<string> {
  const { OAuthError } = await clientSdk();
  if (!(error instanceof OAuthError)) return '';
  if (error.code === 'invalid_client')
    return ' (the authorization server does not accept this client: check oauth.client_id, and its client_secret or private_key)';
  if (error.code === 'invalid_grant' && settings.idp !== undefined)
    return ` (the authorization server refused the grant ${settings.idp.issuer} issued: check that it trusts that identity provider, and that the provider knows this server's client as ${settings.clientId})`;
  if (error.code === 'invalid_grant' && settings.grantType === 'jwt_bearer')
    return ` (the authorization server refused the workload token in ${settings.assertionFile}: check that it is current, that its audience is this authorization server, and that the server trusts its issuer)`;
  return '';
}

/** 401, or 403 asking for more scope: the server wants (another) sign-in. */
export function needsSignIn(sdk: ClientSdk, response: Response): boolean {
  if (response.status === 401) return true;
  return response.status === 403 && sdk.extractWWWAuthenticateParams(response).error === 'insufficient_scope';
}

/** The error a refusal's WWW-Authenticate names, as a suffix for a message. */
export function challengeOf(sdk: ClientSdk, response: Response): string {
  const { error } = sdk.extractWWWAuthenticateParams(response);
  return error ? `, ${error}` : '';
}
