// Windsurf: ~/.codeium/windsurf/mcp_config.json, {"mcpServers": …} with serverUrl for a
// remote server's URL and disabledTools for the tools it leaves out.
import { join } from 'node:path';
import { commandEntry, commandLaunch, editorReferences, jsonDialect } from './json-dialect.js';
import { addToolFilter, setString, setStrings } from '../portable-entry.js';

export const windsurf = jsonDialect({
  id: 'windsurf',
  label: 'Windsurf',
  files: (places) => [
    { path: join(places.home, '.codeium', 'windsurf', 'mcp_config.json'), scope: 'user', at: ['mcpServers'] },
  ],
  own: {
    serverUrl: (v, e, n) => setString(v, 'serverUrl', (s) => (e.url = s), n),
    disabledTools: (v, e, n) => setStrings(v, 'disabledTools', (tools) => addToolFilter(e, 'deny', tools), n),
  },
  references: editorReferences,
  launchEntry: commandEntry,
  launchOf: commandLaunch,
});
