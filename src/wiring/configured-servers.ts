// The servers given at start (config file, command line) registered and spawned in the
// background, an npx download overlapping the client's handshake. On stdio each is spoken to
// once the client has said what it can do (in initialize, whose answer waits for them a few
// seconds, so that it carries their instructions); over HTTP, clients come and go, so at
// once. The first lists wait for them (the startup gate); one that fails is reported (log,
// list_servers) without stopping others, and one that waits for a person to sign in holds
// nothing back (a person may take minutes, a client's list times out): list_changed brings
// its tools.
import type { ChildProcess } from '../child/process/child-process.js';
import type { Children } from '../children/children.js';
import { StartupGate } from '../children/startup-gate.js';
import { isMuxError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { ConfiguredServer } from '../config/load-config.js';

export function startConfiguredServers(
  children: Children,
  servers: readonly ConfiguredServer[],
  options: {
    logger: Logger;
    /** Resolves when the stdio client has declared its capabilities (undefined over HTTP). */
    clientInitialized: Promise<void> | undefined;
    /** Processes main.ts spawned before the rest of mcpmux loaded, by server name. */
    spawned: ReadonlyMap<string, Promise<ChildProcess>>;
    /** How long the first lists wait (--wait-for-servers); undefined: until each started or failed. */
    waitForServersMs: number | undefined;
    /** Whether mcpmux is ending: a start it cut short did not fail. */
    shuttingDown: () => boolean;
  },
): StartupGate {
  const { logger: log, clientInitialized, spawned } = options;
  return new StartupGate(
    servers.map(({ name, spec }) =>
      children
        .add(name, spec, {
          keepOnFailure: true,
          returnWhenSigningIn: true,
          ...(clientInitialized && { handshakeAfter: clientInitialized }),
          ...(spawned.has(name) && { spawned: spawned.get(name)! }),
        })
        .then(
          ({ status, tools }) =>
            log.info(
              status.status === 'needs_auth'
                ? `server '${name}' waits for a sign-in (list_servers shows where); its tools come once it is done`
                : `server '${name}' is running with ${tools.length} tool(s)`,
            ),
          (error) => {
            if (options.shuttingDown()) log.debug(`server '${name}' failed to start: ${messageOf(error)}`);
            // It says itself what it waits for, and the others start.
            else if (isMuxError(error) && error.code === 'NEEDS_CONFIG') log.warn(error.message);
            else log.error(`server '${name}' failed to start: ${messageOf(error)}`);
          },
        ),
    ),
    options.waitForServersMs,
  );
}
