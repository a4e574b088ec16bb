// What tests of the built mcpmux do with an SDK client again and again: read a tool result's
// text, add fixture servers through add_server (failing loudly if one does not start), check
// the instructions an initialize gave.
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import type { Test } from 'tap';
import { fixture, type FixtureName } from './fixtures.js';

/** The text blocks of a tool result, joined. */
export const resultText = (result: unknown): string =>
  (result as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/**
 * Adds each fixture under its name: `{ old: 'asks-client', new: 'modern-v2' }`; one whose era
 * must not follow the client's (a 2025 client's servers speak 2025 when they can): `{ fixture, era }`.
 */
export async function addFixtures(
  client: Client,
  servers: Record<string, FixtureName | { fixture: FixtureName; era: 'legacy' | 'modern' }>,
): Promise<void> {
  for (const [name, server] of Object.entries(servers)) {
    const spec =
      typeof server === 'string' ? fixture(server) : { ...fixture(server.fixture), era: server.era };
    const added = (await client.callTool({
      name: 'add_server',
      arguments: { name, ...spec },
    })) as CallToolResult;
    if (added.isError) throw new Error(`add_server ${name}: ${resultText(added)}`);
  }
}

/**
 * The progress a connected client is sent, read off its transport before the SDK dispatches
 * it. The SDK answers a response at once but hands a notification to its handler a microtask
 * late, so progress that arrives in one chunk with its request's answer never reaches
 * `onprogress` (typescript-sdk#2580: "a race servers cannot avoid"); on a loaded machine that
 * happens to the last steps of a short call. `values` are in arrival order; `late` counts
 * those that came after their request's answer, which mcpmux must never send.
 */
export function recordWireProgress(client: Client): { values: number[]; late: number } {
  const transport = client.transport;
  if (!transport) throw new Error('recordWireProgress: connect the client first');
  const record = { values: [] as number[], late: 0 };
  const answered = new Set<unknown>();
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/progress') {
      const { progressToken, progress } = message.params as { progressToken: unknown; progress: number };
      record.values.push(progress);
      if (answered.has(progressToken)) record.late++;
    } else if ('id' in message && !('method' in message)) answered.add(message.id);
    dispatch?.(message, extra);
  };
  return record;
}

/** Checks an initialize's instructions: mcpmux's own first, then server-everything's under its name `ev`. */
export function assertEverythingInstructions(t: Test, instructions: string | undefined): void {
  t.match(instructions, /^mcpmux runs MCP servers behind this one connection\./, "mcpmux's own first");
  t.match(
    instructions,
    /\n\nInstructions of server 'ev' \(its tools are named ev__…\):\n# Everything Server – Server Instructions\n/,
    "then server-everything's own, under its name",
  );
}
