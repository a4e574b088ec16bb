// What the OAuth end-to-end suites stand on: fixture servers that are their own authorization
// server (testservers/oauth-server.js) or an organisation's identity provider
// (testservers/idp-server.js), $BROWSER a script that follows the authorization redirects as a
// person's browser would, and a scratch directory per suite for configs and the
// XDG_STATE_HOME where mcpmux keeps credentials.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { DIST_MAIN, ROOT } from './fixtures.js';
import { killTaggedProcesses, taggedEnv } from './processes.js';
import { startRemoteFixture } from './remote-fixtures.js';

export const run = promisify(execFile);
export const BROWSER = `${process.execPath} ${join(ROOT, 'scripts', 'conformance-browser.js')}`;
export const SECRET = 'pre-registered-secret-4f1c9a';

/** A fixture HTTP server, once it says where it listens. */
export async function startListening(name: 'oauth-server' | 'idp-server', env: Record<string, string>) {
  const { process: server, url } = await startRemoteFixture(name, env);
  return { server, url };
}

export async function startOAuthServer(env: Record<string, string>) {
  const { server, url } = await startListening('oauth-server', env);
  const origin = new URL(url).origin;
  return {
    server,
    url,
    stats: async () => (await fetch(`${origin}/admin/stats`)).json() as Promise<Record<string, number>>,
    revoke: () => fetch(`${origin}/admin/revoke`, { method: 'POST' }),
  };
}

export async function startIdentityProvider(env: Record<string, string>) {
  const { server: idp, url: issuer } = await startListening('idp-server', env);
  return {
    idp,
    issuer,
    stats: async () => (await fetch(`${issuer}/admin/stats`)).json() as Promise<Record<string, unknown>>,
    /** The person's ID token, as their SSO sign-in would leave it. */
    idToken: async (sub: string, aud?: string) => {
      const query = new URLSearchParams({ sub, ...(aud && { aud }) });
      const { id_token } = (await (await fetch(`${issuer}/admin/id-token?${query}`)).json()) as {
        id_token: string;
      };
      return id_token;
    },
  };
}

/**
 * A suite's scratch directory (removed, and every tagged process killed, when the suite ends):
 * `config` writes a one-server config there, `mcpmuxCall` runs `mcpmux call` with `state` as
 * its XDG_STATE_HOME, and `startOrganisation` starts an identity provider and servers that
 * trust it.
 */
export function oauthScratch(t: Test) {
  const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-oauth-'));
  const state = join(scratch, 'state');
  t.teardown(() => {
    killTaggedProcesses();
    rmSync(scratch, { recursive: true, force: true });
  });

  const config = (name: string, entry: Record<string, unknown>): string => {
    const file = join(scratch, `${name}.json`);
    writeFileSync(file, JSON.stringify({ mcpServers: { [name]: { era: 'legacy', ...entry } } }));
    return file;
  };

  const mcpmuxCall = (file: string, tool: string, env: Record<string, string> = {}) =>
    run(process.execPath, [DIST_MAIN, 'call', tool, '{}', '--config', file, '--log-level', 'debug'], {
      env: taggedEnv({ XDG_STATE_HOME: state, BROWSER, ...env }),
      timeout: 30_000,
    });

  /**
   * An organisation: its identity provider (mcpmux its client mcpmux-at-acme) and MCP servers
   * whose authorization servers trust it and know mcpmux as acme-mcp-client; `config` writes a
   * config naming the servers, each with the oauth block that goes through the provider.
   */
  const startOrganisation = async (
    servers: string[],
    { idp = {}, tokenTtl }: { idp?: Record<string, string>; tokenTtl?: string } = {},
  ) => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const provider = await startIdentityProvider({
      IDP_PRIVATE_KEY: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      IDP_CLIENT_ID: 'mcpmux-at-acme',
      JAG_CLIENT_ID: 'acme-mcp-client',
      ...idp,
    });
    const trusting = {
      PRE_CLIENT_ID: 'acme-mcp-client',
      PRE_CLIENT_SECRET: SECRET,
      IDP_PUBLIC_KEY: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      ...(tokenTtl && { TOKEN_TTL_SECONDS: tokenTtl }),
    };
    const remotes = await Promise.all(servers.map(() => startOAuthServer(trusting)));
    const config = (name: string, idpFields: Record<string, string> = {}) => {
      const oauth = {
        client_id: 'acme-mcp-client',
        client_secret: SECRET,
        idp: { issuer: provider.issuer, client_id: 'mcpmux-at-acme', ...idpFields },
      };
      const file = join(scratch, `${name}.json`);
      const entries = servers.map((server, i) => [server, { url: remotes[i]!.url, era: 'legacy', oauth }]);
      writeFileSync(file, JSON.stringify({ mcpServers: Object.fromEntries(entries) }));
      return file;
    };
    const stop = () => Promise.all([provider.idp.stop(), ...remotes.map((r) => r.server.stop())]);
    return { provider, remotes, config, stop };
  };

  return { scratch, state, config, mcpmuxCall, startOrganisation };
}
