// Cursor: ~/.cursor/mcp.json for the user, .cursor/mcp.json in a project; {"mcpServers": …}
// with ${env:VAR}, ${userHome} and ${workspaceFolder} in its values, and envFile.
import { join } from 'node:path';
import { commandEntry, commandLaunch, editorReferences, jsonDialect } from './json-dialect.js';

export const cursor = jsonDialect({
  id: 'cursor',
  label: 'Cursor',
  files: (places) => [
    { path: join(places.home, '.cursor', 'mcp.json'), scope: 'user', at: ['mcpServers'] },
    { path: join(places.project, '.cursor', 'mcp.json'), scope: 'project', at: ['mcpServers'] },
  ],
  references: editorReferences,
  launchEntry: commandEntry,
  launchOf: commandLaunch,
});
