// Replicas of the built mcpmux for the cluster's tests: each serves HTTP on a free port, joins
// the test's Redis under the cluster 'team', and comes with a 2025 client of its own.
import { Client, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client';
import type { Test } from 'tap';
import { startMcpmuxHttp, type HttpMcpmux } from './mcpmux-process.js';
import { isAlive, waitFor } from './processes.js';

export const STATE_KEY = 'the-cluster-state-key-of-this-test-0123456789';

export interface Replica {
  readonly name: string;
  readonly mux: HttpMcpmux;
  /** host:port, as a load balancer names it. */
  readonly address: string;
  readonly client: Client;
  /** How many tools/list_changed its client has heard. */
  listChanged: number;
  /** One of mcpmux's own tools: its structured answer, or `{ error }` with its text. */
  json(tool: string, args?: Record<string, unknown>): Promise<any>;
  tools(): Promise<string[]>;
}

export async function startReplica(
  t: Test,
  redisUrl: string,
  name: string,
  extra: string[] = [],
  {
    token,
    env = {},
    model,
  }: {
    token?: string;
    env?: Record<string, string>;
    /** The client's model (scripted-model.ts), answering the replica's sampling. */
    model?: { capabilities: ClientCapabilities; setup(client: Client): unknown };
  } = {},
): Promise<Replica> {
  const mux = await startMcpmuxHttp(['--redis', redisUrl, '--cluster', 'team', '--replica', name, ...extra], {
    env: { MCPMUX_STATE_KEY: STATE_KEY, ...(token && { MCPMUX_AUTH_TOKEN: token }), ...env },
  });
  t.teardown(async () => {
    if (isAlive(mux.process.pid)) await mux.stop();
  });
  const base = mux.url.replace(/\/mcp$/, '');
  t.ok(
    await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, 15_000),
    `${name} is ready once it has the cluster's set`,
  );
  const client = new Client(
    { name: `client-of-${name}`, version: '1.0.0' },
    model && { capabilities: model.capabilities },
  );
  model?.setup(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mux.url), {
      ...(token && { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    }),
  );
  t.teardown(() => client.close());
  const replica: Replica = {
    name,
    mux,
    address: new URL(mux.url).host,
    client,
    listChanged: 0,
    async json(tool, args = {}) {
      const result = (await client.callTool({ name: tool, arguments: args })) as any;
      return result.isError ? { error: result.content[0].text } : result.structuredContent;
    },
    async tools() {
      return (await client.listTools()).tools.map((tool) => tool.name);
    },
  };
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    replica.listChanged += 1;
  });
  return replica;
}
