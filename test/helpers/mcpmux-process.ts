// The built mcpmux (dist/main.js) as a client starts it: a real process on stdio, driven by
// the SDK client; its stdout lines and stderr are kept for the test to check.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { StdioChildTransport } from '../../src/child/process/stdio-child-transport.js';
import { DIST_MAIN } from './fixtures.js';
import { LEAK_TAG_VAR, taggedEnv, waitFor } from './processes.js';

/**
 * The SDK's own stdio client transport to the built mcpmux (for a client the test builds
 * itself: its era, its handlers), the leak tag passed on, and mcpmux's stderr as it grows.
 */
export function mcpmuxStdioTransport(
  args: string[] = [],
  env: Record<string, string> = {},
): {
  transport: StdioClientTransport;
  stderr: () => string;
} {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [DIST_MAIN, '--pass-env', LEAK_TAG_VAR, ...args],
    env: taggedEnv(env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return { transport, stderr: () => stderr };
}

export interface Session {
  client: Client;
  process: ChildProcess;
  /** Raw stdout lines of mcpmux. */
  stdoutLines: string[];
  stderr: () => string;
  listChanged: () => number;
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  json: (name: string, args?: Record<string, unknown>) => Promise<any>;
}

export async function startMcpmux(
  args: string[] = [],
  clientSide?: { capabilities: ClientCapabilities; setup: (client: Client) => void },
  env: Record<string, string> = {},
): Promise<Session> {
  // Children get a minimal environment by default; the leak tag must reach them to be found.
  const withTag = args.includes('--')
    ? [...args.slice(0, args.indexOf('--')), '--pass-env', LEAK_TAG_VAR, ...args.slice(args.indexOf('--'))]
    : [...args, '--pass-env', LEAK_TAG_VAR];
  const proc = await ChildProcess.spawn({
    command: process.execPath,
    args: [DIST_MAIN, ...withTag],
    env: taggedEnv(env),
  });
  const stdoutLines: string[] = [];
  let partial = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    stdoutLines.push(...parts);
  });
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client(
    { name: 'e2e', version: '1.0.0' },
    { capabilities: clientSide?.capabilities ?? {} },
  );
  clientSide?.setup(client);
  let listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
  await client.connect(new StdioChildTransport(proc));
  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  return {
    client,
    process: proc,
    stdoutLines,
    stderr: () => stderr,
    listChanged: () => listChanged,
    call,
    json: async (name, args) => {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
      return result.structuredContent;
    },
  };
}

export const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
export const serverStatus = async (s: Session, name: string) =>
  ((await s.json('list_servers')).servers as any[]).find((x) => x.name === name);

export interface HttpMcpmux {
  process: ChildProcess;
  /** The URL mcpmux serves MCP at (http://127.0.0.1:PORT/mcp). */
  url: string;
  stderr: () => string;
  /** Ends it as an operator does (SIGTERM) and waits for its exit. */
  stop: () => Promise<unknown>;
}

/**
 * The built mcpmux serving `--http 0` (any free port), once it says where. `bare` runs it
 * without the test runner's NODE_OPTIONS (its loaders and coverage hooks, ~70 MB of RSS), as a user's would be.
 */
export async function startMcpmuxHttp(
  args: string[] = [],
  { bare = false, env = {} as Record<string, string> } = {},
): Promise<HttpMcpmux> {
  const argv = [process.execPath, DIST_MAIN, '--http', '0', '--pass-env', LEAK_TAG_VAR, ...args];
  // The runner puts its hooks into every child's NODE_OPTIONS at spawn; env(1) takes them out again (and execs node: same pid).
  const [command, ...rest] = bare ? ['/usr/bin/env', '-u', 'NODE_OPTIONS', ...argv] : argv;
  const proc = await ChildProcess.spawn({ command: command!, args: rest, env: taggedEnv(env) });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  if (!(await waitFor(() => /serving MCP over HTTP at (\S+)/.test(stderr), 15_000)))
    throw new Error(`mcpmux --http did not start: ${stderr}`);
  return {
    process: proc,
    url: /serving MCP over HTTP at (\S+)/.exec(stderr)![1]!,
    stderr: () => stderr,
    stop: () => {
      process.kill(proc.pid, 'SIGTERM');
      return proc.exited;
    },
  };
}

/** `mcpmux ARGS` run as the operator runs it in a terminal (not one), beside a running mcpmux of the same state. */
export async function mcpmuxCommand(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ stdout: string; stderr: string; code: number }> {
  const run = promisify(execFile);
  try {
    const { stdout, stderr } = await run(process.execPath, [DIST_MAIN, ...args], {
      env: { ...process.env, ...env },
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number };
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
  }
}
