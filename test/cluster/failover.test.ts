// Replicas failing under load, behind a real HAProxy (deploy/haproxy/haproxy.cfg): a replica
// SIGKILLed mid-load fails only the requests it had in flight; a rolling restart (SIGTERM,
// drain, start again, each replica in turn) fails no 2026-07-28 request, and no 2025 request
// but those of sessions on the replica that was restarting (whose sessions start again).
// The counts are printed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { startReplica, type Replica } from '../helpers/cluster-replicas.js';
import { fixture } from '../helpers/fixtures.js';
import { startHaproxy } from '../helpers/haproxy.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { freePort, startRedis } from '../helpers/redis-server.js';

t.teardown(() => killTaggedProcesses());

const NAMES = ['r1', 'r2', 'r3'] as const;

interface Cluster {
  replicas: Map<string, Replica>;
  url: string;
  redisUrl: string;
  ports: Map<string, number>;
  logs: string;
  /** Starts (again) replica `name` on its port. */
  start(name: string): Promise<Replica>;
  /** The replica that answered each 2025 session's calls, from the call logs. */
  sessionReplicas(): Map<string, string>;
}

async function cluster(t: Test): Promise<Cluster> {
  const logs = mkdtempSync(join(tmpdir(), 'mcpmux-failover-'));
  t.teardown(() => rmSync(logs, { recursive: true, force: true }));
  const redis = await startRedis(t);
  const ports = new Map<string, number>();
  for (const name of NAMES) ports.set(name, await freePort());
  const replicas = new Map<string, Replica>();
  const start = async (name: string) => {
    const replica = await startReplica(t, redis.url, name, [
      '--http',
      String(ports.get(name)),
      '--drain-seconds',
      '10',
      '--call-log',
      join(logs, `${name}.jsonl`),
    ]);
    replicas.set(name, replica);
    return replica;
  };
  for (const name of NAMES) await start(name);
  const proxy = await startHaproxy(
    t,
    NAMES.map((name) => `127.0.0.1:${ports.get(name)}`),
  );
  await replicas.get('r1')!.json('add_server', { name: 'echo', ...fixture('echo-v1'), placement: 'every' });
  // One copy, on r1 first: it moves as its replica restarts.
  await replicas.get('r1')!.json('add_server', { name: 'keeper', ...fixture('echo-v1'), placement: 'one' });
  const sessionReplicas = () => {
    const bySession = new Map<string, string>();
    for (const name of NAMES) {
      let text = '';
      try {
        text = readFileSync(join(logs, `${name}.jsonl`), 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n').filter(Boolean)) {
        const entry = JSON.parse(line) as { session?: string; replica: string };
        if (entry.session) bySession.set(entry.session, entry.replica);
      }
    }
    return bySession;
  };
  return { replicas, url: proxy.url, redisUrl: redis.url, ports, logs, start, sessionReplicas };
}

/** Clients calling `tool` (an echo) in a loop until `stop`, counting what succeeded and what failed (and when). */
function load(url: string, count: number, era: 'modern' | 'legacy', tool = 'echo__echo') {
  let stopped = false;
  const counts = { ok: 0, failed: [] as { at: number; session: string | undefined; error: string }[] };
  const loop = async (i: number) => {
    let client: Client | undefined;
    let transport: StreamableHTTPClientTransport | undefined;
    const connect = async () => {
      client = new Client(
        { name: `${era}-${i}`, version: '1.0.0' },
        era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
      );
      transport = new StreamableHTTPClientTransport(new URL(url));
      await client.connect(transport);
    };
    for (let j = 0; !stopped; j++) {
      try {
        if (!client) await connect();
        const message = `${era}-${i}-${j}`;
        const answer = (await client!.callTool({ name: tool, arguments: { message } })) as any;
        if (answer.isError || !String(answer.content?.[0]?.text).includes(message))
          throw new Error(`wrong answer: ${JSON.stringify(answer.content)}`);
        counts.ok += 1;
      } catch (error) {
        counts.failed.push({
          at: Date.now(),
          session: transport?.sessionId,
          error: `${(error as Error).message}${causeOf(error)}`,
        });
        // A 2025 session whose replica is gone is not found elsewhere: start a new one, as a client does.
        await client?.close().catch(() => {});
        client = undefined;
      }
    }
    await client?.close().catch(() => {});
  };
  const loops = Array.from({ length: count }, (_, i) => loop(i));
  return {
    counts,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

t.test(
  'a replica SIGKILLed under load: only its requests in flight fail, every later one succeeds',
  async (t) => {
    const c = await cluster(t);
    const modern = load(c.url, 6, 'modern');
    await waitFor(() => modern.counts.ok >= 200, 30_000);
    const victim = c.replicas.get('r2')!;
    process.kill(victim.mux.process.pid, 'SIGKILL');
    const killedAt = Date.now();
    await victim.mux.process.exited;
    const okAtKill = modern.counts.ok;
    await waitFor(() => modern.counts.ok >= okAtKill + 300, 30_000);
    await modern.stop();
    const failed = modern.counts.failed;
    // A request in flight on r2 when it died fails; it cannot be replayed (the tool may have acted).
    const later = failed.filter((f) => f.at > killedAt + 2000);
    t.comment(
      `SIGKILL of r2 under 6 clients' 2026-07-28 load: ${modern.counts.ok} requests succeeded, ` +
        `${failed.length} failed (at most its 6 in flight), ${later.length} failed after the kill's first 2 s`,
    );
    t.ok(failed.length <= 6, `no more failed than were in flight: ${JSON.stringify(failed.slice(0, 3))}`);
    t.same(later, [], 'every later request succeeded on the others');
    t.ok(modern.counts.ok > okAtKill + 300);
  },
);

t.test(
  'a rolling restart under load: no 2026-07-28 request fails, nor a call of a moving "one" server; a 2025 request fails only on the restarting replica',
  async (t) => {
    const c = await cluster(t);
    const modern = load(c.url, 4, 'modern');
    const legacy = load(c.url, 6, 'legacy');
    const placedOnOne = load(c.url, 2, 'modern', 'keeper__echo');
    await waitFor(
      () => modern.counts.ok >= 100 && legacy.counts.ok >= 100 && placedOnOne.counts.ok >= 20,
      30_000,
    );
    const restarting: { name: string; from: number; to: number }[] = [];
    for (const name of NAMES) {
      const from = Date.now();
      await c.replicas.get(name)!.mux.stop();
      await c.start(name);
      restarting.push({ name, from, to: Date.now() });
      const okNow = modern.counts.ok;
      // Back in HAProxy's rotation (its /readyz check) before the next one goes.
      await waitFor(() => modern.counts.ok >= okNow + 60, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    const okBefore = placedOnOne.counts.ok;
    t.ok(
      await waitFor(() => placedOnOne.counts.ok >= okBefore + 20, 30_000),
      'the "one" server answers after',
    );
    await modern.stop();
    await legacy.stop();
    await placedOnOne.stop();
    const sessions = c.sessionReplicas();
    const legacyFailed = legacy.counts.failed;
    const misplaced = legacyFailed.filter((f) => {
      const replica = f.session && sessions.get(f.session);
      const window = restarting.find((r) => r.name === replica);
      return !window || f.at < window.from || f.at > window.to + 5000;
    });
    t.comment(
      `rolling restart of 3 replicas: 2026-07-28 ${modern.counts.ok} succeeded, ${modern.counts.failed.length} failed; ` +
        `2025 ${legacy.counts.ok} succeeded, ${legacyFailed.length} failed (sessions on the restarting replica, started again)`,
    );
    // A "one" server's calls while it moves (its owner drained, another starts it) wait for it.
    const moving = placedOnOne.counts.failed;
    const outside = moving.filter((f) => !restarting.some((r) => f.at >= r.from && f.at <= r.to + 10_000));
    // Each failure belongs to the last restart begun before it.
    const spans = restarting.map((r, i) => {
      const next = restarting[i + 1]?.from ?? Infinity;
      const during = moving.filter((f) => f.at >= r.from && f.at < next).map((f) => f.at);
      return during.length === 0
        ? `${r.name}: 0`
        : `${r.name}: ${during.length} over ${Math.max(...during) - Math.min(...during)} ms`;
    });
    t.comment(
      `the "one" server under 2 clients' load: ${placedOnOne.counts.ok} calls succeeded, ${moving.length} failed while it moved (${spans.join(', ')})` +
        (moving.length > 0
          ? `; how: ${[...new Set(moving.map((f) => f.error.slice(0, 160)))].join(' | ')}`
          : ''),
    );
    t.same(outside, [], 'its calls failed only while a replica restarted');
    // Each move puts the hop to the next owner (or the copy that starts) in the place of the last: calls wait.
    t.same(moving, [], 'no call of the "one" server failed while it moved');
    t.same(modern.counts.failed, [], 'no 2026-07-28 request failed');
    t.same(misplaced, [], 'every failed 2025 request was of a session on the replica restarting then');
    t.ok(legacy.counts.ok > 100 && modern.counts.ok > 200);
  },
);

t.test('no process is left', async (t) => {
  await assertNoLeaks(t);
});

/** What fetch's "fetch failed" hides: the socket's own error. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause ? ` (${cause.code ?? cause.message})` : '';
}
