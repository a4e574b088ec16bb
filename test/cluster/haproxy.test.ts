// Three replicas behind a real HAProxy running deploy/haproxy/haproxy.cfg: a 2026-07-28 client's
// requests (no session) go round robin, and the server it adds answers on every replica; 2025
// sessions stick to the replica that answered their initialize, and fifty of them at once never
// get another's answers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { z } from 'zod';
import { startReplica, type Replica } from '../helpers/cluster-replicas.js';
import { fixture } from '../helpers/fixtures.js';
import { startHaproxy } from '../helpers/haproxy.js';
import { assertNoLeaks, killTaggedProcesses } from '../helpers/processes.js';
import { startRedis } from '../helpers/redis-server.js';

t.teardown(() => killTaggedProcesses());

interface CallLine {
  replica: string;
  session?: string;
  tool?: string;
  arguments?: { message?: string };
}

/** Three replicas, each writing a call log (with content: the test reads which message went where). */
async function cluster(t: Test): Promise<{ replicas: Replica[]; calls: () => CallLine[]; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-cluster-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const redis = await startRedis(t);
  const replicas: Replica[] = [];
  for (const name of ['r1', 'r2', 'r3'])
    replicas.push(
      await startReplica(t, redis.url, name, [
        '--call-log',
        join(dir, `${name}.jsonl`),
        '--call-log-content',
      ]),
    );
  const proxy = await startHaproxy(
    t,
    replicas.map((r) => r.address),
  );
  const calls = () =>
    replicas.flatMap((r) =>
      readFileSync(join(dir, `${r.name}.jsonl`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as CallLine),
    );
  return { replicas, calls, url: proxy.url };
}

t.test(
  'a 2026-07-28 client through HAProxy: what it adds answers its next 30 requests, on every replica',
  async (t) => {
    const { calls, url } = await cluster(t);
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.teardown(() => client.close());
    const added = (await client.callTool({
      name: 'add_server',
      arguments: { name: 'echo', ...fixture('echo-v1') },
    })) as any;
    t.notOk(added.isError, JSON.stringify(added.content));
    for (let i = 0; i < 30; i++) {
      const answer = (await client.callTool({ name: 'echo__echo', arguments: { message: `m${i}` } })) as any;
      t.equal(answer.isError, undefined, `request ${i} answered: ${JSON.stringify(answer.content)}`);
      t.match(answer.content[0].text, new RegExp(`\\bm${i}\\b`));
    }
    const byReplica = new Map<string, number>();
    for (const line of calls().filter((l) => l.tool === 'echo__echo'))
      byReplica.set(line.replica, (byReplica.get(line.replica) ?? 0) + 1);
    t.same(
      [...byReplica.keys()].sort(),
      ['r1', 'r2', 'r3'],
      'the 30 requests were spread over all three replicas',
    );
    t.equal(
      [...byReplica.values()].reduce((a, b) => a + b, 0),
      30,
    );
  },
);

t.test(
  "a 2026-07-28 client's cut result is read through other replicas than the one that cut it",
  async (t) => {
    const { calls, url, replicas } = await cluster(t);
    await replicas[0]!.json('add_server', { name: 'big', ...fixture('big-result') });
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.teardown(() => client.close());
    const cut = (await client.callTool({ name: 'big__lines', arguments: { bytes: 200_000 } })) as any;
    const handle = /handle "(r-[0-9a-f]{32})"/.exec(cut.content[1].text)?.[1];
    t.ok(handle, 'cut, with a handle of 128 bits');
    const cutBy = calls().find((l) => l.tool === 'big__lines')!.replica;
    // Round robin: the next three requests land on three replicas, two of them not the one that cut it.
    for (let i = 0; i < 3; i++) {
      const read = (await client.callTool({
        name: 'read_result',
        arguments: { handle, mode: 'grep', pattern: 'line 3000:' },
      })) as any;
      t.notOk(read.isError, JSON.stringify(read.content));
      t.match(read.content[0].text, /line 3000: the quick brown fox/);
    }
    const readers = new Set(
      calls()
        .filter((l) => l.tool === 'read_result')
        .map((l) => l.replica),
    );
    t.equal(readers.size, 3, 'read through every replica');
    t.ok(readers.has(cutBy) && [...readers].some((r) => r !== cutBy));
  },
);

t.test(
  "a 2026-07-28 call's rounds go on through any replica; a 2025 server's held call says where it is held, or, placed on one replica, goes on through any",
  async (t) => {
    const { calls, url, replicas } = await cluster(t);
    await replicas[0]!.json('add_server', {
      name: 'new',
      ...fixture('modern-v2'),
      era: 'modern',
      placement: 'every',
    });
    await replicas[0]!.json('add_server', { name: 'old', ...fixture('asks-client'), placement: 'every' });
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        capabilities: { elicitation: {}, sampling: {}, roots: {} },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.teardown(() => client.close());
    const round = (name: string, params: Record<string, unknown>) =>
      client.request(
        { method: 'tools/call', params: { name, arguments: {}, ...params } },
        z.record(z.string(), z.any()),
        {
          allowInputRequired: true,
        },
      ) as Promise<Record<string, any>>;
    // The same server placed on one replica: two of the three rounds reach it through the hop.
    await replicas[0]!.json('add_server', { name: 'placed', ...fixture('modern-v2'), era: 'modern' });
    for (const server of ['new', 'placed']) {
      const tool = `${server}__wizard`;
      const first = await round(tool, {});
      t.same(Object.keys(first['inputRequests']), ['name']);
      const second = await round(tool, {
        requestState: first['requestState'],
        inputResponses: { name: { action: 'accept', content: { name: 'Bo' } } },
      });
      t.same(Object.keys(second['inputRequests']), ['colour']);
      const done = await round(tool, {
        requestState: second['requestState'],
        inputResponses: { colour: { action: 'accept', content: { colour: 'teal' } } },
      });
      t.equal(
        done['content']?.[0]?.text,
        'Bo likes teal',
        `${server}: three rounds, signed by one replica, verified by the others`,
      );
      t.equal(
        new Set(
          calls()
            .filter((l) => l.tool === tool)
            .map((l) => l.replica),
        ).size,
        3,
        `${server}: each round on another replica`,
      );
    }

    // A 2025 server asks in the middle of its call: the call lives on the replica that began it.
    const held = await round('old__ask', { arguments: { method: 'elicitation/create' } });
    t.equal(held['resultType'], 'input_required');
    const elsewhere = await round('old__ask', {
      arguments: { method: 'elicitation/create' },
      requestState: held['requestState'],
      inputResponses: { elicitation_1: { action: 'accept', content: { name: 'Ada' } } },
    }).then(
      (result) => JSON.stringify(result),
      (error: Error) => error.message,
    );
    t.match(
      elsewhere,
      /this call is held by replica r\d and this round reached replica r\d: .*call again without requestState/,
    );

    // The same 2025 server placed on one replica: its call is held there, and every replica's hop
    // reaches it, so the rounds go on through any of them.
    await replicas[0]!.json('add_server', { name: 'asking', ...fixture('asks-client') });
    for (let attempt = 0; attempt < 3; attempt++) {
      const asked = await round('asking__ask', { arguments: { method: 'elicitation/create' } });
      t.equal(asked['resultType'], 'input_required', JSON.stringify(asked));
      const [key] = Object.keys(asked['inputRequests']);
      const answered = await round('asking__ask', {
        arguments: { method: 'elicitation/create' },
        requestState: asked['requestState'],
        inputResponses: { [key!]: { action: 'accept', content: { name: `Ada ${attempt}` } } },
      });
      t.match(
        answered['content']?.[0]?.text,
        new RegExp(`Ada ${attempt}`),
        'answered through another replica',
      );
    }
    t.equal(
      new Set(
        calls()
          .filter((l) => l.tool === 'asking__ask')
          .map((l) => l.replica),
      ).size,
      3,
      'its rounds landed on every replica',
    );
  },
);

t.test(
  '50 concurrent 2025 sessions × 20 calls through HAProxy: each stays on its replica, no answer crossed',
  async (t) => {
    const { replicas, calls, url } = await cluster(t);
    await replicas[0]!.json('add_server', { name: 'echo', ...fixture('echo-v1') });
    const crossed: string[] = [];
    const sessions = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const client = new Client({ name: `legacy-${i}`, version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(url));
        await client.connect(transport);
        for (let j = 0; j < 20; j++) {
          const message = `s${i}-c${j}`;
          const answer = (await client.callTool({ name: 'echo__echo', arguments: { message } })) as any;
          const text = String(answer.content?.[0]?.text);
          if (answer.isError || !new RegExp(`\\b${message}\\b`).test(text))
            crossed.push(`${message} got ${text}`);
        }
        const id = transport.sessionId!;
        await client.close();
        return id;
      }),
    );
    t.same(crossed, [], 'every answer was the one asked for');
    t.equal(new Set(sessions).size, 50);
    const lines = calls().filter((l) => l.tool === 'echo__echo' && l.session !== undefined);
    t.equal(lines.length, 1000, 'a thousand calls logged');
    const replicaOf = new Map<string, Set<string>>();
    for (const line of lines)
      replicaOf.set(line.session!, (replicaOf.get(line.session!) ?? new Set()).add(line.replica));
    t.ok(
      [...replicaOf.values()].every((set) => set.size === 1),
      "each session's calls were all answered by the replica that opened it",
    );
    t.equal(
      new Set([...replicaOf.values()].map((set) => [...set][0])).size,
      3,
      'the sessions were spread over the replicas',
    );
  },
);

t.test('no process is left', async (t) => {
  await assertNoLeaks(t);
});
