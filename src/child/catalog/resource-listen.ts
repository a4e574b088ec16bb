// A 2026-07-28 server has no resources/subscribe: updates of the resources a client wants
// come on a subscriptions/listen stream that names them. The set changes while a stream is
// open, so each change opens a stream for the new set, then closes the old one (an update in
// the overlap may come twice; it only says "read it again").
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { MuxError } from '../../common/errors.js';

export class ResourceListen {
  readonly #server: string;
  readonly #client: Client;
  readonly #uris = new Set<string>();
  #subscription: McpSubscription | undefined;
  /** Changes run one after another, in the order they were asked for. */
  #queue: Promise<void> = Promise.resolve();

  constructor(server: string, client: Client) {
    this.#server = server;
    this.#client = client;
  }

  add(uri: string): Promise<void> {
    if (this.#uris.has(uri)) return this.#queue;
    this.#uris.add(uri);
    return this.#reopen();
  }

  remove(uri: string): Promise<void> {
    if (!this.#uris.delete(uri)) return this.#queue;
    return this.#reopen();
  }

  #reopen(): Promise<void> {
    const run = this.#queue.then(async () => {
      const previous = this.#subscription;
      const uris = [...this.#uris];
      this.#subscription = undefined;
      if (uris.length > 0) {
        const next = await this.#client.listen({ resourceSubscriptions: uris });
        if (!next.honoredFilter.resourceSubscriptions) {
          await next.close();
          throw new MuxError(
            'NOT_SUPPORTED',
            `server '${this.#server}' does not offer resource subscriptions`,
          );
        }
        this.#subscription = next;
      }
      await previous?.close();
    });
    this.#queue = run.catch(() => {});
    return run;
  }
}
