// opencode: opencode.json (or .jsonc) in ~/.config/opencode and in a project, {"mcp": …}
// with {"type": "local", "command": [program, …args], "environment": …} or
// {"type": "remote", "url", "headers"}, "enabled", and {env:VAR} or {file:PATH} in values.
// It names a server's tools <server>_<tool> in 64.
import { join } from 'node:path';
import { jsonDialect, stringRecord, xdgConfigHome } from './json-dialect.js';
import { setRecord, type FieldReader } from '../portable-entry.js';
import type { McpmuxLaunch } from '../client-dialect.js';

const command: FieldReader = (value, entry, notes) => {
  if (typeof value === 'string') entry.command = value;
  else if (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'string')) {
    entry.command = value[0] as string;
    entry.args = value.slice(1) as string[];
  } else notes.push('command: not a program and its arguments; not kept');
  return true;
};

const oauth: FieldReader = (value, entry, notes) => {
  if (value === false) entry.oauth = false;
  else if (typeof value === 'object' && value !== null) {
    const { clientId, clientSecret, scope, ...rest } = value as Record<string, unknown>;
    entry.oauth = {
      ...(typeof clientId === 'string' && { client_id: clientId }),
      ...(typeof clientSecret === 'string' && { client_secret: clientSecret }),
      ...(typeof scope === 'string' && { scopes: scope.split(/\s+/).filter(Boolean) }),
    };
    for (const key of Object.keys(rest)) notes.push(`oauth.${key}: no mcpmux equivalent; not kept`);
  } else return false;
  return true;
};

export const opencode = jsonDialect({
  id: 'opencode',
  label: 'opencode',
  maxToolName: 57,
  files: (places) => {
    const user = join(xdgConfigHome(places), 'opencode');
    return [
      { path: join(user, 'opencode.json'), scope: 'user', at: ['mcp'] },
      { path: join(user, 'opencode.jsonc'), scope: 'user', at: ['mcp'] },
      { path: join(places.project, 'opencode.json'), scope: 'project', at: ['mcp'] },
      { path: join(places.project, 'opencode.jsonc'), scope: 'project', at: ['mcp'] },
    ];
  },
  own: {
    command,
    environment: (v, e, n) => setRecord(v, 'environment', (r) => (e.env = r), n),
    enabled: (v, e) => {
      if (v === false) e.disabled = true;
      return true;
    },
    oauth,
  },
  references: (text, _file, _places, notes) =>
    text.replace(/\{(env|file):([^}]+)\}/g, (whole, kind: string, name: string) => {
      if (kind === 'env') return `\${${name}}`;
      notes.push(`${whole}: mcpmux does not read files into values; kept as written`);
      return whole;
    }),
  launchEntry: ({ command, args, env }) => ({
    type: 'local',
    command: [command, ...args],
    enabled: true,
    ...(env && Object.keys(env).length > 0 && { environment: env }),
  }),
  launchOf: (fields): McpmuxLaunch | undefined => {
    const line = fields['command'];
    if (!Array.isArray(line) || typeof line[0] !== 'string') return undefined;
    const env = stringRecord(fields['environment']);
    return { command: line[0], args: line.slice(1).map(String), ...(env && { env }) };
  },
});
