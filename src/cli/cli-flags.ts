// The flags of the command line as node:util's parseArgs reads them, and the one a mistyped
// flag most likely meant (parseArgs only says it is unknown).
import type { parseArgs } from 'node:util';

/** Every flag, as node:util's parseArgs reads them. */
export const OPTIONS = {
  config: { type: 'string', short: 'c' },
  'log-level': { type: 'string' },
  'max-tool-name': { type: 'string' },
  'startup-timeout': { type: 'string' },
  'wait-for-servers': { type: 'string' },
  'call-timeout': { type: 'string' },
  'ping-interval': { type: 'string' },
  'allow-command': { type: 'string', multiple: true },
  'allow-env': { type: 'string', multiple: true },
  'no-runtime-add': { type: 'boolean' },
  quarantine: { type: 'string' },
  sandbox: { type: 'string' },
  registry: { type: 'string', multiple: true },
  'no-registry': { type: 'boolean' },
  'allow-model-secrets': { type: 'boolean' },
  'call-log': { type: 'string' },
  'call-log-content': { type: 'boolean' },
  'trace-content': { type: 'boolean' },
  'inherit-env': { type: 'boolean' },
  'pass-env': { type: 'string', multiple: true },
  root: { type: 'string' },
  json: { type: 'boolean' },
  logout: { type: 'boolean' },
  'watch-config': { type: 'boolean' },
  expose: { type: 'string' },
  'active-pool': { type: 'string' },
  'search-ranker': { type: 'string' },
  'max-result-bytes': { type: 'string' },
  'code-memory': { type: 'string' },
  'code-max-calls': { type: 'string' },
  http: { type: 'string' },
  host: { type: 'string' },
  'auth-token': { type: 'string' },
  'auth-token-file': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allowed-origin': { type: 'string', multiple: true },
  'session-idle-timeout': { type: 'string' },
  'max-sessions': { type: 'string' },
  'drain-seconds': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  'client-metadata-url': { type: 'string' },
  redis: { type: 'string' },
  cluster: { type: 'string' },
  replica: { type: 'string' },
  'replica-url': { type: 'string' },
  'agent-provider': { type: 'string' },
  'agent-model': { type: 'string' },
  'agent-base-url': { type: 'string' },
  'agent-dir': { type: 'string' },
  'agent-max-tool-calls': { type: 'string' },
  'agent-timeout': { type: 'string' },
  'agent-concurrency': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const satisfies NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/** The flag a mistyped one most likely meant. */
export const nearestOption = (typed: string): string | undefined => nearest(typed, Object.keys(OPTIONS));

/** The name a mistyped one most likely meant: the closest by edits (at most a third of it), or one it begins. */
export function nearest(typed: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = name.startsWith(typed) || typed.startsWith(name) ? 0 : editDistance(typed, name);
    if (distance <= Math.max(1, Math.floor(name.length / 3)) && (!best || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}
