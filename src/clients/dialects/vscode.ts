// VS Code: mcp.json in its user folder (Code/User) and a workspace's .vscode/mcp.json,
// {"servers": …, "inputs": […]}: values may ask the person for an input (${input:id}, a
// password among them), read the environment (${env:VAR}) or name the workspace. An input
// becomes a variable of mcpmux's environment (${ID}), to be set before it starts. Its
// dev.watch becomes mcpmux's watch. It names a server's tools mcp_<server>_<tool> in 64.
import { join } from 'node:path';
import { commandEntry, commandLaunch, editorReferences, jsonDialect, xdgConfigHome } from './json-dialect.js';
import { objectAt } from '../jsonc-edit.js';
import type { ClientPlaces } from '../client-dialect.js';

function userDir(places: ClientPlaces, product: string): string {
  if (places.platform === 'win32')
    return join(places.env['APPDATA'] || join(places.home, 'AppData', 'Roaming'), product, 'User');
  if (places.platform === 'darwin')
    return join(places.home, 'Library', 'Application Support', product, 'User');
  return join(xdgConfigHome(places), product, 'User');
}

/** ${input:some-id} as ${SOME_ID}: the name of the variable that takes the input's place. */
export function inputVariable(id: string): string {
  return (
    id
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .toUpperCase() || 'INPUT'
  );
}

export const vscode = jsonDialect({
  id: 'vscode',
  label: 'VS Code',
  maxToolName: 53,
  files: (places) => [
    { path: join(userDir(places, 'Code'), 'mcp.json'), scope: 'user', at: ['servers'] },
    { path: join(userDir(places, 'Code - Insiders'), 'mcp.json'), scope: 'user', at: ['servers'] },
    { path: join(places.project, '.vscode', 'mcp.json'), scope: 'project', at: ['servers'] },
  ],
  own: {
    dev: (value, entry, notes) => {
      const watch = (value as { watch?: unknown } | null)?.watch;
      if (typeof watch === 'string') entry.watch = { paths: [watch] };
      const debug = (value as { debug?: unknown } | null)?.debug;
      if (debug !== undefined) notes.push('dev.debug: no mcpmux equivalent; not kept');
      return true;
    },
  },
  references: (text, file, places, notes, json) => {
    const inputs = (objectAt(json, []) as { inputs?: unknown } | undefined)?.inputs;
    const withInputs = text.replace(/\$\{input:([^}]+)\}/g, (_, id: string) => {
      const input = Array.isArray(inputs)
        ? (inputs as Record<string, unknown>[]).find((i) => i?.['id'] === id)
        : undefined;
      const variable = inputVariable(id);
      const said = typeof input?.['description'] === 'string' ? ` (${input['description']})` : '';
      notes.push(
        `\${input:${id}}${said}: VS Code asks for it; mcpmux reads it from the variable ${variable}${input?.['password'] === true ? ' (a secret)' : ''}`,
      );
      return `\${${variable}}`;
    });
    return editorReferences(withInputs, file, places, notes);
  },
  launchEntry: (launch) => ({ type: 'stdio', ...commandEntry(launch) }),
  launchOf: commandLaunch,
});
