// A local server's `sandbox` field as given by a config entry, add_server or the command line:
// whether its process runs inside the OS sandbox (sandbox/ builds and applies it), and what the
// default profile is widened with. Validated here, at the edge, like the rest of a spec.
import { z } from 'zod';

/** What a server's sandbox adds to the default profile (sandbox/sandbox-profile.ts). */
export interface SandboxLimits {
  /** Folders (or files) it may write besides its working folder and its private folder. */
  readonly allowWrite?: readonly string[];
  /** What it may not read besides the credentials the default profile hides. */
  readonly denyRead?: readonly string[];
  /** Host names (`api.example.com`, `*.example.com`, `host:443`) it may reach; none by default. */
  readonly allowedDomains?: readonly string[];
}

/**
 * Which servers get the default profile when their own `sandbox` says nothing (--sandbox):
 * none, those added at run time, or the config's too.
 */
export const SANDBOX_MODES = ['off', 'added', 'all'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** true: the default profile; an object: the default profile widened so; false: no sandbox. */
export type SandboxSetting = boolean | SandboxLimits;

const paths = z.array(z.string().min(1, 'a path must not be empty')).max(256);

export const sandboxField = z
  .union(
    [
      z.boolean(),
      z
        .object({
          filesystem: z
            .object({
              allowWrite: paths
                .optional()
                .describe('Writable besides its working folder and a private temporary folder.'),
              denyRead: paths.optional().describe('Unreadable besides the credentials always hidden.'),
            })
            .strict()
            .optional(),
          network: z
            .object({
              allowedDomains: z
                .array(z.string().min(1, 'a domain must not be empty'))
                .max(256)
                .optional()
                .describe(
                  'Hosts it may reach: "api.example.com", "*.example.com", "host:443". None by default.',
                ),
            })
            .strict()
            .optional(),
        })
        .strict(),
    ],
    {
      error: (issue) =>
        typeof issue.input === 'object' && issue.input !== null
          ? undefined
          : 'sandbox must be true, false or {"filesystem": {"allowWrite": [...], "denyRead": [...]}, "network": {"allowedDomains": [...]}}',
    },
  )
  .describe(
    'Run it in the OS sandbox (bubblewrap on Linux, sandbox-exec on macOS): true for the default profile ' +
      '(writes only to its working folder, no credentials readable, no network), or widen it with ' +
      '{"filesystem": {"allowWrite": [...], "denyRead": [...]}, "network": {"allowedDomains": [...]}}; false: none.',
  );

export type SandboxWire = z.infer<typeof sandboxField>;

/** The wire form turned into the setting a spec carries. */
export function sandboxSetting(wire: SandboxWire): SandboxSetting {
  if (typeof wire === 'boolean') return wire;
  return {
    ...(wire.filesystem?.allowWrite && { allowWrite: wire.filesystem.allowWrite }),
    ...(wire.filesystem?.denyRead && { denyRead: wire.filesystem.denyRead }),
    ...(wire.network?.allowedDomains && { allowedDomains: wire.network.allowedDomains }),
  };
}

/** The setting written back in the wire's form (a config entry, list_servers). */
export function sandboxWire(setting: SandboxSetting): SandboxWire {
  if (typeof setting === 'boolean') return setting;
  const filesystem = {
    ...(setting.allowWrite && { allowWrite: [...setting.allowWrite] }),
    ...(setting.denyRead && { denyRead: [...setting.denyRead] }),
  };
  return {
    ...(Object.keys(filesystem).length > 0 && { filesystem }),
    ...(setting.allowedDomains && { network: { allowedDomains: [...setting.allowedDomains] } }),
  };
}

/** Whether a setting asks for the sandbox (an object does: it widens the default profile). */
export const wantsSandbox = (setting: SandboxSetting | undefined): boolean =>
  setting !== undefined && setting !== false;

/** What list_servers and the audit line show of a running server's sandbox. */
export interface SandboxSummary {
  /** default: the default profile; widened: with the server's own lists added. */
  readonly profile: 'default' | 'widened';
  /** What it may write. */
  readonly writable: readonly string[];
  /** The hosts it may reach. */
  readonly domains: readonly string[];
}
