// A replica in a process of its own that holds one server's lease (test/cluster/): it prints
// "acquired" and "lost" as they happen, so that a test can SIGKILL it as a replica dies.
import { ServerLeases } from '../../src/cluster/server-leases.js';

const [url, cluster, name, replica, ttl] = process.argv.slice(2);
const logger = { debug() {}, info() {}, warn() {}, error() {}, audit() {} } as never;
const leases = await ServerLeases.connect({
  url: url!,
  cluster: cluster!,
  replica: replica!,
  logger,
  ttlMs: Number(ttl),
});
leases.hold(name!, {
  acquired: () => process.stdout.write('acquired\n'),
  lost: () => process.stdout.write('lost\n'),
});
setInterval(() => {}, 1 << 30);
