// The agent tools as one session sees them: the model its runs use (the session's client,
// sampled on its session or through a call's rounds, or a configured API), and whether
// agent and output are listed to it now.
import type { Era } from '../../protocol/era.js';
import { COMPACT_DESCRIPTION_BUDGET } from '../../agent/agent-description.js';
import type { ClientCapabilities, Tool } from '@modelcontextprotocol/server';
import type { AgentRuns } from '../../agent/agent-runs.js';
import type { ModelChoice } from '../../agent/model-choice.js';
import type { CallOptions, InputOrigin } from '../../child/child-types.js';
import type { ChildrenSnapshot } from '../../children/children-snapshot.js';
import { agentDefinition, outputDefinition } from './agent-tools.js';
import type { AgentAccess } from './tool-context.js';
import type { HeldRounds } from './tool-context.js';
import { compactDefinition } from './tool-definition.js';

/** What the agent and output tools share across sessions: the runs, and how a model is chosen. */
export interface AgentSetup {
  runs: AgentRuns;
  models: ModelChoice;
}

export interface AgentSession {
  era: Era;
  /** The session's client, where a background run's questions go (none for a one-request server). */
  sessionOrigin: InputOrigin | undefined;
  /** What a 2026-07-28 client declared on its latest request (it declares on each). */
  declared: () => ClientCapabilities | undefined;
}

/** The agent tools of a session: a background run reaches the client on the session, not on a request's stream. */
export function agentAccess(setup: AgentSetup, session: AgentSession): AgentAccess {
  const { era, sessionOrigin } = session;
  // A 2026-07-28 client is asked only through the rounds of its own call (the relay does
  // that); this stand-in carries what it declared, to choose the model by.
  const throughRounds = (capabilities: ClientCapabilities | undefined): InputOrigin => ({
    capabilities,
    ask: () => Promise.reject(new Error('a 2026-07-28 client is asked only through input_required rounds')),
  });
  const model = (background: boolean, call: CallOptions, rounds?: HeldRounds) =>
    era === 'legacy'
      ? setup.models.for(background ? sessionOrigin : call.origin, era)
      : setup.models.for(!background && rounds ? throughRounds(rounds.capabilities) : undefined, era);
  return {
    runs: setup.runs,
    sessionOrigin,
    model,
    available: () =>
      typeof (era === 'legacy'
        ? setup.models.for(sessionOrigin, era)
        : setup.models.for(throughRounds(session.declared()), era)) !== 'string',
  };
}

/**
 * The own tools a session lists: agent and output join the base list while its client has a
 * model, described with the servers running now (kept until the children change).
 */
export class AgentListing {
  readonly #access: AgentAccess | undefined;
  /** Listed in compact form (every mode but `all`). */
  readonly #compact: boolean;
  /** agent may run as an MCP task (a 2025 session). */
  readonly #asTask: boolean;
  #listed: { version: number; tools: readonly Tool[] } | undefined;

  constructor(access: AgentAccess | undefined, options: { compact: boolean; asTask: boolean }) {
    this.#access = access;
    this.#compact = options.compact;
    this.#asTask = options.asTask;
  }

  definitions(base: readonly Tool[], snapshot: ChildrenSnapshot): readonly Tool[] {
    if (this.#access?.available() !== true) return base;
    if (this.#listed?.version !== snapshot.version) {
      const agent = agentDefinition(snapshot, this.#compact ? COMPACT_DESCRIPTION_BUDGET : undefined);
      // A 2025 client may run agent as a task (tasks/get, tasks/result…).
      if (this.#asTask) agent.execution = { taskSupport: 'optional' };
      const agentTools = [agent, outputDefinition()].map((t) => (this.#compact ? compactDefinition(t) : t));
      this.#listed = { version: snapshot.version, tools: [...base, ...agentTools] };
    }
    return this.#listed.tools;
  }
}
