// A 2026-07-28 client subscribes to resource updates by naming the URIs in its
// subscriptions/listen stream (it has no resources/subscribe). While such a stream is open,
// the children that have those resources are subscribed (in their own era), and their
// updates go out on the client's streams; when it closes, what no other client holds is
// given back, as when a 2025 session ends.
import { messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/log.js';
import type { Children } from '../../children/children.js';
import type { CatalogRouter } from '../../router/catalog-router.js';
import { ClientSettings } from '../client-settings.js';
import type { UpstreamLink } from '../relay/upstream-link.js';
import type { NotifyClient } from '../../child/child-types.js';

export interface ResourceWatchContext {
  children: Children;
  router: CatalogRouter;
  upstream: UpstreamLink;
  logger: Logger;
}

/** The resource URIs a subscriptions/listen request asks updates of (none for anything else). */
export function listenedResources(message: unknown): string[] {
  const request = message as {
    method?: unknown;
    params?: { notifications?: { resourceSubscriptions?: unknown } };
  };
  if (request?.method !== 'subscriptions/listen') return [];
  const uris = request.params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
}

/** How long a listen stream's acknowledgement may wait for the children's subscriptions. */
const SUBSCRIBE_WAIT_MS = 5000;

export interface ResourceWatch {
  /** Settles once the children are subscribed (or could not be, or SUBSCRIBE_WAIT_MS passed). */
  ready: Promise<void>;
  end: () => void;
}

/**
 * Subscribes `uris` for one listen stream. The stream should be acknowledged once `ready`
 * settles, so that an update right after the acknowledgement is not lost.
 */
export function watchResources(
  context: ResourceWatchContext,
  uris: readonly string[],
  deliver: NotifyClient,
): ResourceWatch {
  const { children, router, upstream, logger } = context;
  const settings = new ClientSettings({ children, router, logger, peers: () => upstream.sessionSettings() });
  const detach = upstream.attach({ era: 'modern', children, settings, deliver });
  const subscribed = uris.map((uri) =>
    settings.subscribe(uri).catch((error: unknown) => {
      logger.info(`a client listens for updates of ${uri}, which cannot be subscribed: ${messageOf(error)}`);
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  const ready = Promise.race([
    Promise.all(subscribed).then(() => {}),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, SUBSCRIBE_WAIT_MS))),
  ]).finally(() => clearTimeout(timer));
  return { ready, end: detach };
}
