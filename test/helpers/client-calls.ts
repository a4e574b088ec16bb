// What tests of the built mcpmux do with an SDK client again and again: read a tool result's
// text, and add fixture servers through add_server (failing loudly if one does not start).
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { fixture, type FixtureName } from './fixtures.js';

/** The text blocks of a tool result, joined. */
export const resultText = (result: unknown): string =>
  (result as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** Adds each fixture under its name: `{ old: 'asks-client', new: 'modern-v2' }`. */
export async function addFixtures(client: Client, servers: Record<string, FixtureName>): Promise<void> {
  for (const [name, server] of Object.entries(servers)) {
    const added = (await client.callTool({
      name: 'add_server',
      arguments: { name, ...fixture(server) },
    })) as CallToolResult;
    if (added.isError) throw new Error(`add_server ${name}: ${resultText(added)}`);
  }
}
