// Claude Desktop: claude_desktop_config.json in its application folder, {"mcpServers": …}
// of local servers (remote ones are connectors, kept in its account, not in this file).
import { join } from 'node:path';
import { appConfigDir, commandEntry, commandLaunch, jsonDialect } from './json-dialect.js';

export const claudeDesktop = jsonDialect({
  id: 'claude-desktop',
  label: 'Claude Desktop',
  files: (places) => [
    {
      path: join(appConfigDir(places), 'Claude', 'claude_desktop_config.json'),
      scope: 'user',
      at: ['mcpServers'],
    },
  ],
  launchEntry: commandEntry,
  launchOf: commandLaunch,
});
