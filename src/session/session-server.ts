// The SDK server a client session answers on: what it declares and what it checks before any
// handler of mcpmux runs.
import type { Server } from '@modelcontextprotocol/server';
import { ParamsCheckedServer } from './params-checked-server.js';
import { sessionInstructions } from './session-instructions.js';
import { TASKS_CAPABILITY } from './tasks/agent-tasks.js';
import type { InputRelay } from './relay/input-relay.js';
import type { MuxServerOptions } from './mux-server-options.js';

/**
 * The SDK's server for a session. Children come and go while the client stays, so every list
 * and feature a child could bring is declared up front; with no child behind it, a list is simply empty.
 */
export function sessionServer(options: MuxServerOptions, relay: InputRelay): Server {
  return new ParamsCheckedServer(
    { name: 'mcpmux', version: options.version },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
        // Children's tools and agent run as tasks for a 2025 client (2026-07-28 has none in its core).
        ...(options.era !== 'modern' && { tasks: TASKS_CAPABILITY }),
      },
      instructions: sessionInstructions(options.children.snapshot),
      // A requestState mcpmux did not issue is refused before any handler runs.
      requestState: { verify: relay.verify },
    },
  );
}
