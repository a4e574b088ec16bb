// deploy/kubernetes/ as shipped: every document parses and is of the kinds described; the
// HAProxy configuration in its ConfigMap is valid to haproxy itself and keeps every directive of
// deploy/haproxy/haproxy.cfg (the one the cluster tests run), its server lines aside; the
// replicas are started as a replica must be. No Kubernetes runs here: this keeps the files
// in step with what is tested.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { HAPROXY_CONFIG } from '../../deploy/haproxy/with-addresses.mjs';
import { ROOT } from '../helpers/fixtures.js';

const documents = (file: string) =>
  parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes', file), 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
    return doc.toJS() as any;
  });

/** The directives of a configuration, its server lines and comments aside, as a sorted list. */
const directives = (config: string) =>
  config
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) =>
        line &&
        !line.startsWith('#') &&
        !/^(server|server-template|bind|resolvers|parse-resolv-conf|hold) /.test(`${line} `),
    )
    .sort();

t.test('the files parse, with the kinds they describe', async (t) => {
  t.same(
    documents('redis.yaml').map((d) => d.kind),
    ['StatefulSet', 'Service'],
  );
  t.same(
    documents('mcpmux.yaml').map((d) => d.kind),
    ['StatefulSet', 'Service'],
  );
  t.same(
    documents('haproxy.yaml').map((d) => d.kind),
    ['ConfigMap', 'Deployment', 'Service'],
  );
});

t.test("HAProxy's configuration in the ConfigMap: valid, and the tested one's directives", async (t) => {
  const config = documents('haproxy.yaml')[0].data['haproxy.cfg'] as string;
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-k8s-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'haproxy.cfg'), config);
  t.doesNotThrow(() => execFileSync('haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')], { stdio: 'pipe' }));
  t.same(directives(config), directives(readFileSync(HAPROXY_CONFIG, 'utf8')));
  t.match(config, /server-template mcpmux- \d+ mcpmux-replicas:8931 resolvers cluster-dns init-addr none/);
});

t.test('each replica: its pod name, the state key from a secret, /readyz, time to drain', async (t) => {
  const [set, service] = documents('mcpmux.yaml');
  const pod = set.spec.template.spec;
  const container = pod.containers[0];
  t.ok(container.args.includes('--replica=$(POD_NAME)'));
  t.ok(
    container.args.includes('--replica-url=http://$(POD_IP):8931'),
    "the others reach its hop at the pod's address",
  );
  t.same(container.env.find((e: any) => e.name === 'POD_IP').valueFrom, {
    fieldRef: { fieldPath: 'status.podIP' },
  });
  t.ok(container.args.some((a: string) => a.startsWith('--redis=redis://mcpmux-redis:6379')));
  t.same(container.env.find((e: any) => e.name === 'MCPMUX_STATE_KEY').valueFrom, {
    secretKeyRef: { name: 'mcpmux', key: 'state-key' },
  });
  t.equal(container.readinessProbe.httpGet.path, '/readyz');
  const drain = Number(container.args.find((a: string) => a.startsWith('--drain-seconds=')).split('=')[1]);
  t.ok(pod.terminationGracePeriodSeconds >= drain + 3, 'the pod outlives its drain');
  t.equal(service.spec.clusterIP, 'None', 'headless: one address per replica');
});
