// What the management tools take and return: their input and output schemas, written with zod.
// Listed as JSON Schema (tool-definition.ts) and checked at the edge; management-tools.ts
// says what each tool does with them.
import { z } from 'zod';
import { envRecord, toolFilterField, watchField, wireServerFields } from '../../child/server-spec.js';

const newServerName = z.string().describe('Letters, digits, "_" and "-"; no "__"; not ending in "_".');
const serverName = z.string().describe("The server's name.");

export const addServerInput = z
  .object({
    name: newServerName,
    command: z
      .string()
      .min(1, 'command must not be empty')
      .optional()
      .describe('Executable of a server speaking MCP on stdio, e.g. "npx". Give this or url.'),
    args: z
      .array(z.string())
      .optional()
      .describe('Arguments, e.g. ["-y", "@modelcontextprotocol/server-memory"].'),
    env: envRecord.optional().describe('Extra environment variables (values are never echoed).'),
    cwd: z.string().min(1).optional().describe('Working directory.'),
    url: z
      .string()
      .min(1)
      .optional()
      .describe('A remote server instead: its streamable HTTP (or HTTP+SSE) endpoint.'),
    headers: envRecord.optional().describe('HTTP headers for a remote server (values are never echoed).'),
    oauth: wireServerFields.oauth,
    tools: toolFilterField
      .optional()
      .describe('Which of its tools to expose: {"allow": ["read_*"], "deny": ["delete_*"]}.'),
    prefix: wireServerFields.prefix,
    era: wireServerFields.era,
    restart: wireServerFields.restart,
    sandbox: wireServerFields.sandbox,
    placement: z
      .enum(['one', 'every'])
      .optional()
      .describe(
        'In a cluster of replicas (--redis): "one" (default) runs one copy, on one replica, which the others reach, so that its state is one; "every" runs a copy on each replica (for a server that keeps no state).',
      ),
    watch: watchField
      .optional()
      .describe(
        'For its author: {"paths": ["src/**/*.ts"], "build": ["npm", "run", "build"]} restarts it (after the build) when those files change.',
      ),
    registry: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Instead of command or url: an MCP registry entry that find_servers returned, e.g. "io.github.owner/server". ' +
          'mcpmux works out how it runs and asks the person for its secrets (never pass them in env).',
      ),
    version: z
      .string()
      .min(1)
      .optional()
      .describe('With registry: the entry version to run. Default its latest.'),
    arguments: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        'With registry: values of the entry\'s arguments, by name (a named one by its flag, e.g. "--root").',
      ),
    persist: z
      .boolean()
      .optional()
      .describe("Also write it into mcpmux's config file, so it comes back next time."),
    startup_timeout_seconds: z
      .number()
      .positive()
      .max(3600)
      .optional()
      .describe('How long start-up may take. Default 60.'),
  })
  .strict();

export const reloadInput = z
  .object({
    name: serverName,
    build: z
      .boolean()
      .optional()
      .describe("Run the server's watch.build first; if it fails, the running process is kept."),
  })
  .strict();
export const removeInput = z
  .object({
    name: serverName,
    persist: z.boolean().optional().describe("Also delete the server from mcpmux's config file."),
  })
  .strict();
/** A task as a user writes it runs to a few paragraphs (MCP-Bench's: 630–2,200 characters). */
const QUERY_MAX_CHARS = 10_000;
const QUERY_TOO_LONG = `a query may have at most ${QUERY_MAX_CHARS} characters; split a longer text into queries`;
export const searchInput = z
  .object({
    query: z
      .string()
      .max(QUERY_MAX_CHARS, QUERY_TOO_LONG)
      .optional()
      .describe('What the tool should do, in words (a whole task is fine), or its name.'),
    queries: z
      .array(z.string().max(QUERY_MAX_CHARS, QUERY_TOO_LONG))
      .min(1)
      .max(10)
      .optional()
      .describe(
        'Several searches at once (say, one per step of a task), instead of query: one list of tools each.',
      ),
    limit: z.number().int().min(1).max(50).optional().describe('How many tools to return. Default 5.'),
    server: z.string().optional().describe('Only tools of this server.'),
    activate: z
      .boolean()
      .optional()
      .describe('Also add the found tools to your tool list (when mcpmux runs with --expose search).'),
  })
  .strict()
  .refine((input) => (input.query === undefined) !== (input.queries === undefined), {
    error: (issue) =>
      (issue.input as { query?: unknown }).query === undefined
        ? 'give query (one search) or queries (several)'
        : 'give either query (one search) or queries (several), not both',
  });
const foundTools = z.array(
  z.object({
    name: z.string(),
    server: z.string(),
    description: z.string().optional(),
    inputSchema: z.record(z.string(), z.unknown()).optional(),
    declaration: z
      .string()
      .optional()
      .describe('In code mode, instead of inputSchema: how a program calls it, with its types.'),
    score: z.number(),
    matched: z.array(z.string()).optional().describe('The words of the query that this tool matched.'),
  }),
);
export const searchOutput = z.object({
  tools: foundTools.optional().describe('What query found, best first.'),
  results: z
    .array(z.object({ query: z.string(), tools: foundTools }))
    .optional()
    .describe('For queries: what each one found, in the order given.'),
  servers: z
    .array(z.object({ name: z.string(), tools: z.number() }))
    .optional()
    .describe('When nothing matched: the servers and their tool counts.'),
  activated: z.array(z.string()).optional().describe('Tools newly added to the tool list.'),
  deactivated: z
    .array(z.string())
    .optional()
    .describe('Tools taken off the list to make room (least recently used).'),
  hint: z.string().optional(),
});
export const persistedFields = {
  persisted_to: z.string().optional(),
  persist_error: z.string().optional(),
  persist_note: z
    .string()
    .optional()
    .describe('What the config needs besides: secrets written as ${NAME}, to be set in its environment.'),
};
/** add_server and remove_server in a cluster: the change is every replica's. */
export const clusterFields = {
  cluster: z
    .object({
      replica: z.string().describe('The replica that made the change.'),
      waiting_for: z
        .array(z.string())
        .optional()
        .describe(
          'Replicas that had not applied it after 30 s (busy starting servers, or cut off): they will.',
        ),
    })
    .optional()
    .describe(
      'Present in a cluster: the change reaches every replica, each starting the server through its own spawn policy (list_servers there says where it did not).',
    ),
};
export const emptyInput = z.object({}).strict();
export const callToolInput = z
  .object({
    name: z
      .string()
      .min(1)
      .describe('Exposed tool name, e.g. "memory__read_graph" (as returned by add_server).'),
    arguments: z.record(z.string(), z.unknown()).optional().describe('The tool arguments, an object.'),
  })
  .strict();

export const exitSchema = z.object({ code: z.number().nullable(), signal: z.string().nullable() });
export const statusSchema = z.object({
  name: z.string(),
  status: z.enum(['starting', 'needs_auth', 'needs_config', 'running', 'stopping', 'crashed', 'restarting']),
  missing: z
    .array(z.string())
    .optional()
    .describe(
      'needs_config: the variables its config refers to that are not set (last_error says where to set them).',
    ),
  authorization_url: z
    .string()
    .optional()
    .describe('needs_auth: where a person signs in to the remote server (OAuth); mcpmux waits for it.'),
  authorization_reason: z.string().optional().describe('needs_auth: why a sign-in is needed.'),
  restart: z
    .object({
      attempt: z.number(),
      max_attempts: z.number(),
      next_try_in_seconds: z.number().optional(),
      gave_up: z.boolean().optional(),
    })
    .optional()
    .describe('Its restart policy at work: the attempt, and when the next one starts (or that it gave up).'),
  transport: z.enum(['stdio', 'http']),
  registry_entry: z.string().optional().describe('The MCP registry entry it was added from.'),
  sandbox: z
    .object({
      state: z.enum(['on', 'off', 'remote']),
      profile: z.enum(['default', 'widened']).optional(),
      writable: z.array(z.string()).optional(),
      domains: z.array(z.string()).optional(),
    })
    .optional()
    .describe(
      'The OS sandbox its process runs in: on (what it may write, the hosts it may reach), off, or remote (no process here).',
    ),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  url: z.string().optional(),
  cwd: z.string().optional(),
  env: z
    .array(z.string())
    .optional()
    .describe('Names of the extra environment variables (values are never shown).'),
  headers: z.array(z.string()).optional(),
  pid: z.number().optional(),
  tools: z.array(z.string()).describe('Exposed tool names.'),
  skipped: z
    .array(z.string())
    .optional()
    .describe('What it listed that is not valid MCP, and so is not exposed: each item and why.'),
  http_transport: z.enum(['streamable-http', 'sse']).optional(),
  last_build: z
    .object({ ok: z.boolean(), seconds: z.number(), output_tail: z.array(z.string()).optional() })
    .optional(),
  tool_filter: toolFilterField.optional(),
  prompts: z.array(z.string()).optional().describe('Exposed prompt names.'),
  resources: z.number().optional().describe('How many resources it lists.'),
  resource_templates: z.number().optional().describe('How many resource templates it lists.'),
  uptime_seconds: z.number().optional(),
  instructions: z
    .string()
    .optional()
    .describe(
      'How the server says it is to be used (its own instructions): follow them when using its tools.',
    ),
  last_ping_ok_seconds_ago: z.number().optional().describe('Seconds since it last answered a ping.'),
  missed_pings: z
    .number()
    .optional()
    .describe('Pings missed in a row since then (a hung server keeps missing them).'),
  unread_input_bytes: z
    .number()
    .optional()
    .describe('While it is not reading its input: the bytes of requests waiting for it.'),
  input_full_seconds: z.number().optional().describe('And for how long it has read none of them.'),
  exit: exitSchema.optional(),
  stderr_tail: z.array(z.string()).optional(),
  last_error: z.string().optional(),
});
const toolSummary = z.object({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
});
export const startedOutput = z.object({
  server: statusSchema,
  tools: z.array(toolSummary),
  trust: z
    .object({
      state: z.literal('held'),
      items: z.number().describe('How many tools, prompts and templates it lists, none shown.'),
      message: z.string().describe('Why it is held, and how a person releases it.'),
    })
    .optional()
    .describe('Present when the server is held: none of its text reaches you until a person approves it.'),
  ...persistedFields,
  ...clusterFields,
});
export const diffSchema = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
});

/** The fields add_server takes for a command or a URL, which a registry entry works out itself. */
export const SPEC_FIELDS = ['command', 'args', 'url', 'headers', 'oauth', 'watch'] as const;
/** The fields only a registry entry's add takes. */
export const ENTRY_FIELDS = ['version', 'arguments'] as const;

export const findServersInput = z
  .object({
    query: z
      .string()
      .min(1, 'give a query: what the server should do, in words')
      .max(QUERY_MAX_CHARS, QUERY_TOO_LONG)
      .describe(
        'What the server should do, in words (e.g. "remember facts as a knowledge graph"), or its name.',
      ),
    limit: z.number().int().min(1).max(20).optional().describe('How many entries to return. Default 5.'),
  })
  .strict();

const foundInput = z.object({
  name: z.string(),
  description: z.string().optional(),
  required: z.boolean(),
  secret: z.boolean().describe('Only the person gives it: add_server asks them; never pass it in env.'),
  default: z.string().optional(),
  choices: z.array(z.string()).optional(),
});
export const findServersOutput = z.object({
  servers: z.array(
    z.object({
      registry: z.string(),
      name: z.string().describe('What add_server takes as registry.'),
      title: z.string().optional(),
      description: z.string().optional(),
      version: z.string().optional(),
      status: z.string().optional(),
      runs: z.string().describe('How it runs here: an npm, PyPI or OCI package, or a remote URL.'),
      command: z
        .array(z.string())
        .optional()
        .describe(
          'The exact command line it runs (a remote: its URL); values to give and secrets as ${NAME}.',
        ),
      fixed_env: z
        .record(z.string(), z.string())
        .optional()
        .describe("Variables its publisher fixed, with their values (a secret's as ${NAME})."),
      env: z.array(foundInput).optional(),
      headers: z.array(foundInput).optional(),
      arguments: z.array(foundInput).optional(),
      running_as: z.array(z.string()).optional().describe('Servers here that run it already.'),
    }),
  ),
  problems: z
    .array(z.string())
    .optional()
    .describe('Registries that could not be read, or only as kept earlier.'),
  hint: z.string().optional(),
});
