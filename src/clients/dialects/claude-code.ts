// Claude Code: the user's servers in ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json when
// set) under "mcpServers", a project's private ones in the same file under
// "projects"/<its folder>/"mcpServers", and the project's shared ones in its .mcp.json.
// It prefixes a server's tools with mcp__<server>__ (13 characters for mcpmux) in 64.
import { join } from 'node:path';
import { commandLaunch, jsonDialect } from './json-dialect.js';

export const claudeCode = jsonDialect({
  id: 'claude-code',
  label: 'Claude Code',
  maxToolName: 51,
  files: (places) => {
    const state = join(places.env['CLAUDE_CONFIG_DIR'] || places.home, '.claude.json');
    return [
      { path: state, scope: 'user', at: ['mcpServers'] },
      { path: state, scope: 'local', at: ['projects', places.project, 'mcpServers'] },
      { path: join(places.project, '.mcp.json'), scope: 'project', at: ['mcpServers'] },
    ];
  },
  // ${VAR} and ${VAR:-default} are read by mcpmux as Claude Code reads them.
  launchEntry: ({ command, args }) => ({ type: 'stdio', command, args, env: {} }),
  launchOf: commandLaunch,
});
