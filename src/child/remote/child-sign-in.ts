// How a person is asked to sign in to a remote server (OAuth): the sign-in one connection
// keeps across its generations, with its ways to reach the person.
import { randomUUID } from 'node:crypto';
import { messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/log.js';
import type { OAuthSettings } from '../../oauth/oauth-settings.js';
import { ServerSignIn } from '../../oauth/server-sign-in.js';
import { sendToSignIn } from '../../oauth/send-to-sign-in.js';
import type { ChildConnectionOptions } from '../child-types.js';

/**
 * The sign-in of a remote server with OAuth. The person is sent to the authorization URL
 * by $BROWSER and a stderr line, and also asked through the client when it can show a URL
 * (URL-mode elicitation, 2025-11-25): declining there stops the wait, and a sign-in that
 * succeeds there is said to have ended (notifications/elicitation/complete, to the client asked).
 */
export function newSignIn(
  name: string,
  serverUrl: string,
  /** The entry's oauth block; absent: a sign-in only once the server asks for one with OAuth's challenge. */
  settings: OAuthSettings | undefined,
  log: Logger,
  { upstream, clientMetadataUrl }: Pick<ChildConnectionOptions, 'upstream' | 'clientMetadataUrl'>,
): ServerSignIn {
  /** The client's elicitation for each URL it was asked to open. */
  const askedInClient = new Map<string, string>();
  const signIn: ServerSignIn = new ServerSignIn({
    serverName: name,
    serverUrl,
    settings: { ...(clientMetadataUrl !== undefined && { clientMetadataUrl }), ...settings },
    implicit: settings === undefined,
    log,
    sendToSignIn: (url, why) => {
      sendToSignIn(url, why, name, log);
      if (!upstream?.clientCapabilities().elicitation?.url) return;
      const elicitationId = randomUUID();
      askedInClient.set(url.href, elicitationId);
      const asked = upstream.request(
        name,
        {
          method: 'elicitation/create',
          params: {
            mode: 'url',
            elicitationId,
            url: url.href,
            message: `Sign in to '${name}' (${new URL(serverUrl).host}): ${why}.`,
          },
        },
        AbortSignal.timeout(10 * 60_000),
      );
      asked.then(
        (answer) => {
          if (answer['action'] !== 'accept')
            signIn.abandon(
              `the sign-in to '${name}' was declined in the client (${String(answer['action'])})`,
            );
        },
        (error: unknown) =>
          log.debug(() => `[${name}] the client was not asked to sign in: ${messageOf(error)}`),
      );
    },
  });
  signIn.onSignedIn((url) => {
    const elicitationId = askedInClient.get(url);
    askedInClient.clear();
    if (elicitationId !== undefined)
      upstream?.notify(name, { method: 'notifications/elicitation/complete', params: { elicitationId } });
  });
  return signIn;
}
