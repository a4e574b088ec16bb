// Agent runs across replicas, with real replicas and a real Redis: a background run started
// through one replica is read, waited for, resumed and cancelled through another; Redis keeps
// its transcript sealed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import t from 'tap';
import { startReplica } from '../helpers/cluster-replicas.js';
import { assertNoLeaks } from '../helpers/processes.js';
import { startRedis } from '../helpers/redis-server.js';
import { answer, scriptedModel, type SamplingParams } from '../helpers/scripted-model.js';

const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-cluster-agents-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));

const spoken = (params: SamplingParams) => JSON.stringify(params.messages);

t.test(
  'a background run started through one replica is read, resumed and cancelled through another',
  async (t) => {
    const redis = await startRedis(t);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const modelOfA = scriptedModel([
      async () => (await gate, answer('the first task is done')),
      () => new Promise(() => {}), // a turn that never ends: the run waits until it is cancelled
    ]);
    let releaseB!: () => void;
    const gateOfB = new Promise<void>((resolve) => (releaseB = resolve));
    const modelOfB = scriptedModel([
      (params) => answer(`going on from: ${spoken(params)}`),
      async () => (await gateOfB, answer('and once more, on b')),
    ]);
    const agents = (name: string) => ['--agent-dir', join(scratch, `agents-${name}`)];
    const a = await startReplica(t, redis.url, 'a', agents('a'), {
      model: modelOfA,
      env: { ANTHROPIC_API_KEY: '' },
    });
    const b = await startReplica(t, redis.url, 'b', agents('b'), {
      model: modelOfB,
      env: { ANTHROPIC_API_KEY: '' },
    });

    const launched = await a.json('agent', { prompt: 'the first task', run_in_background: true });
    t.equal(launched.status, 'async_launched', JSON.stringify(launched));
    const id = launched.agentId as string;
    const running = await b.json('output', { agentIds: [id], block: false });
    t.match(
      running.agents[0],
      { agentId: id, status: 'running', replica: 'a' },
      'another replica sees it run, and where',
    );
    const busy = await b.json('agent', { prompt: 'more', resume: id });
    t.match(busy.error, /still running on replica a/, 'and does not resume it while it runs');

    release();
    const done = await b.json('output', { agentIds: [id], wait_up_to: 30 });
    t.equal(done.agents[0].status, 'completed', JSON.stringify(done.agents[0]));
    t.same(
      done.agents[0].content,
      [{ type: 'text', text: 'the first task is done' }],
      'waited for through b',
    );

    const resumed = await b.json('agent', { prompt: 'go on', resume: id });
    t.equal(resumed.status, 'completed', JSON.stringify(resumed));
    t.match(
      resumed.content[0].text,
      /the first task.*the first task is done.*go on/s,
      "b's model is given a's history",
    );
    const seenFromA = await a.json('output', { agentIds: [id], block: false });
    t.match(seenFromA.agents[0].content[0].text, /^going on from:/, "a reads the run's end, which b wrote");
    // Resumed on b in the background: a, which ran it first and remembers it finished, sees it run on b.
    await b.json('agent', { prompt: 'once more', resume: id, run_in_background: true });
    const againFromA = await a.json('output', { agentIds: [id], block: false });
    t.match(againFromA.agents[0], { status: 'running', replica: 'b' }, 'a sees it running again, on b');
    releaseB();
    const endedFromA = await a.json('output', { agentIds: [id], wait_up_to: 30 });
    t.match(
      endedFromA.agents[0],
      { status: 'completed', content: [{ text: 'and once more, on b' }] },
      'and waits for it',
    );

    const admin = createClient({ url: redis.url });
    admin.on('error', () => {});
    await admin.connect();
    t.teardown(() => admin.destroy());
    const kept = (await admin.lRange(`mcpmux:team:agent:${id}:transcript`, 0, -1)).join('\n');
    t.match(kept, /sealed1\./, 'the transcript is in Redis');
    t.notMatch(kept, /first task|going on/, 'sealed: Redis alone reads none of it');

    const hanging = await a.json('agent', { prompt: 'a task that hangs', run_in_background: true });
    const cancelled = await b.json('output', { agentIds: [hanging.agentId], cancel: true, wait_up_to: 10 });
    t.equal(
      cancelled.agents[0].status,
      'cancelled',
      `cancelled through b: ${JSON.stringify(cancelled.agents[0])}`,
    );
    const onA = await a.json('output', { agentIds: [hanging.agentId], block: false });
    t.equal(onA.agents[0].status, 'cancelled', 'on the replica it ran on');

    await a.mux.stop();
    await b.mux.stop();
    await assertNoLeaks(t);
  },
);
