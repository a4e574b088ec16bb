// An in-process mcpmux, made by the composition root's own parts (wiring/core.ts and its
// session factory, as serve.ts makes it), connected to a real SDK Client over the SDK's
// linked in-memory transports. Children are real processes. `close` stops them all
// and checks that none is left.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/client';
import type { Test } from 'tap';
import type { ChildConnectionOptions } from '../../src/child/child-types.js';
import { createLogger } from '../../src/common/log.js';
import type { ExposeMode } from '../../src/session/exposure.js';
import type { Children } from '../../src/children/children.js';
import type { CatalogRouter } from '../../src/router/catalog-router.js';
import type { CodeModeOptions } from '../../src/code/code-mode.js';
import type { QuarantineMode } from '../../src/trust/quarantine.js';
import { SpawnPolicy, type SpawnPolicyOptions } from '../../src/policy/spawn-policy.js';
import { createCore } from '../../src/wiring/core.js';
import { sessionFactory } from '../../src/wiring/sessions.js';
import { assertNoLeaks, killTaggedProcesses, taggedEnv } from './processes.js';

export interface Harness {
  client: Client;
  children: Children;
  router: CatalogRouter;
  /** Count of notifications/tools/list_changed received. */
  listChanged: () => number;
  /** Lines mcpmux logged. */
  logs: string[];
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  /** structuredContent of a successful management call; fails the test otherwise. */
  callJson: (name: string, args?: Record<string, unknown>) => Promise<any>;
  toolNames: () => Promise<string[]>;
  /** Closes client and mcpmux (stopping every child) and asserts no process is left. */
  close: () => Promise<void>;
}

export interface HarnessOptions {
  maxToolName?: number;
  /** Exposure mode and pool size of the MCP server. */
  mux?: { expose?: ExposeMode; activePoolSize?: number; maxResultBytes?: number };
  /** With expose code: the sandbox's settings. */
  code?: Partial<Omit<CodeModeOptions, 'logger'>>;
  /** Spawn policy options (the default inherits the tagged test environment). */
  policy?: Partial<SpawnPolicyOptions>;
  /** What the client declares (sampling, elicitation, roots). Default: nothing. */
  clientCapabilities?: ClientCapabilities;
  /** Installs the client's handlers (sampling, elicitation, roots, notifications) before it connects. */
  setupClient?: (client: Client) => void;
  connection?: Partial<Omit<ChildConnectionOptions, 'name' | 'spec' | 'onEvent' | 'logger'>>;
  /** --quarantine; default strangers, as mcpmux's. */
  quarantine?: QuarantineMode;
}

export async function startHarness(t: Test, options: HarnessOptions = {}): Promise<Harness> {
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', sink: (line) => logs.push(line) });
  // The same core and session factory serve.ts wires, with the test's settings.
  const core = await createCore({
    logger,
    policy: new SpawnPolicy({ inheritEnv: true, environment: taggedEnv(), logger, ...options.policy }),
    maxToolName: options.maxToolName ?? 64,
    connection: {
      stopTimings: { stdinGraceMs: 300, termGraceMs: 500, killWaitMs: 3000 },
      ...options.connection,
    },
    expose: options.mux?.expose ?? 'all',
    ...(options.code && { code: options.code }),
    quarantine: options.quarantine ?? 'strangers',
    // Approvals of its own, as a fresh machine's: another harness's of the same command line are not its.
    trustState: mkdtempSync(join(process.env['MCPMUX_TEST_STATE'] ?? tmpdir(), 'harness-trust-')),
  });
  const { children, router } = core;
  const mux = sessionFactory(core, {
    ...(options.mux?.activePoolSize !== undefined && { activePoolSize: options.mux.activePoolSize }),
    ...(options.mux?.maxResultBytes !== undefined && { maxResultBytes: options.mux.maxResultBytes }),
    version: 'test',
    listChangedDebounceMs: 5,
  }).newSession();
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: options.clientCapabilities ?? {} },
  );
  options.setupClient?.(client);
  let listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    listChanged++;
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mux.connect(serverSide);
  await client.connect(clientSide);
  let closed = false;
  const shutdown = async () => {
    if (closed) return;
    closed = true;
    await client.close();
    await children.close();
    await mux.close();
    await core.close();
  };
  // Safety net for a test that failed before close(): nothing may outlive the file.
  t.teardown(async () => {
    await shutdown();
    killTaggedProcesses();
  });
  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  return {
    client,
    children,
    router,
    logs,
    listChanged: () => listChanged,
    call,
    callJson: async (name, args) => {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent;
    },
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    close: async () => {
      await shutdown();
      await assertNoLeaks(t);
    },
  };
}

export const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
