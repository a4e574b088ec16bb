// The connections a replica makes to its cluster's Redis: named after the replica (CLIENT LIST
// shows whose is whose), reconnecting on their own, and never queueing a command while Redis is
// away: what cannot be done now is refused now, as CLUSTER_UNAVAILABLE, naming Redis.
import { createClient } from '@redis/client';
import { MuxError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';

export interface RedisConnectionOptions {
  /** redis:// or rediss:// (a password in it is never shown). */
  readonly url: string;
  readonly replica: string;
  readonly logger: Logger;
}

export type Client = ReturnType<typeof newClient>;

export function newClient(options: RedisConnectionOptions, role: string) {
  const client = createClient({
    url: options.url,
    name: `mcpmux-${options.replica}-${role}`,
    // A change while Redis is away is refused now, not sent whenever it returns.
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000), connectTimeout: 2000 },
  });
  // Errors come with each command; the client's own events (reconnects) are only logged.
  client.on('error', (error: unknown) => options.logger.debug(`cluster: redis ${role}: ${messageOf(error)}`));
  return client;
}

/** The URL without its password, for messages. */
function shown(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export function unavailable(
  url: string,
  error: unknown,
  consequence = 'the set of servers cannot change until it is back',
): MuxError {
  return new MuxError(
    'CLUSTER_UNAVAILABLE',
    `the cluster's Redis at ${shown(url)} cannot be reached (${messageOf(error)}): ${consequence}`,
    { cause: error },
  );
}

/** A connection, open; CLUSTER_UNAVAILABLE when Redis cannot be reached. */
export async function connected(options: RedisConnectionOptions, role: string): Promise<Client> {
  const client = newClient(options, role);
  try {
    await client.connect();
  } catch (error) {
    client.destroy();
    throw unavailable(options.url, error, 'this replica cannot join its cluster until it is');
  }
  return client;
}
