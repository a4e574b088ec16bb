// Every client mcpmux reads servers from and installs itself into, by id, in the order
// their servers are taken when two clients name a server alike.
import { claudeCode } from './dialects/claude-code.js';
import { claudeDesktop } from './dialects/claude-desktop.js';
import { CLIENT_IDS, type ClientDialect, type ClientId } from './client-dialect.js';
import { codex } from './dialects/codex.js';
import { cursor } from './dialects/cursor.js';
import { gemini } from './dialects/gemini.js';
import { opencode } from './dialects/opencode.js';
import { vscode } from './dialects/vscode.js';
import { windsurf } from './dialects/windsurf.js';

export const CLIENTS: ReadonlyMap<ClientId, ClientDialect> = new Map(
  [claudeCode, claudeDesktop, cursor, vscode, windsurf, codex, gemini, opencode].map((d) => [d.id, d]),
);

/** The client a --from or --client value names; undefined when it names none. */
export function clientNamed(name: string): ClientDialect | undefined {
  return (CLIENT_IDS as readonly string[]).includes(name) ? CLIENTS.get(name as ClientId) : undefined;
}
