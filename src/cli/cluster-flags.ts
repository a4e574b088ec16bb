// The flags of a replica (--redis, or MCPMUX_REDIS_URL; --cluster; --replica), read into
// CliOptions['cluster']: a replica serves HTTP (a cluster is one endpoint behind a load
// balancer) and needs the cluster's state key.
import { hostname } from 'node:os';
import { StateKey, STATE_KEY_VARIABLE } from '../cluster/state-key.js';
import { messageOf } from '../common/errors.js';
import { CliError, type CliOptions } from './cli-options.js';

const CLUSTER_ONLY_FLAGS = ['cluster', 'replica', 'replica-url'] as const;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export function parseCluster(
  values: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  http: CliOptions['http'],
): CliOptions['cluster'] {
  const url = typeof values['redis'] === 'string' ? values['redis'] : env['MCPMUX_REDIS_URL'] || undefined;
  if (url === undefined) {
    const stray = CLUSTER_ONLY_FLAGS.filter((flag) => values[flag] !== undefined);
    if (stray.length > 0)
      throw new CliError(
        `${stray.map((f) => `--${f}`).join(' and ')} go with --redis URL (or MCPMUX_REDIS_URL)`,
      );
    return undefined;
  }
  if (!URL.canParse(url) || !/^rediss?:$/.test(new URL(url).protocol))
    throw new CliError(`--redis must be a redis:// or rediss:// URL, like redis://redis:6379, not '${url}'`);
  if (!http)
    throw new CliError(
      '--redis makes a replica of an HTTP endpoint: give --http PORT too (a cluster is not served on stdio)',
    );
  const name = typeof values['cluster'] === 'string' ? values['cluster'] : 'mcpmux';
  const replica = typeof values['replica'] === 'string' ? values['replica'] : defaultReplica();
  for (const [flag, value] of [
    ['--cluster', name],
    ['--replica', replica],
  ] as const)
    if (!NAME.test(value))
      throw new CliError(`${flag} '${value}' must be letters, digits, '.', '_' or '-' (at most 63)`);
  try {
    StateKey.from(env[STATE_KEY_VARIABLE]);
  } catch (error) {
    throw new CliError(`--redis: ${messageOf(error)}`);
  }
  const replicaUrl = values['replica-url'];
  if (
    typeof replicaUrl === 'string' &&
    !(URL.canParse(replicaUrl) && /^https?:$/.test(new URL(replicaUrl).protocol))
  )
    throw new CliError(
      `--replica-url must be an http(s) URL the other replicas reach this one at, like http://10.0.0.7:8931, not '${replicaUrl}'`,
    );
  return {
    redisUrl: url,
    name,
    replica,
    stateKey: env[STATE_KEY_VARIABLE]!.trim(),
    ...(typeof replicaUrl === 'string' && { replicaUrl: new URL(replicaUrl).origin }),
  };
}

/** A pod's name is its host name; on one machine, its process id tells replicas apart. */
function defaultReplica(): string {
  return `${hostname()
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 50)}-${process.pid}`.replace(/^[^A-Za-z0-9]/, 'r');
}
