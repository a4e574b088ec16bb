// Which servers start held, their text kept from the model until a person approves it. By
// default (`--quarantine strangers`) a server the agent adds is held when its code comes from
// strangers: a registry entry, a package runner that fetches what it runs (npx, uvx, pipx,
// bunx, `npm exec`, `docker run`…), or a URL off this machine. A local program the agent names
// (its own build, a file on disk) and a server on a loopback URL start trusted, scanned as
// every server is: a hard flag holds them too. `all-added` holds every server the agent adds;
// `all` the config's servers as well. A config entry's own `"trust"` wins over the mode, and
// the model can set none of this: add_server takes no trust field.
import { basename } from 'node:path';
import type { ServerSpec } from '../child/server-spec.js';
import type { Trust } from './trust-gate.js';

export const QUARANTINE_MODES = ['strangers', 'all-added', 'all'] as const;
export type QuarantineMode = (typeof QUARANTINE_MODES)[number];

/** Who put the server into the set: the operator (config, command line) or the agent (add_server). */
export type AddedBy = 'operator' | 'agent';

/** Runners that fetch a package and run it; the word after them, when they need one, says so. */
const RUNNERS: Readonly<Record<string, readonly string[] | true>> = {
  npx: true,
  pnpx: true,
  bunx: true,
  uvx: true,
  pipx: ['run'],
  npm: ['exec', 'x'],
  pnpm: ['dlx', 'exec'],
  yarn: ['dlx'],
  bun: ['x'],
  uv: ['tool', 'run'],
  docker: ['run'],
  podman: ['run'],
  deno: ['run'],
};

/** Whether what the server runs comes from someone other than this machine's user. */
export function fromStrangers(spec: ServerSpec): boolean {
  if (spec.registryEntry !== undefined) return true;
  if (spec.transport === 'http') return !onThisMachine(spec.url);
  const runner = RUNNERS[basename(spec.command).replace(/\.(cmd|exe)$/i, '')];
  if (runner === undefined) return false;
  return runner === true || runner.includes(spec.args[0] ?? '');
}

function onThisMachine(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** How far a server is trusted when it enters the set, before any approval kept for it is read. */
export function initialTrust(spec: ServerSpec, addedBy: AddedBy, mode: QuarantineMode): Trust {
  if (spec.trust !== undefined) return spec.trust;
  const held = addedBy === 'agent' ? mode !== 'strangers' || fromStrangers(spec) : mode === 'all';
  if (held) return 'held';
  return spec.transport === 'stdio' && spec.watch !== undefined ? 'follow' : 'approved';
}
