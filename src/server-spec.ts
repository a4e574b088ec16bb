// What it takes to start one child server, as given by add_server, a config file or
// the command line. Validated once, at those edges; everything inside trusts the type.
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import type { ToolFilter } from './router/tool-filter.js';

export const SERVER_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;

export interface StdioServerSpec {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Variables added to the child's environment (values are secrets: never echoed). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The author's dev loop: files to watch (globs, relative to cwd) and what builds the server. */
  readonly watch?: WatchSpec;
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
  /** Sign in with OAuth 2.1 (authorization code with PKCE, or client credentials) when the server asks for it. */
  readonly oauth?: OAuthSettings;
}

export type MachineGrant = 'client_credentials' | 'jwt_bearer';
/** RFC 7523's name for jwt_bearer, accepted as written. */
const JWT_BEARER_URN = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** A remote server's OAuth client settings; all optional (dynamic registration by default). */
export interface OAuthSettings {
  /**
   * A machine client, which gets its tokens itself with no person and no browser:
   * client_credentials with its id and its secret or private key (SEP-1046), jwt_bearer with a
   * workload token its platform issues (RFC 7523, SEP-1933). Absent: a person signs in
   * (authorization code).
   */
  readonly grantType?: MachineGrant;
  /** jwt_bearer: the file holding the workload's token, read again for each token asked for (it rotates). */
  readonly assertionFile?: string;
  /** A PEM private key that signs the client's assertions (private_key_jwt; a secret: never echoed). */
  readonly privateKey?: string;
  /** Its JWS algorithm (RS256, ES256, EdDSA…); absent: the key type's usual one. */
  readonly signingAlgorithm?: string;
  /** A client registered beforehand with the authorization server (no dynamic registration). */
  readonly clientId?: string;
  /** Its secret, for a confidential client (a secret: never echoed). */
  readonly clientSecret?: string;
  /** A client ID metadata document's URL (the client's ID where the server supports them). */
  readonly clientMetadataUrl?: string;
  /** Scopes to ask for; absent: what the server's challenge or metadata says. */
  readonly scopes?: readonly string[];
  /** The loopback port the browser is sent back to; absent: any free port. */
  readonly redirectPort?: number;
  /** false: bearer tokens even where the authorization server offers DPoP (dpop-key.ts). */
  readonly dpop?: false;
}

export const oauthField = z
  .object({
    grant_type: z
      .enum(['authorization_code', 'client_credentials', 'jwt_bearer', JWT_BEARER_URN])
      .optional()
      .describe(
        'A machine client, no browser: client_credentials (client_secret or private_key) or jwt_bearer (assertion_file).',
      ),
    assertion_file: z.string().min(1).optional().describe("jwt_bearer: the workload token's file."),
    client_id: z
      .string()
      .min(1)
      .optional()
      .describe('A client registered beforehand (skips dynamic registration).'),
    client_secret: z
      .string()
      .min(1)
      .optional()
      .describe('Its secret, for a confidential client; ${VAR} works.'),
    private_key: z
      .string()
      .min(1)
      .optional()
      .describe('PEM private key signing the client assertion (private_key_jwt).'),
    signing_algorithm: z
      .string()
      .min(1)
      .optional()
      .describe("private_key's JWS algorithm. Default: from the key type."),
    client_metadata_url: z
      .url({ protocol: /^https?$/, error: 'client_metadata_url must be an http(s) URL' })
      .optional()
      .describe("A client ID metadata document's URL, used as the client ID where the server supports it."),
    scopes: z
      .array(z.string().min(1))
      .optional()
      .describe('Scopes to ask for. Default: what the server asks.'),
    redirect_port: z
      .number()
      .int()
      .min(1, 'redirect_port must be a port number (1–65535)')
      .max(65_535, 'redirect_port must be a port number (1–65535)')
      .optional()
      .describe(
        'The loopback port of the redirect URI (http://127.0.0.1:PORT/callback). Default: any free port.',
      ),
    dpop: z.boolean().optional().describe('false: no DPoP.'),
  })
  .strict();

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
  readonly era?: 'auto' | 'legacy' | 'modern';
  /** Restarted after a crash (on "failure"), with a backoff; absent: never, as by default. */
  readonly restart?: RestartPolicy;
};

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
  oauth: oauthField
    .optional()
    .describe('Sign in with OAuth when the server asks: {} for dynamic registration, or {"client_id": …}.'),
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
      'Protocol era to speak: auto (default: 2026-07-28 if it answers server/discover, else 2025), legacy or modern.',
    ),
  restart: restartField
    .optional()
    .describe(
      'Start it again when it dies on its own: {"on": "failure", "max_attempts": 5, "backoff_seconds": [1, 2, 3, 4, 5]}. Default: never.',
    ),
};

export type WireServerFields = {
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  url?: string | undefined;
  headers?: Record<string, string> | undefined;
  oauth?: z.infer<typeof oauthField> | undefined;
  tools?: ToolFilter | undefined;
  watch?: z.infer<typeof watchField> | undefined;
  prefix?: string | undefined;
  era?: 'auto' | 'legacy' | 'modern' | undefined;
  restart?: z.infer<typeof restartField> | undefined;
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
    if (!/^https?:\/\//.test(fields.url) || !URL.canParse(fields.url))
      return `url '${fields.url}' is not an absolute http(s) URL`;
    const oauthProblem = fields.oauth && oauthMismatch(fields.oauth);
    if (oauthProblem) return oauthProblem;
    return {
      transport: 'http',
      url: fields.url,
      headers: fields.headers ?? {},
      ...(fields.oauth && { oauth: oauthSettings(fields.oauth) }),
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
  };
}

/** What does not fit together in an oauth block: a machine client needs its credentials, a person's none of them. */
function oauthMismatch(wire: z.infer<typeof oauthField>): string | undefined {
  const grant = machineGrant(wire.grant_type);
  if (wire.assertion_file !== undefined && grant !== 'jwt_bearer')
    return 'oauth.assertion_file applies to "grant_type": "jwt_bearer"';
  if (grant === undefined) {
    return wire.private_key !== undefined || wire.signing_algorithm !== undefined
      ? 'oauth.private_key and oauth.signing_algorithm apply to a machine client ("grant_type": "client_credentials" or "jwt_bearer")'
      : undefined;
  }
  if (wire.client_id === undefined)
    return `oauth with "grant_type": "${grant}" needs the client_id the authorization server knows this client by`;
  if (grant === 'jwt_bearer' && wire.assertion_file === undefined)
    return 'oauth with "grant_type": "jwt_bearer" needs assertion_file: the file the platform writes the workload\'s token to (e.g. "${AZURE_FEDERATED_TOKEN_FILE}", a Kubernetes projected token)';
  if (wire.client_secret !== undefined && wire.private_key !== undefined)
    return 'oauth: give one of client_secret and private_key, not both';
  if (grant === 'client_credentials' && wire.client_secret === undefined && wire.private_key === undefined)
    return 'oauth with "grant_type": "client_credentials" needs one of client_secret and private_key';
  if (wire.signing_algorithm !== undefined && wire.private_key === undefined)
    return 'oauth.signing_algorithm applies to a private_key';
  if (wire.private_key !== undefined) {
    try {
      createPrivateKey(wire.private_key);
    } catch (error) {
      return `oauth.private_key is not a private key in PEM ("-----BEGIN PRIVATE KEY-----…"): ${(error as Error).message}`;
    }
  }
  return undefined;
}

/** The machine grant an oauth block names, RFC 7523's URN read as jwt_bearer; none for a person's sign-in. */
function machineGrant(grant: z.infer<typeof oauthField>['grant_type']): MachineGrant | undefined {
  if (grant === JWT_BEARER_URN) return 'jwt_bearer';
  return grant === 'authorization_code' ? undefined : grant;
}

function oauthSettings(wire: z.infer<typeof oauthField>): OAuthSettings {
  const grantType = machineGrant(wire.grant_type);
  return {
    ...(grantType !== undefined && { grantType }),
    ...(wire.assertion_file !== undefined && { assertionFile: wire.assertion_file }),
    ...(wire.private_key !== undefined && { privateKey: wire.private_key }),
    ...(wire.signing_algorithm !== undefined && { signingAlgorithm: wire.signing_algorithm }),
    ...(wire.client_id !== undefined && { clientId: wire.client_id }),
    ...(wire.client_secret !== undefined && { clientSecret: wire.client_secret }),
    ...(wire.client_metadata_url !== undefined && { clientMetadataUrl: wire.client_metadata_url }),
    ...(wire.scopes !== undefined && { scopes: wire.scopes }),
    ...(wire.redirect_port !== undefined && { redirectPort: wire.redirect_port }),
    ...(wire.dpop === false && { dpop: false }),
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
