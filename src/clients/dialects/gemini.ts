// Gemini CLI: ~/.gemini/settings.json and a project's .gemini/settings.json, {"mcpServers": …}
// with httpUrl (streamable HTTP) beside url (HTTP+SSE), includeTools/excludeTools, its own
// oauth block, and $VAR or ${VAR} in values.
import { join } from 'node:path';
import { commandEntry, commandLaunch, jsonDialect } from './json-dialect.js';
import { addToolFilter, setString, setStrings, type FieldReader } from '../portable-entry.js';

/** Gemini CLI's oauth block as mcpmux's ({enabled: false} is "oauth": false); its endpoints are discovered. */
const oauth: FieldReader = (value, entry, notes) => {
  if (typeof value !== 'object' || value === null) return false;
  const { enabled, clientId, clientSecret, scopes, ...rest } = value as Record<string, unknown>;
  if (enabled === false) {
    entry.oauth = false;
    return true;
  }
  entry.oauth = {
    ...(typeof clientId === 'string' && { client_id: clientId }),
    ...(typeof clientSecret === 'string' && { client_secret: clientSecret }),
    ...(Array.isArray(scopes) && { scopes }),
  };
  const dropped = Object.keys(rest);
  if (dropped.length > 0)
    notes.push(`oauth.${dropped.join(', oauth.')}: read from the server's metadata instead; not kept`);
  return true;
};

export const gemini = jsonDialect({
  id: 'gemini',
  label: 'Gemini CLI',
  files: (places) => [
    { path: join(places.home, '.gemini', 'settings.json'), scope: 'user', at: ['mcpServers'] },
    { path: join(places.project, '.gemini', 'settings.json'), scope: 'project', at: ['mcpServers'] },
  ],
  own: {
    httpUrl: (v, e, n) => setString(v, 'httpUrl', (s) => (e.url = s), n),
    includeTools: (v, e, n) => setStrings(v, 'includeTools', (tools) => addToolFilter(e, 'allow', tools), n),
    excludeTools: (v, e, n) => setStrings(v, 'excludeTools', (tools) => addToolFilter(e, 'deny', tools), n),
    oauth,
  },
  // $VAR as ${VAR}; ${VAR} is read by mcpmux as it is.
  references: (text) => text.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, '${$1}'),
  launchEntry: commandEntry,
  launchOf: commandLaunch,
});
