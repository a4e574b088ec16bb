// An add from an MCP registry entry in a cluster, with real replicas, a real Redis and a registry
// served as a static file: the server is the cluster's as a command's add is (placed on the
// replica that added it, reached from the others), and its removal through another replica
// leaves it nowhere.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startReplica } from '../helpers/cluster-replicas.js';
import { memoryEntry, runtimeBin } from '../helpers/attack-lab.js';
import { answeringPerson, isReleaseForm, RELEASED } from '../helpers/person-forms.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { startRedis } from '../helpers/redis-server.js';
import { scratchDir } from '../helpers/registry-entries.js';
import { startRemoteFixture } from '../helpers/remote-fixtures.js';

t.teardown(() => killTaggedProcesses());

t.test(
  "a registry entry added through one replica is the cluster's; removed through another, it is gone",
  async (t) => {
    const redis = await startRedis(t);
    const home = scratchDir(t, 'mcpmux-cluster-registry');
    const site = join(home, 'site');
    mkdirSync(join(site, 'v0.1'), { recursive: true });
    writeFileSync(
      join(site, 'v0.1', 'servers'),
      JSON.stringify({ servers: [memoryEntry()], metadata: { count: 1 } }),
    );
    const web = await startRemoteFixture('static-files', { STATIC_ROOT: site });
    t.teardown(() => web.stop());
    const bin = runtimeBin(home);
    const env = (name: string) => ({
      PATH: bin,
      XDG_CACHE_HOME: join(home, `cache-${name}`),
      XDG_STATE_HOME: join(home, `state-${name}`),
      npm_config_offline: 'true',
      MEMORY_FILE_PATH: join(home, `memory-${name}.jsonl`),
    });
    // The person releases what the agent adds from the registry (the form of a held server).
    const person = answeringPerson((form) => (isReleaseForm(form) ? RELEASED : { action: 'decline' }));
    const r1 = await startReplica(t, redis.url, 'r1', ['--registry', web.url], {
      env: env('r1'),
      model: person.clientSide,
    });
    const r2 = await startReplica(t, redis.url, 'r2', ['--registry', web.url], { env: env('r2') });

    const added = await r1.json('add_server', {
      name: 'memory',
      registry: 'io.github.modelcontextprotocol/server-memory',
    });
    t.match(
      added,
      { server: { status: 'running' }, cluster: { replica: 'r1' } },
      added.error ?? "added, and the change is the cluster's",
    );
    t.equal(person.forms.length, 1, 'the person was asked once, where the agent added it');
    t.ok(
      await waitFor(async () => (await r2.tools()).includes('memory__read_graph'), 10_000),
      'r2 lists its tools',
    );
    const listed = await r2.json('list_servers');
    t.match(
      listed.servers.find((s: { name: string }) => s.name === 'memory'),
      { placement: { placement: 'one', runs_on: 'r1' } },
      'one copy, on the replica that added it',
    );
    const created = await r2.json('memory__create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    t.notOk(created?.error, JSON.stringify(created));
    const graph = (await r1.client.callTool({ name: 'memory__read_graph', arguments: {} })) as any;
    t.match(graph.content[0].text, /Ada/, "what r2's client made is in the one copy r1 runs");

    const removed = await r2.json('remove_server', { name: 'memory' });
    t.notOk(removed.error, JSON.stringify(removed));
    t.ok(
      await waitFor(async () => !(await r1.tools()).includes('memory__read_graph'), 5000),
      'gone from r1 too',
    );
    await r1.mux.stop();
    await r2.mux.stop();
    await web.stop();
    await assertNoLeaks(t);
  },
);
