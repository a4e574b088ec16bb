// What it takes to start one child server, as given by add_server, a config file or
// the command line. Validated once, at those edges; everything inside trusts the type.
import type { Era } from '../protocol/era.js';
import { z } from 'zod';
import { oauthField, oauthProblem, oauthSettings, type OAuthSettings } from '../oauth/oauth-settings.js';
import { sandboxField, sandboxSetting, type SandboxSetting, type SandboxWire } from './sandbox-setting.js';

export const SERVER_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;

/** Which of a server's tools are exposed: globs on its own tool names (child/catalog/tool-filter.ts applies them). */
export interface ToolFilter {
  readonly allow?: readonly string[] | undefined;
  readonly deny?: readonly string[] | undefined;
}

export interface StdioServerSpec {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Variables added to the child's environment (values are secrets: never echoed). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The author's dev loop: files to watch (globs, relative to cwd) and what builds the server. */
  readonly watch?: WatchSpec;
  /** Whether it runs in the OS sandbox, and with what widened (sandbox-setting.ts). Absent: --sandbox decides. */
  readonly sandbox?: SandboxSetting;
}

export interface WatchSpec {
  readonly paths: readonly string[];
  readonly debounceMs: number;
  /** Run before each restart (and by reload_server with build); a failure keeps the old process. */
  readonly build?: { readonly command: string; readonly args: readonly string[] };
}

export const watchField = z
  .object({
    paths: z.array(z.string().min(1)).min(1).describe('Globs relative to cwd, e.g. ["src/**/*.ts"].'),
    debounce_ms: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .optional()
      .describe('Quiet time before the restart. Default 300.'),
    build: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Run before the restart, e.g. ["npm", "run", "build"].'),
  })
  .strict();

export interface RemoteServerSpec {
  readonly transport: 'http';
  readonly url: string;
  /** Header values are secrets: never echoed. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * How to sign in with OAuth 2.1 (authorization code with PKCE, or a machine grant) when the
   * server asks for it. Absent: as with {} once the server answers with an OAuth challenge or
   * metadata; false: never (a 401 fails the start, saying so).
   */
  readonly oauth?: OAuthSettings | false;
  /**
   * Another replica of the cluster, reached over its internal hop (one upgraded connection of
   * JSON-RPC lines: transport/hop-lines.ts) rather than streamable HTTP. Set by the cluster's
   * placement only, never read from a config or an add.
   */
  readonly clusterHop?: true;
}

export type ServerSpec = (StdioServerSpec | RemoteServerSpec) & {
  /** How long start-up (spawn, initialize, tools/list) may take. */
  readonly startupTimeoutMs?: number;
  /** Which of its tools are exposed (globs on the child's tool names). */
  readonly toolFilter?: ToolFilter;
  /**
   * What its tool and prompt names are exposed under: `NAME__` when absent; "" exposes
   * them under their own names (a name another server or mcpmux already has is withheld).
   */
  readonly prefix?: string;
  /**
   * The protocol era to speak to it: auto (default) probes with server/discover and falls
   * back to initialize; legacy goes straight to initialize (2025); modern requires 2026-07-28.
   */
  readonly era?: 'auto' | Era;
  /** Restarted after a crash (on "failure"), with a backoff; absent: never, as by default. */
  readonly restart?: RestartPolicy;
  /** The MCP registry entry it was resolved from (io.github.owner/server): audit lines and list_servers name it. */
  readonly registryEntry?: string;
  /**
   * How far its text is trusted, from its config entry only (add_server takes no such field):
   * "approved" (its lists reach the model; later changes wait for a person), "follow" (each
   * list is the new baseline: a server under development) or "held" (nothing reaches the
   * model until a person approves it). Absent: --quarantine decides.
   */
  readonly trust?: 'approved' | 'follow' | 'held';
  /**
   * A config's server whose values are not all there yet (an unset variable, a secret not
   * kept): it is listed, not started, until the config gives them.
   */
  readonly unconfigured?: Unconfigured;
};

/** What a config's server still needs, as the config loader found it. */
export interface Unconfigured {
  /** The variables (`GITHUB_TOKEN`) and kept secrets (`secret:ENTRY/NAME`) it refers to that are not there. */
  readonly missing: readonly string[];
  /** Each in words, with where it is used: `env.GITHUB_TOKEN: ${GITHUB_TOKEN} is not set in mcpmux's environment`. */
  readonly problems: readonly string[];
}

/** What to do when a server dies on its own: try again after each delay, so many times. */
export interface RestartPolicy {
  readonly maxAttempts: number;
  /** Wait before attempt n is backoffMs[n-1] (the last one repeats). */
  readonly backoffMs: readonly number[];
}

export const restartField = z
  .object({
    on: z
      .enum(['never', 'failure'], { error: 'restart.on must be "never" or "failure"' })
      .optional()
      .describe('"failure": start it again when it crashes or its connection is lost. Default "never".'),
    max_attempts: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe('Attempts before giving up. Default 5.'),
    backoff_seconds: z
      .array(z.number().min(0).max(3600))
      .min(1)
      .optional()
      .describe('Wait before each attempt; the last repeats. Default [1, 2, 3, 4, 5].'),
  })
  .strict();

function restartPolicy(wire: z.infer<typeof restartField> | undefined): RestartPolicy | undefined {
  if (wire?.on !== 'failure') return undefined;
  return {
    maxAttempts: wire.max_attempts ?? 5,
    backoffMs: (wire.backoff_seconds ?? [1, 2, 3, 4, 5]).map((seconds) => seconds * 1000),
  };
}

export const toolFilterField = z
  .object({
    allow: z.array(z.string().min(1)).optional().describe('Expose only tools matching these globs.'),
    deny: z.array(z.string().min(1)).optional().describe('Never expose tools matching these globs.'),
  })
  .strict();

export const envRecord = z.record(z.string(), z.string());

/** A spec's shape on the wire (add_server and config entries use the same field names). */
export const wireServerFields = {
  command: z.string().min(1, 'command must not be empty').optional(),
  args: z.array(z.string()).optional(),
  env: envRecord.optional(),
  cwd: z.string().min(1).optional(),
  url: z.string().min(1, 'url must not be empty').optional(),
  headers: envRecord.optional(),
  oauth: z
    .union([oauthField, z.literal(false)], {
      // An object is an oauth block: its own problem is the one to tell, not the union's.
      error: (issue) =>
        issue.code === 'invalid_union' && typeof issue.input === 'object' && issue.input !== null
          ? (issue.errors[0] ?? [])
              .map(
                (i) =>
                  `${i.path.map(String).join('.') || '(block)'}: ${i.message.replace(/, received$/, '')}`,
              )
              .join('; ')
          : 'oauth must be an object ({} or its settings) or false (no sign-in)',
    })
    .optional()
    .describe(
      'How to sign in when the server asks (by default with dynamic registration): {"client_id": …}; false: never.',
    ),
  tools: toolFilterField.optional(),
  watch: watchField.optional(),
  prefix: z
    .string()
    .max(32, 'prefix must be at most 32 characters')
    .regex(/^[a-zA-Z0-9_-]*$/, "prefix may only contain letters, digits, '_' and '-' (\"\" for none)")
    .optional()
    .describe(
      'Expose its tools and prompts under this prefix instead of "<name>__"; "" for their own names.',
    ),
  era: z
    .enum(['auto', 'legacy', 'modern'], { error: 'era must be auto, legacy or modern' })
    .optional()
    .describe(
      'auto (default: 2026-07-28 if it answers server/discover, else 2025), legacy (2025) or modern.',
    ),
  restart: restartField
    .optional()
    .describe(
      '{"on": "failure", "max_attempts": 5, "backoff_seconds": [1, 2, 3, 4, 5]} starts it again when it dies. Default: never.',
    ),
  sandbox: sandboxField.optional(),
};

export type WireServerFields = {
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  url?: string | undefined;
  headers?: Record<string, string> | undefined;
  oauth?: z.infer<typeof oauthField> | false | undefined;
  tools?: ToolFilter | undefined;
  watch?: z.infer<typeof watchField> | undefined;
  prefix?: string | undefined;
  era?: 'auto' | Era | undefined;
  restart?: z.infer<typeof restartField> | undefined;
  sandbox?: SandboxWire | undefined;
};

/** Turns validated wire fields into a spec; returns an error message when they do not fit. */
export function specFromWire(fields: WireServerFields): ServerSpec | string {
  const restart = restartPolicy(fields.restart);
  if (fields.command !== undefined && fields.url !== undefined) {
    return 'give either command (a local server) or url (a remote server), not both';
  }
  if (fields.url !== undefined) {
    if (fields.args || fields.env || fields.cwd || fields.watch)
      return 'args, env, cwd and watch apply to a command, not to a url';
    if (fields.sandbox !== undefined && fields.sandbox !== false)
      return 'sandbox applies to a command: a remote server runs on another machine, not as a process mcpmux could sandbox';
    if (!/^https?:\/\//.test(fields.url) || !URL.canParse(fields.url))
      return `url '${fields.url}' is not an absolute http(s) URL`;
    const oauthMismatch = fields.oauth && oauthProblem(fields.oauth);
    if (oauthMismatch) return oauthMismatch;
    const oauth = fields.oauth === false ? false : fields.oauth && oauthSettings(fields.oauth);
    return {
      transport: 'http',
      url: fields.url,
      headers: fields.headers ?? {},
      ...(oauth !== undefined && { oauth }),
      ...(fields.tools && { toolFilter: fields.tools }),
      ...(fields.prefix !== undefined && { prefix: fields.prefix }),
      ...(fields.era !== undefined && { era: fields.era }),
      ...(restart && { restart }),
    };
  }
  if (fields.command === undefined) return 'command is required (or url, for a remote server)';
  if (fields.headers) return 'headers apply to a url, not to a command';
  if (fields.oauth) return 'oauth applies to a url, not to a command';
  return {
    transport: 'stdio',
    command: fields.command,
    args: fields.args ?? [],
    env: fields.env ?? {},
    ...(fields.cwd !== undefined && { cwd: fields.cwd }),
    ...(fields.tools && { toolFilter: fields.tools }),
    ...(fields.watch && { watch: watchSpec(fields.watch) }),
    ...(fields.prefix !== undefined && { prefix: fields.prefix }),
    ...(fields.era !== undefined && { era: fields.era }),
    ...(restart && { restart }),
    ...(fields.sandbox !== undefined && { sandbox: sandboxSetting(fields.sandbox) }),
  };
}

function watchSpec(wire: z.infer<typeof watchField>): WatchSpec {
  const [command, ...args] = wire.build ?? [];
  return {
    paths: wire.paths,
    debounceMs: wire.debounce_ms ?? 300,
    ...(command !== undefined && { build: { command, args } }),
  };
}
