// @ts-check
// deploy/haproxy/haproxy.cfg with other addresses: its bind on `bindPort`, one `server` line
// per replica (the first ones kept, in order; those past the replicas given dropped), and any
// lines added under `global`. How the tests and the cluster bench run the shipped file.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HAPROXY_CONFIG = join(dirname(fileURLToPath(import.meta.url)), 'haproxy.cfg');

/**
 * @param {number} bindPort
 * @param {readonly string[]} replicas host:port each
 * @param {readonly string[]} [globalLines]
 */
export function haproxyConfig(bindPort, replicas, globalLines = []) {
  const shipped = readFileSync(HAPROXY_CONFIG, 'utf8');
  const servers = [...shipped.matchAll(/^ {4}server (\S+) \S+\n/gm)];
  if (servers.length < replicas.length)
    throw new Error(`the shipped configuration has ${servers.length} servers; ${replicas.length} were given`);
  let config = shipped.replace(/^( {4}bind )127\.0\.0\.1:\d+$/m, `$1127.0.0.1:${bindPort}`);
  servers.forEach((server, i) => {
    const address = replicas[i];
    config = config.replace(server[0], address === undefined ? '' : `    server ${server[1]} ${address}\n`);
  });
  return config.replace(/^global\n/m, `global\n${globalLines.map((line) => `    ${line}\n`).join('')}`);
}
