// Asking the person, through their client, with a form (MCP form elicitation): whether the
// client takes one, and the function that asks it. The model never sees a form or its answer.
import type { InputOrigin } from '../../child/child-types.js';

/** Asks the person with a form (elicitation/create params); resolves with the client's answer. */
export type AskPerson = (
  params: Record<string, unknown>,
  timeoutMs: number,
) => Promise<Record<string, unknown>>;

/** Whether a client takes form elicitations: {} (2025-06-18's only kind) or one that names form. */
export function canAskForm(capabilities: InputOrigin['capabilities']): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** How to ask the person who made this call; undefined when their client cannot be asked. */
export function askPersonOf(
  origin: InputOrigin | undefined,
  signal: AbortSignal | undefined,
): AskPerson | undefined {
  if (!origin || !canAskForm(origin.capabilities)) return undefined;
  return (params, timeoutMs) =>
    origin.ask({ method: 'elicitation/create', params }, signal ?? new AbortController().signal, timeoutMs);
}
