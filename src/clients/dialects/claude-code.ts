// Claude Code: the user's servers in ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json when
// set) under "mcpServers", a project's private ones in the same file under
// "projects"/<its folder>/"mcpServers", and the project's shared ones in its .mcp.json.
// It prefixes a server's tools with mcp__<server>__ (13 characters for mcpmux) in 64.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientPlaces, ProjectChoices } from '../client-dialect.js';
import { objectAt, parseJsonc } from '../jsonc-edit.js';
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
  launchEntry: ({ command, args, env }) => ({ type: 'stdio', command, args, env: env ?? {} }),
  launchOf: commandLaunch,
  projectChoices,
});

/**
 * The person's answers about a project's .mcp.json servers, from the places only they write:
 * ~/.claude.json's entry for the project, ~/.claude/settings.json and the project's
 * .claude/settings.local.json (never its shared .claude/settings.json, which the repository
 * brings). A server disabled anywhere is disabled.
 */
function projectChoices(places: ClientPlaces): ProjectChoices | undefined {
  const dir = places.env['CLAUDE_CONFIG_DIR'] || places.home;
  const sources: [string, readonly string[]][] = [
    [join(dir, '.claude.json'), ['projects', places.project]],
    [join(places.home, '.claude', 'settings.json'), []],
    [join(places.project, '.claude', 'settings.local.json'), []],
  ];
  const found = { all: false, enabled: [] as string[], disabled: [] as string[], from: [] as string[] };
  for (const [path, at] of sources) {
    if (!existsSync(path)) continue;
    let choices: Record<string, unknown> | undefined;
    try {
      choices = objectAt(parseJsonc(readFileSync(path, 'utf8'), path), at);
    } catch {
      continue; // read for its servers elsewhere, where a broken file is reported
    }
    if (!choices) continue;
    const names = (key: string) =>
      Array.isArray(choices[key]) ? (choices[key] as unknown[]).filter((n) => typeof n === 'string') : [];
    const enabled = names('enabledMcpjsonServers');
    const disabled = names('disabledMcpjsonServers');
    const all = choices['enableAllProjectMcpServers'] === true;
    if (!all && enabled.length === 0 && disabled.length === 0) continue;
    found.all ||= all;
    found.enabled.push(...enabled);
    found.disabled.push(...disabled);
    found.from.push(path);
  }
  return found.from.length > 0 ? found : undefined;
}
