// A server placed on one replica ("placement": "one", the default in a cluster): one process
// runs it, on the replica that added it; the others reach it through its hop, so that a memory
// server's graph is one, whichever replica a request lands on. When its replica is SIGKILLed,
// another takes it over and starts it; remove_server through any replica leaves no process.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { STATE_KEY, startReplica } from '../helpers/cluster-replicas.js';
import { StateKey } from '../../src/cluster/state-key.js';
import { npmServerPath } from '../helpers/fixtures.js';
import { assertNoLeaks, killTaggedProcesses, taggedProcesses, waitFor } from '../helpers/processes.js';
import { startRedis } from '../helpers/redis-server.js';

t.teardown(() => killTaggedProcesses());

const memoryPath = npmServerPath('@modelcontextprotocol/server-memory');
const memories = () =>
  taggedProcesses().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(memoryPath);
    } catch {
      return false;
    }
  });

t.test(
  "one copy of a 'one' server, reached from every replica; it moves when its replica dies",
  async (t) => {
    const redis = await startRedis(t);
    const dir = mkdtempSync(join(tmpdir(), 'mcpmux-placement-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const [a, b, c] = [
      await startReplica(t, redis.url, 'r1'),
      await startReplica(t, redis.url, 'r2'),
      await startReplica(t, redis.url, 'r3'),
    ];
    const added = await a.json('add_server', {
      name: 'memory',
      command: process.execPath,
      args: [memoryPath],
      env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    });
    t.equal(added.server?.status, 'running', JSON.stringify(added));
    t.equal(memories().length, 1, 'one process in the whole cluster');
    for (const replica of [b, c])
      t.same(
        (await replica.json('list_servers')).servers.find((s: { name: string }) => s.name === 'memory')
          .placement,
        { placement: 'one', runs_on: 'r1' },
        `${replica.name} says where it runs`,
      );
    const created = (await b.client.callTool({
      name: 'memory__create_entities',
      arguments: {
        entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
      },
    })) as any;
    t.notOk(created.isError, JSON.stringify(created.content));
    for (const replica of [a, b, c]) {
      const graph = (await replica.client.callTool({ name: 'memory__read_graph', arguments: {} })) as any;
      t.match(graph.content[0].text, /Ada/, `seen through ${replica.name}`);
    }

    process.kill(a.mux.process.pid, 'SIGKILL');
    const killedAt = Date.now();
    await a.mux.process.exited;
    t.ok(
      await waitFor(async () => {
        const placement = (await b.json('list_servers')).servers.find(
          (s: { name: string }) => s.name === 'memory',
        )?.placement;
        return placement?.runs_on === 'r2' || placement?.runs_on === 'r3';
      }, 20_000),
      'another replica took it over',
    );
    t.comment(`taken over ${Date.now() - killedAt} ms after the SIGKILL of its replica`);
    t.ok(
      await waitFor(async () => {
        const graph = (await c.client.callTool({ name: 'memory__read_graph', arguments: {} })) as any;
        return !graph.isError;
      }, 20_000),
      'and answers through the others again',
    );
    t.equal(memories().length, 1, 'still one process');

    const removed = await c.json('remove_server', { name: 'memory' });
    t.equal(removed.removed, 'memory', JSON.stringify(removed));
    t.ok(await waitFor(() => memories().length === 0, 5000), 'no process of it on any replica');
    t.notOk((await b.tools()).includes('memory__read_graph'));
  },
);

t.test(
  "the hop takes the replicas' token only: a client's token, none, or a forged one gets nothing",
  async (t) => {
    const redis = await startRedis(t);
    const dir = mkdtempSync(join(tmpdir(), 'mcpmux-hop-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const a = await startReplica(t, redis.url, 'r1', [], { token: 'the-clients-token' });
    await a.json('add_server', {
      name: 'memory',
      command: process.execPath,
      args: [memoryPath],
      env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    });
    const hop = a.mux.url.replace(/\/mcp$/, '/cluster/servers/memory/lines');
    const mallory = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'create_entities',
        arguments: { entities: [{ name: 'Mallory', entityType: 'intruder', observations: [] }] },
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
      },
    });
    t.equal((await upgrade(hop, undefined, `${mallory}\n`)).status, 401, 'no token');
    t.equal(
      (await upgrade(hop, 'Bearer the-clients-token', `${mallory}\n`)).status,
      401,
      "the clients' token is not the hop's",
    );
    const forged = StateKey.from('a-key-that-is-not-the-clusters-0123456789').hopToken();
    t.equal((await upgrade(hop, `Bearer ${forged}`, `${mallory}\n`)).status, 401, 'a token from another key');
    const right = `Bearer ${StateKey.from(STATE_KEY).hopToken()}`;
    const elsewhere = await upgrade(a.mux.url.replace(/\/mcp$/, '/cluster/servers/other/lines'), right);
    t.equal(elsewhere.status, 404, 'a server this replica does not run for the cluster');
    t.equal((await upgrade(a.mux.url, right)).status, 404, 'nothing but the hop upgrades');
    // With the cluster's token: what the server lists answers, what it does not is refused before reaching it.
    const opened = await upgrade(hop, right);
    t.equal(opened.status, 101);
    const lines = new HopLines(opened.socket!);
    t.teardown(() => opened.socket!.destroy());
    const call = (name: string, args: Record<string, unknown>) =>
      lines.ask('tools/call', { name, arguments: args });
    t.match(JSON.stringify(await call('read_graph', {})), /entities/, "the replicas' own token reaches it");
    t.match(JSON.stringify(await call('drop_database', {})), /lists no tool 'drop_database' here/);
    // What no token could do, the forged ones included, did not reach the server.
    const graph = (await a.client.callTool({ name: 'memory__read_graph', arguments: {} })) as any;
    t.notMatch(graph.content[0].text, /Mallory/, 'nothing reached the server');
    await call('create_entities', { entities: [{ name: 'Trent', entityType: 'replica', observations: [] }] });
    const seen = (await a.client.callTool({ name: 'memory__read_graph', arguments: {} })) as any;
    t.match(seen.content[0].text, /Trent/, 'a call on the hop reaches the one copy');
  },
);

/**
 * Asks for the hop's upgrade over a bare socket, the line `then` written at once behind the
 * request (as an attacker would, hoping it is read before the token is): the status it is
 * answered with, and the socket when it switched.
 */
async function upgrade(
  url: string,
  authorization?: string,
  then = '',
): Promise<{ status: number; socket?: Socket }> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(
    `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: Upgrade\r\nUpgrade: mcpmux-hop\r\n` +
      (authorization ? `Authorization: ${authorization}\r\n` : '') +
      `\r\n${then}`,
  );
  let head = '';
  while (!head.includes('\r\n\r\n')) {
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    head += chunk.toString('latin1');
  }
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]);
  if (status === 101) return { status, socket };
  socket.destroy();
  return { status };
}

/** JSON-RPC lines on the hop, each request with the 2026-07-28 envelope a replica sends. */
class HopLines {
  #next = 1;
  readonly #waiting = new Map<number, (answer: unknown) => void>();
  constructor(socket: Socket) {
    this.socket = socket;
    createInterface({ input: socket }).on('line', (line) => {
      const answer = JSON.parse(line) as { id?: number };
      if (answer.id !== undefined) this.#waiting.get(answer.id)?.(answer);
    });
  }
  readonly socket: Socket;
  ask(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.#next++;
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'replica', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    this.socket.write(
      JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } }) + '\n',
    );
    return new Promise((resolve) => this.#waiting.set(id, resolve));
  }
}

t.test('no process is left', async (t) => {
  await assertNoLeaks(t);
});
