// Preloaded (NODE_OPTIONS --import) into a mcpmux a test starts: host names the test maps to an
// address (MCPMUX_TEST_HOSTS="api.fixture.test=127.0.0.1,…"), as a line in /etc/hosts would,
// without touching the machine's. Node's dns.lookup is the resolver the sandbox's proxy dials by.
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';

const hosts = new Map(
  (process.env.MCPMUX_TEST_HOSTS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => /** @type {[string, string]} */ (pair.split('='))),
);
const lookup = dns.lookup;
// @ts-ignore -- the same signature, narrowed for the mapped names
dns.lookup = (hostname, options, callback) => {
  if (typeof options === 'function') [callback, options] = [options, {}];
  const address = hosts.get(hostname);
  if (address === undefined) return lookup(hostname, options, callback);
  const family = address.includes(':') ? 6 : 4;
  const all = typeof options === 'object' && options?.all;
  process.nextTick(() => (all ? callback(null, [{ address, family }]) : callback(null, address, family)));
};
syncBuiltinESMExports();
