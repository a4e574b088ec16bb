// What a client session is made with: the core's shared parts and the settings of this
// mcpmux (how tools are exposed, results cut, calls logged). One factory, so that a stdio
// client, an HTTP session and a modern client's one-request server are made alike.
import type { StartupGate } from '../children/startup-gate.js';
import type { Era } from '../protocol/era.js';
import { MuxServer } from '../session/mux-server.js';
import type { MuxServerOptions, PerRequestState } from '../session/mux-server-options.js';
import type { Core } from './core.js';

/** This mcpmux's settings of a session (MuxServer's, documented there), and the start-up gate once there is one. */
export type SessionSettings = Pick<
  MuxServerOptions,
  | 'activePoolSize'
  | 'maxResultBytes'
  | 'config'
  | 'cluster'
  | 'network'
  | 'callLog'
  | 'traceContent'
  | 'version'
  | 'listChangedDebounceMs'
> & {
  /** The servers given at start, once they are being started: a session's first lists wait for them. */
  startup?: () => StartupGate | undefined;
};

export interface SessionFactory {
  /** The options of a session in `era`. */
  options(era: Era): MuxServerOptions;
  /** A session for one client (stdio, or an HTTP session). */
  newSession(era?: Era): MuxServer;
  /** A server for one request of a modern HTTP client, sharing `perRequest`. */
  requestServer(perRequest: PerRequestState): MuxServer;
}

export function sessionFactory(core: Core, settings: SessionSettings): SessionFactory {
  const options = (era: Era): MuxServerOptions => {
    const startup = settings.startup?.();
    return {
      onListed: () => core.idleCollection.activity(),
      era,
      inputRelay: core.inputRelay,
      ...(startup && { startup }),
      children: core.children,
      router: core.router,
      upstream: core.upstream,
      policy: core.policy,
      index: core.index,
      ...(core.agents && { agents: core.agents }),
      expose: core.expose,
      ...(core.code && { code: core.code }),
      ...(settings.activePoolSize !== undefined && { activePoolSize: settings.activePoolSize }),
      ...(settings.maxResultBytes !== undefined && { maxResultBytes: settings.maxResultBytes }),
      ...(settings.config && { config: settings.config }),
      ...(settings.cluster && { cluster: settings.cluster }),
      ...(core.registries && { registries: core.registries }),
      ...(settings.network && { network: settings.network }),
      ...(settings.callLog && { callLog: settings.callLog }),
      ...(settings.traceContent !== undefined && { traceContent: settings.traceContent }),
      ...(settings.listChangedDebounceMs !== undefined && {
        listChangedDebounceMs: settings.listChangedDebounceMs,
      }),
      logger: core.logger,
      version: settings.version,
    };
  };
  return {
    options,
    newSession: (era = 'legacy') => new MuxServer(options(era)),
    requestServer: (perRequest) => new MuxServer({ ...options('modern'), perRequest }),
  };
}
