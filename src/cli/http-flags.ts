// The flags of serving over HTTP (--http and the front door's: --host, the bearer token,
// allowed hosts and origins, sessions, the drain), read into CliOptions['http']; each flag
// that goes only with --http refused without it.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { hostnameOf, isLoopbackHost } from '../transport/host-names.js';
import { CliError, type CliOptions } from './cli-options.js';

const httpSchema = z.object({
  sessionIdleTimeout: z.coerce
    .number({ error: '--session-idle-timeout must be a number of seconds' })
    .min(0, '--session-idle-timeout must be 0 (never) or more')
    .max(7 * 86_400, '--session-idle-timeout must be at most 604800 (a week)'),
  maxSessions: z.coerce
    .number({ error: '--max-sessions must be a whole number' })
    .int('--max-sessions must be a whole number')
    .min(1, '--max-sessions must be at least 1')
    .max(100_000),
  drainSeconds: z.coerce
    .number({ error: '--drain-seconds must be a number of seconds' })
    .min(0, '--drain-seconds must be 0 (no wait) or more')
    .max(3600, '--drain-seconds must be at most 3600'),
});

const HTTP_ONLY_FLAGS = [
  'host',
  'auth-token',
  'auth-token-file',
  'allowed-host',
  'allowed-origin',
  'session-idle-timeout',
  'max-sessions',
  'drain-seconds',
] as const;

/** The bearer token: --auth-token-file FILE (its first line), else --auth-token, else MCPMUX_AUTH_TOKEN. */
function authTokenOf(
  values: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): { token: string | undefined; from: 'flag' | 'file' | 'env' } {
  const file = values['auth-token-file'];
  if (typeof file === 'string') {
    if (typeof values['auth-token'] === 'string')
      throw new CliError('give --auth-token-file or --auth-token, not both');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError(
        `--auth-token-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
      );
    }
    const token = text.split(/\r?\n/)[0]!.trim();
    if (token === '') throw new CliError(`--auth-token-file ${file} is empty: its first line is the token`);
    return { token, from: 'file' };
  }
  if (typeof values['auth-token'] === 'string') return { token: values['auth-token'], from: 'flag' };
  return { token: env['MCPMUX_AUTH_TOKEN'] || undefined, from: 'env' };
}

export function parseHttp(
  values: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): CliOptions['http'] {
  const port = values['http'];
  const host = typeof values['host'] === 'string' ? values['host'] : undefined;
  const { token, from } = authTokenOf(values, env);
  if (typeof port !== 'string') {
    const stray = HTTP_ONLY_FLAGS.filter((flag) => values[flag] !== undefined);
    if (stray.length > 0)
      throw new CliError(
        `${stray.map((f) => `--${f}`).join(', ')} go${stray.length === 1 ? 'es' : ''} with --http PORT`,
      );
    return undefined;
  }
  const number = Number(port);
  if (!Number.isInteger(number) || number < 0 || number > 65_535)
    throw new CliError(`--http must be a port number (0-65535), not '${port}'`);
  const bind = host ?? '127.0.0.1';
  if (!isLoopbackHost(bind) && token === undefined) {
    throw new CliError(
      `refusing to serve on ${bind} without --auth-token-file FILE (or MCPMUX_AUTH_TOKEN): anyone who reaches it could make mcpmux run commands`,
    );
  }
  const checked = httpSchema.safeParse({
    sessionIdleTimeout: values['session-idle-timeout'] ?? 1800,
    maxSessions: values['max-sessions'] ?? 100,
    drainSeconds: values['drain-seconds'] ?? 10,
  });
  if (!checked.success) throw new CliError(checked.error.issues.map((i) => i.message).join('; '));
  const allowedHosts = ((values['allowed-host'] as string[] | undefined) ?? []).map((name) =>
    checkedHost(name, '--allowed-host'),
  );
  const allowedOrigins = ((values['allowed-origin'] as string[] | undefined) ?? []).map((origin) =>
    checkedHost(origin, '--allowed-origin'),
  );
  return {
    port: number,
    host: bind,
    ...(token !== undefined && { authToken: token, authTokenFrom: from }),
    allowedHosts,
    allowedOrigins,
    sessionIdleTimeoutMs: checked.data.sessionIdleTimeout * 1000,
    maxSessions: checked.data.maxSessions,
    drainMs: checked.data.drainSeconds * 1000,
  };
}

/** A host name or origin a flag names, refused when it is not one. */
function checkedHost(value: string, flag: string): string {
  try {
    hostnameOf(value);
    if (value.includes('://') && new URL(value).origin === 'null') throw new Error('no origin');
    return value;
  } catch {
    throw new CliError(
      `${flag} takes a host name (app.example.com) or an origin (https://app.example.com:8443), not '${value}'`,
    );
  }
}
