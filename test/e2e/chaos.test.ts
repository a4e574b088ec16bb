// Operations at once and in a random order (a fixed seed, so a failure can be replayed):
// servers added, removed, reloaded, crashed by their own tool and SIGKILLed from outside
// while their tools are called, with some calls cancelled, by one client over stdio and by
// three sharing the children over HTTP. Whatever the order, every request is answered, no
// answer is mcpmux's own failure, each client lists exactly the tools of the servers that
// are running, and nothing is left running once the clients are gone.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { fixturePath, type FixtureName } from '../helpers/fixtures.js';
import { startMcpmux, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, taggedProcesses, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const KINDS: FixtureName[] = ['echo-v2', 'crash-on-call', 'slow-call'];
const NAMES = ['a', 'b', 'c', 'd'];
/** Arguments each fixture tool takes (a tool not here takes none). */
const ARGUMENTS: Record<string, Record<string, unknown>> = {
  echo: { message: 'hi' },
  add: { a: 1, b: 2 },
  reverse: { text: 'abc' },
  wait: { steps: 3, interval_ms: 100 },
};
/** Longer than any operation may take here: past it, the operation is taken as never answered. */
const ANSWER_WITHIN_MS = 30_000;

/** A linear congruential generator: the same seed, the same sequence of choices. */
function seeded(seed: number) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return { next, pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]! };
}

type Operation = (client: Client) => Promise<CallToolResult | undefined>;

function operations(random: ReturnType<typeof seeded>): Operation[] {
  const management = (name: string, args: Record<string, unknown>) => (client: Client) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const add: Operation = (client) =>
    management('add_server', {
      name: random.pick(NAMES),
      command: process.execPath,
      args: [fixturePath(random.pick(KINDS))],
    })(client);
  const call: Operation = async (client) => {
    const tools = (await client.listTools()).tools.filter((tool) => tool.name.includes('__'));
    const tool = tools.length > 0 ? random.pick(tools).name : undefined;
    // `crash` ends its server: called a third of the times it is drawn.
    if (!tool || (tool.endsWith('__crash') && random.next() < 0.66)) return undefined;
    const cancel = new AbortController();
    if (random.next() < 0.2) setTimeout(() => cancel.abort(), Math.floor(random.next() * 200));
    const args = ARGUMENTS[tool.split('__')[1]!] ?? {};
    return (await client
      .callTool({ name: tool, arguments: args }, { signal: cancel.signal })
      .catch((error: unknown) => {
        if (cancel.signal.aborted) return undefined;
        throw error;
      })) as CallToolResult | undefined;
  };
  const kill: Operation = async (client) => {
    const listed = (await client.callTool({ name: 'list_servers', arguments: {} })) as CallToolResult;
    const { servers } = listed.structuredContent as { servers: { pid?: number; status: string }[] };
    const running = servers.filter((s) => s.pid !== undefined && s.status === 'running');
    if (running.length === 0) return undefined;
    const pid = random.pick(running).pid!;
    // Only a process this test started (its pid could have been reused since the list).
    if (!taggedProcesses().includes(pid)) return undefined;
    try {
      process.kill(pid, 'SIGKILL');
    } catch (error) {
      // Gone since list_servers answered: another worker removed, reloaded or crashed it.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    return undefined;
  };
  const list: Operation = async (client) => void (await client.listTools());
  const remove: Operation = (client) => management('remove_server', { name: random.pick(NAMES) })(client);
  const reload: Operation = (client) => management('reload_server', { name: random.pick(NAMES) })(client);
  return [add, add, add, call, call, call, call, call, call, kill, list, remove, reload];
}

/** `workers` at once, `each` operations apiece, spread over the clients; what went wrong, if anything. */
async function storm(clients: Client[], seed: number, workers = 6, each = 40): Promise<string[]> {
  const random = seeded(seed);
  const ops = operations(random);
  const wrong: string[] = [];
  const worker = async (n: number) => {
    const client = clients[n % clients.length]!;
    for (let i = 0; i < each; i++) {
      const op = random.pick(ops);
      let timer: NodeJS.Timeout | undefined;
      const never = new Promise<'never'>(
        (resolve) => (timer = setTimeout(() => resolve('never'), ANSWER_WITHIN_MS)),
      );
      try {
        const result = await Promise.race([op(client), never]);
        if (result === 'never') wrong.push(`worker ${n}, operation ${i}: never answered`);
        // A refusal names its reason ([SERVER_CRASHED], [NAME_TAKEN]…); mcpmux's own failure would not.
        else if (
          result?.isError &&
          /internal error|TypeError|Cannot read|is not a function/i.test(JSON.stringify(result))
        )
          wrong.push(`worker ${n}, operation ${i}: ${JSON.stringify(result.content)}`);
      } catch (error) {
        wrong.push(`worker ${n}, operation ${i} threw: ${String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, n) => worker(n)));
  return wrong;
}

/**
 * Each client lists exactly the tools of the servers list_servers says are running, once the
 * last SIGKILL's crash has been seen (the storm's last operation may have just sent one).
 */
async function checkListsAgree(t: Test, clients: Client[]) {
  let seen = '';
  const agree = async () => {
    const listed = (await clients[0]!.callTool({ name: 'list_servers', arguments: {} })) as CallToolResult;
    const { servers } = listed.structuredContent as { servers: { status: string; tools?: string[] }[] };
    const running = servers.flatMap((s) => (s.status === 'running' ? (s.tools ?? []) : [])).sort();
    const lists = await Promise.all(
      clients.map(async (client) =>
        (await client.listTools()).tools
          .map((tool) => tool.name)
          .filter((n) => n.includes('__'))
          .sort(),
      ),
    );
    seen = JSON.stringify({ running, lists });
    return lists.every((names) => JSON.stringify(names) === JSON.stringify(running));
  };
  t.ok(await waitFor(agree, 5000), `every client lists the running servers' tools: ${seen}`);
}

t.test('over stdio: one client, six workers', async (t) => {
  for (const seed of [1, 2]) {
    const s = await startMcpmux(['--call-timeout', '10']);
    t.same(
      await storm([s.client], seed),
      [],
      `seed ${seed}: every operation answered, none failed in mcpmux`,
    );
    await checkListsAgree(t, [s.client]);
    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  }
});

t.test('over HTTP: three clients sharing the servers', async (t) => {
  const mux = await startMcpmuxHttp(['--call-timeout', '10']);
  const clients = await Promise.all(
    [0, 1, 2].map(async (i) => {
      const client = new Client({ name: `chaos-${i}`, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mux.url)));
      return client;
    }),
  );
  t.same(await storm(clients, 3), [], 'every operation answered, none failed in mcpmux');
  await checkListsAgree(t, clients);
  for (const client of clients) await client.close();
  await mux.stop();
  await assertNoLeaks(t);
});
