// A child as list_servers shows it: state, command or URL, tools, pings, the last build,
// the restart policy's progress, the end of its stderr. Secrets (env values, header
// values) are never included, only their names.
import type { Client } from '@modelcontextprotocol/client';
import type { ServerSpec } from './server-spec.js';
import { wantsSandbox, type SandboxSetting } from './sandbox-setting.js';
import { CATALOG_KINDS } from '../protocol/capabilities.js';
import type { ExitInfo } from './process/child-process.js';
import { MuxError } from '../common/errors.js';
import type { ChildState } from './child-state.js';
import type { StopReason } from './child-types.js';
import type { Generation } from './generation.js';
import { inputStatus } from './process/input-backlog.js';
import { describeEnd } from './process/exit-words.js';

/** The status of a child as list_servers shows it (secrets are never included). */
export interface ChildStatus {
  name: string;
  /**
   * needs_auth: starting, and waiting for a person to sign in at authorization_url.
   * needs_config: not started, as its config refers to values that are not there (`missing`).
   */
  status: 'starting' | 'needs_auth' | 'needs_config' | 'running' | 'stopping' | 'crashed' | 'restarting';
  /** needs_config: the variables (and `secret:ENTRY/NAME` kept secrets) it waits for; last_error says where to set them. */
  missing?: string[];
  /** Where to sign in (OAuth), while mcpmux waits for it, and why it is needed. */
  authorization_url?: string;
  authorization_reason?: string;
  /** While it waits to be started again after a crash (restart policy), or once it gave up. */
  restart?: { attempt: number; max_attempts: number; next_try_in_seconds?: number; gave_up?: boolean };
  transport: ServerSpec['transport'];
  /** The MCP registry entry it was added from. */
  registry_entry?: string;
  /**
   * The OS sandbox its process runs in: on (what it may write and reach, once it runs), off, or
   * remote (a server on another machine: no process here to sandbox).
   */
  sandbox?: {
    state: 'on' | 'off' | 'remote';
    profile?: 'default' | 'widened';
    writable?: string[];
    domains?: string[];
  };
  command?: string;
  args?: string[];
  url?: string;
  cwd?: string;
  env?: string[];
  headers?: string[];
  pid?: number;
  tools: string[];
  /** The last build (watch.build), with its output's end when it failed. */
  last_build?: { ok: boolean; seconds: number; output_tail?: string[] };
  /** A remote server: the HTTP transport that reached it. */
  http_transport?: 'streamable-http' | 'sse';
  /** The protocol revision it speaks (2025-11-25 and older: the 2025 era; 2026-07-28: the modern one). */
  protocol_version?: string;
  /**
   * How the server says it is to be used (its initialize result's instructions). A client
   * reads those only from mcpmux's own initialize, so the model gets them here instead.
   */
  instructions?: string;
  /** The filter its tools pass through, when it has one. */
  tool_filter?: { allow?: string[]; deny?: string[] };
  /** The prefix its tools and prompts are exposed under, when it is not the default `NAME__`. */
  prefix?: string;
  /** What it listed that is not valid MCP, and so is not exposed: each item and why (only when there is any). */
  skipped?: string[];
  /** Prompt names, and how many resources and resource templates it lists (only when it has any). */
  prompts?: string[];
  resources?: number;
  resource_templates?: number;
  uptime_seconds?: number;
  /** Seconds since the child last answered a ping, and how many pings in a row it has missed since. */
  last_ping_ok_seconds_ago?: number;
  missed_pings?: number;
  /** While its stdin is full: the bytes waiting for it, and for how long it has read none (input-backlog.ts). */
  unread_input_bytes?: number;
  input_full_seconds?: number;
  exit?: ExitInfo;
  stderr_tail?: string[];
  last_error?: string;
}

export interface StatusInput {
  name: string;
  spec: ServerSpec;
  state: ChildState;
  gen: Generation | undefined;
  lastBuild: ChildStatus['last_build'];
  /** The authorization URL a remote server's sign-in waits on, if it does. */
  signInUrl?: string | undefined;
  signInReason?: string | undefined;
  /** Whether it runs in the OS sandbox (the spawn policy says, from its spec and --sandbox). */
  sandbox?: SandboxSetting | undefined;
}

export function describeStatus(input: StatusInput, now: number): ChildStatus {
  const { state: s, spec, gen } = input;
  const out: ChildStatus = {
    name: input.name,
    // 'stopped' is only seen between the two halves of a reload.
    status: s.kind === 'idle' ? 'starting' : s.kind === 'stopped' ? 'stopping' : s.kind,
    transport: spec.transport,
    tools: [],
    ...(spec.prefix !== undefined && { prefix: spec.prefix }),
    ...(spec.registryEntry !== undefined && { registry_entry: spec.registryEntry }),
  };
  if (s.kind === 'crashed' && spec.unconfigured) {
    out.status = 'needs_config';
    out.missing = [...spec.unconfigured.missing];
  }
  if (s.kind === 'starting' && input.signInUrl !== undefined) {
    out.status = 'needs_auth';
    out.authorization_url = input.signInUrl;
    if (input.signInReason !== undefined) out.authorization_reason = input.signInReason;
  }
  Object.assign(out, specStatus(spec));
  out.sandbox = sandboxStatus(input);
  if (input.lastBuild) out.last_build = input.lastBuild;
  const pid = gen?.process?.pid;
  if (pid !== undefined && (s.kind === 'running' || s.kind === 'starting' || s.kind === 'stopping'))
    out.pid = pid;
  if (s.kind === 'running') Object.assign(out, runningStatus(s, gen, now));
  if (s.kind === 'crashed' || s.kind === 'restarting') {
    if (s.exit) out.exit = s.exit;
    out.last_error = s.error;
  }
  if (s.kind === 'restarting')
    out.restart = {
      attempt: s.attempt,
      max_attempts: s.maxAttempts,
      next_try_in_seconds: Math.max(0, Math.round((s.nextAt - now) / 100) / 10),
    };
  else if (s.kind === 'crashed' && s.gaveUpAfter !== undefined)
    out.restart = { attempt: s.gaveUpAfter, max_attempts: s.gaveUpAfter, gave_up: true };
  if (s.kind === 'stopped' && s.exit) out.exit = s.exit;
  const crashed = s.kind === 'crashed' || s.kind === 'restarting';
  const tail = gen?.tail.lines(crashed ? undefined : 10) ?? [];
  if (tail.length > 0) out.stderr_tail = tail;
  return out;
}

/** The sandbox it runs in: what it may write and reach as its process was given them, else what it asks for. */
function sandboxStatus(input: StatusInput): NonNullable<ChildStatus['sandbox']> {
  if (input.spec.transport !== 'stdio') return { state: 'remote' };
  const running = input.gen?.process?.sandbox;
  if (running)
    return {
      state: 'on',
      profile: running.profile,
      writable: [...running.writable],
      domains: [...running.domains],
    };
  return { state: wantsSandbox(input.sandbox) ? 'on' : 'off' };
}

/** What list_servers shows of a server's spec: what runs or where, and names only of its env and headers. */
function specStatus(spec: StatusInput['spec']): Partial<ChildStatus> {
  const out: Partial<ChildStatus> = {};
  if (spec.transport === 'stdio') {
    out.command = spec.command;
    out.args = [...spec.args];
    if (spec.cwd !== undefined) out.cwd = spec.cwd;
    const envNames = Object.keys(spec.env);
    if (envNames.length > 0) out.env = envNames;
  } else {
    out.url = spec.url;
    const headerNames = Object.keys(spec.headers);
    if (headerNames.length > 0) out.headers = headerNames;
  }
  if (spec.toolFilter) {
    const { allow, deny } = spec.toolFilter;
    out.tool_filter = { ...(allow && { allow: [...allow] }), ...(deny && { deny: [...deny] }) };
  }
  return out;
}

/** A running server's catalog, its connection's life and what it waits on. */
function runningStatus(
  s: Extract<ChildState, { kind: 'running' }>,
  gen: StatusInput['gen'],
  now: number,
): Partial<ChildStatus> {
  const out: Partial<ChildStatus> = {};
  out.tools = s.catalog.tools.map((t) => t.name);
  if (s.catalog.prompts.length > 0) out.prompts = s.catalog.prompts.map((p) => p.name);
  if (s.catalog.resources.length > 0) out.resources = s.catalog.resources.length;
  if (s.catalog.resourceTemplates.length > 0) out.resource_templates = s.catalog.resourceTemplates.length;
  const skipped = CATALOG_KINDS.flatMap((kind) => gen?.skipped?.[kind] ?? []);
  if (skipped.length > 0) out.skipped = skipped;
  out.uptime_seconds = Math.round((now - s.since) / 100) / 10;
  // (The cluster's hop to another replica is shown as where the server runs, not as a transport.)
  if (gen?.remote && gen.remote !== 'cluster-hop') out.http_transport = gen.remote;
  const version = gen?.client?.getNegotiatedProtocolVersion();
  if (version !== undefined) out.protocol_version = version;
  const instructions = gen?.client?.getInstructions()?.trim();
  if (instructions) out.instructions = instructions;
  const ping = gen?.ping;
  if (ping) {
    out.last_ping_ok_seconds_ago = Math.round((now - ping.lastOk) / 100) / 10;
    out.missed_pings = ping.missed;
  }
  Object.assign(out, inputStatus(gen?.input, now));
  return out;
}

/**
 * What a request to a child that is not running is told, by its state. `underPolicy`: it
 * crashed just now and has a restart policy, which decides next whether to start it again.
 */
export function notRunningError(name: string, s: ChildState, underPolicy = false): MuxError {
  const reload = `call reload_server {"name":"${name}"}`;
  switch (s.kind) {
    case 'crashed':
      return new MuxError(
        'SERVER_CRASHED',
        `server '${name}' crashed (${describeEnd(s.exit, s.error)}); ${underPolicy ? `its restart policy may start it again (list_servers shows whether it is restarting), or ${reload}` : reload}`,
      );
    case 'restarting':
      return new MuxError(
        'SERVER_CRASHED',
        `server '${name}' crashed (${describeEnd(s.exit, s.error)}) and is being restarted (attempt ${s.attempt} of ${s.maxAttempts})`,
      );
    case 'starting':
      return new MuxError('SERVER_BUSY', `server '${name}' is starting; try again when it is running`);
    case 'stopping':
      return new MuxError('SERVER_STOPPED', `server '${name}' is stopping`);
    default:
      return new MuxError('SERVER_STOPPED', `server '${name}' is not running; ${reload}`);
  }
}

/** What a running child says about itself (serverInfo and instructions). */
export interface ServerAbout {
  name?: string;
  version?: string;
  title?: string;
  instructions?: string;
}

export function aboutServer(client: Client): ServerAbout {
  const info = client.getServerVersion();
  const instructions = client.getInstructions();
  return {
    ...(info?.name !== undefined && { name: info.name }),
    ...(info?.version !== undefined && { version: info.version }),
    ...(info?.title !== undefined && { title: info.title }),
    ...(instructions !== undefined && { instructions }),
  };
}

/** What a stop tells the calls in flight and a start under way. */
export function stopErrors(
  name: string,
  reason: StopReason,
): { inFlight: MuxError; whileStarting: MuxError } {
  const why = {
    removed: `server '${name}' was removed while the call was in flight`,
    reloading: `server '${name}' was reloaded while the call was in flight; call the tool again`,
    shutdown: `mcpmux is shutting down`,
  }[reason];
  const verb = { removed: 'removed', reloading: 'reloaded', shutdown: 'shut down' }[reason];
  return {
    inFlight: new MuxError('SERVER_STOPPED', why),
    whileStarting: new MuxError('SERVER_STOPPED', `server '${name}' was ${verb} while it was starting`),
  };
}
