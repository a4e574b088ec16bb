// What a child's own events do to its entry in the set of children (children.ts): a change of
// its watched sources rebuilds and reloads it (the dev loop), a list change is noted, a crash
// is counted and, under a restart policy, restarted while its catalog stays listed; a session
// the server ended is opened anew.
import type { ChildConnection } from '../child/child-connection.js';
import type { ChildEvent } from '../child/child-types.js';
import type { RestartPolicy } from '../child/server-spec.js';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import { telemetry } from '../common/telemetry.js';
import type { Catalog } from '../protocol/capabilities.js';
import { describeRebuild, sameItems } from './catalog-diff.js';
import { serverAttributes } from './children-spans.js';
import type { Entry, ReloadedServer } from './children-types.js';
import { restartRunAfterCrash, restartUntilRunning, type RestartRun } from './restart-run.js';

/** What the events reach of the set of children. */
export interface ChildEventsHost {
  /** The entry registered under `name` now. */
  current(name: string): Entry | undefined;
  /** What the client sees of it now. */
  listed(name: string): Catalog | undefined;
  /** Runs `fn` in the set's one serialized section. */
  mutate<T>(fn: () => T): Promise<T>;
  /** Publishes the set as it is now (called within `mutate`). */
  publish(): void;
  reload(name: string, options?: { build?: boolean }): Promise<ReloadedServer>;
  log: Logger;
}

export class ChildEvents {
  readonly #host: ChildEventsHost;

  constructor(host: ChildEventsHost) {
    this.#host = host;
  }

  /** The author's dev loop: watched sources changed, so build and reload, and say what changed. */
  async #rebuild(name: string, paths: readonly string[]): Promise<void> {
    const shown = paths.slice(0, 3).join(', ') + (paths.length > 3 ? ` and ${paths.length - 3} more` : '');
    const entry = this.#host.current(name);
    try {
      const reloaded = await this.#host.reload(name, { build: entry?.connection.devLoop.canBuild ?? false });
      this.#host.log.info(`server '${name}' ${describeRebuild(reloaded, shown)}`);
    } catch (error) {
      // Removed meanwhile (its build stopped with it): as asked, not an error.
      if (this.#host.current(name) !== entry) return;
      this.#host.log.error(`server '${name}' not reloaded after changes to ${shown}: ${messageOf(error)}`);
    }
  }

  /** A child's event: its sources changed, its lists changed, it crashed (its restart policy runs). */
  onEvent(connection: ChildConnection, event: ChildEvent): void {
    if (event.type === 'sources-changed') {
      if (this.#host.current(event.name)?.connection === connection)
        void this.#rebuild(event.name, event.paths);
      return;
    }
    void this.#host.mutate(() => {
      const entry = this.#host.current(event.name);
      // A late event of a removed server or of an older generation changes nothing.
      if (entry?.connection !== connection || event.generation !== connection.generation) return;
      if (event.type === 'catalog-changed') {
        const before = entry.lastTools;
        // Made only at debug level: a server that re-lists often pays no comparison for it.
        this.#host.log.debug(
          () =>
            `server '${event.name}' sent list_changed; its tools ${sameItems(before ?? [], event.catalog.tools) ? 'did not change' : `changed (${event.catalog.tools.length} now)`}`,
        );
        entry.lastTools = event.catalog.tools;
      }
      if (event.type === 'crashed')
        telemetry.event(
          `server_crashed ${event.name}`,
          serverAttributes(event.name, connection.spec),
          'crashed',
        );
      const policy = connection.spec.restart;
      if (event.type === 'crashed' && policy) {
        // Restarted by its policy: its catalog stays listed (calls wait) until it runs again or gives up.
        entry.shown = this.#host.listed(event.name);
        const run = (entry.restarts = restartRunAfterCrash(entry.restarts));
        const restarting = this.#restart(event.name, entry, policy, run).catch((error: unknown) =>
          this.#host.log.error(`server '${event.name}' restart policy failed: ${messageOf(error)}`),
        );
        connection.holdCallsDuring(restarting);
      }
      this.#host.publish();
    });
  }

  /** MCP's rule for a session the server ended: the client opens a new one. */
  async renewSession(name: string, connection: ChildConnection): Promise<void> {
    if (this.#host.current(name)?.connection !== connection) return;
    try {
      await this.#host.reload(name);
      this.#host.log.info(`server '${name}' has a new session`);
    } catch (error) {
      this.#host.log.warn(`server '${name}': no new session could be opened: ${messageOf(error)}`);
    }
  }

  /** The restart policy after a crash: waits, starts, and again, until it runs or the attempts are spent. */
  #restart(name: string, entry: Entry, policy: RestartPolicy, run: RestartRun): Promise<void> {
    const { connection } = entry;
    return restartUntilRunning({
      name,
      connection,
      policy,
      run,
      current: () => !run.abort.signal.aborted && this.#host.current(name) === entry,
      log: this.#host.log,
      settle: (running) =>
        this.#host.mutate(() => {
          entry.shown = undefined;
          if (!running) entry.restarts = undefined;
          else if (connection.state.kind === 'running') entry.lastTools = connection.tools;
          this.#host.publish();
        }),
    });
  }
}
