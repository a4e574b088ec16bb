// One client on stdio, in the era it opens with: its session made by the factory, its opening
// held a few seconds for the configured servers (so that initialize's answer carries their
// instructions), never for a server that waits on the client itself.
import type { StartupGate } from '../children/startup-gate.js';
import { sessionInstructions } from '../session/session-instructions.js';
import { serveMuxOverStdio } from '../transport/stdio-serving.js';
import type { Core } from './core.js';
import type { SessionFactory } from './sessions.js';

export type StdioServing = ReturnType<typeof serveMuxOverStdio>;

export function serveStdio(
  core: Core,
  sessions: SessionFactory,
  options: { maxMessageBytes: number; startup: () => StartupGate | undefined },
): StdioServing {
  const { children, upstream } = core;
  return serveMuxOverStdio({
    newSession: (era) => sessions.newSession(era),
    logger: core.logger,
    maxMessageBytes: options.maxMessageBytes,
    opening: {
      // Not held for a server that waits on the client (one asking for its roots as it starts).
      wait: () => {
        const opening = options.startup()?.openingWait();
        return opening && Promise.race([opening, upstream.clientAwaited]);
      },
      instructions: () => sessionInstructions(children.snapshot),
    },
    onRequestCapabilities: (capabilities) => upstream.declaredInRequest(capabilities),
  });
}
