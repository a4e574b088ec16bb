// The SDK's auth() for one server. A server of the 2025-03-26 revision (no protected-resource
// metadata) is its own authorization server, and some publish metadata whose issuer names a
// path of that same origin: the issuer check is relaxed for that case alone, and said so once.
import type {
  AuthOptions,
  AuthResult,
  IssuerMismatchError,
  OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { clientSdk } from '../protocol/client-sdk.js';
import type { Logger } from '../common/log.js';
import { isSameOriginIssuerMismatch } from './auth-answers.js';

export function sdkAuth(
  provider: OAuthClientProvider,
  server: { serverUrl: string; serverName: string; log: Logger },
): (options: AuthOptions) => Promise<AuthResult> {
  /** Whether this server's own origin was found to publish metadata naming another issuer path. */
  let sameOriginIssuer = false;
  return async (options) => {
    const sdk = await clientSdk();
    const relaxed = { ...options, ...(sameOriginIssuer && { skipIssuerMetadataValidation: true }) };
    try {
      return await sdk.auth(provider, relaxed);
    } catch (error) {
      if (sameOriginIssuer || !isSameOriginIssuerMismatch(sdk, error, server.serverUrl)) throw error;
      sameOriginIssuer = true;
      const { expected, received } = error as IssuerMismatchError;
      server.log.warn(
        `[${server.serverName}] its authorization metadata names issuer ${received}, not ${expected}; accepted because both are the server's own origin`,
      );
      return sdk.auth(provider, { ...options, skipIssuerMetadataValidation: true });
    }
  };
}
