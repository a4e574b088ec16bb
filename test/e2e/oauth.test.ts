// OAuth to a remote server, end to end with real processes: the built mcpmux (one-shot and
// serving) against a fixture server that is its own authorization server
// (testservers/oauth-server.js), with $BROWSER a script that follows the authorization
// redirects as a person's browser would. Credentials go to a temporary XDG_STATE_HOME.
import { execFile } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { CredentialStore } from '../../src/oauth/credential-store.js';
import { DIST_MAIN, ROOT, fixturePath } from '../helpers/fixtures.js';
import { serverStatus, startMcpmux } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, taggedEnv, waitFor } from '../helpers/processes.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'mcpmux-oauth-'));
const state = join(scratch, 'state');
const BROWSER = `${process.execPath} ${join(ROOT, 'scripts', 'conformance-browser.js')}`;
const SECRET = 'pre-registered-secret-4f1c9a';
t.teardown(() => {
  killTaggedProcesses();
  rmSync(scratch, { recursive: true, force: true });
});

/** A fixture HTTP server, once it says where it listens. */
async function startListening(name: 'oauth-server' | 'idp-server', env: Record<string, string>) {
  const server = await ChildProcess.spawn({
    command: process.execPath,
    args: [fixturePath(name)],
    env: taggedEnv(env),
  });
  let out = '';
  server.stdout.on('data', (d) => (out += d));
  await waitFor(() => /listening on (\S+)/.test(out));
  return { server, url: /listening on (\S+)/.exec(out)![1]! };
}

async function startOAuthServer(env: Record<string, string>) {
  const { server, url } = await startListening('oauth-server', env);
  const origin = new URL(url).origin;
  return {
    server,
    url,
    stats: async () => (await fetch(`${origin}/admin/stats`)).json() as Promise<Record<string, number>>,
    revoke: () => fetch(`${origin}/admin/revoke`, { method: 'POST' }),
  };
}

function config(name: string, entry: Record<string, unknown>): string {
  const file = join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: { [name]: { era: 'legacy', ...entry } } }));
  return file;
}

const mcpmuxCall = (file: string, tool: string, env: Record<string, string> = {}) =>
  run(process.execPath, [DIST_MAIN, 'call', tool, '{}', '--config', file, '--log-level', 'debug'], {
    env: taggedEnv({ XDG_STATE_HOME: state, BROWSER, ...env }),
    timeout: 30_000,
  });

t.test('signs in from a bare url once, keeps the tokens in 0600 files, and refreshes them', async (t) => {
  // Tokens live 2 s: mcpmux refreshes one with less than half its life left.
  const remote = await startOAuthServer({ TOKEN_TTL_SECONDS: '2' });
  // Only the URL, as every client's config has it: the server's challenge starts the sign-in.
  const file = config('remote', { url: remote.url });
  const first = await mcpmuxCall(file, 'remote__whoami');
  t.match(first.stdout, /hello, signed-in user/, 'the call went through after the sign-in');
  t.match(
    first.stderr,
    /\[remote\] not signed in yet: sign in to continue: http:\/\/127\.0\.0\.1:\d+\/authorize\?/,
  );
  t.match(await remote.stats(), { registrations: 1, authorizations: 1, code_grants: 1 });

  const dir = join(state, 'mcpmux', 'oauth');
  const [kept] = readdirSync(dir);
  t.equal(statSync(dir).mode & 0o777, 0o700, 'the folder is 0700');
  t.equal(statSync(join(dir, kept!)).mode & 0o777, 0o600, 'the file is 0600');

  await new Promise((resolve) => setTimeout(resolve, 1500));
  // No browser this time: a sign-in would fail the run (the command does not exist).
  const second = await mcpmuxCall(file, 'remote__whoami', { BROWSER: '/nonexistent/browser' });
  t.match(second.stdout, /hello, signed-in user/);
  t.match(
    await remote.stats(),
    { registrations: 1, authorizations: 1, code_grants: 1 },
    'the kept registration and refresh token were used: no new sign-in',
  );
  t.ok((await remote.stats()).refresh_grants! >= 1, 'the token was refreshed');
  t.notMatch(second.stderr, /sign in to continue/);
  await remote.server.stop();
});

t.test('two mcpmux processes renew the shared tokens once, and sign in once', async (t) => {
  // A token endpoint that takes 0.8 s: the second process asks while the first one's refresh is under way.
  // Tokens live 6 s, so they are renewed after 3 s: the second process, however late a loaded
  // machine starts it, reads the first one's new tokens well within their first half.
  const remote = await startOAuthServer({ TOKEN_TTL_SECONDS: '6', TOKEN_DELAY_MS: '800' });
  const file = config('shared', { url: remote.url, oauth: {} });
  const [one, two] = await Promise.all([
    mcpmuxCall(file, 'shared__whoami'),
    mcpmuxCall(file, 'shared__whoami'),
  ]);
  t.match(one.stdout, /hello, signed-in user/);
  t.match(two.stdout, /hello, signed-in user/);
  t.match(
    await remote.stats(),
    { authorizations: 1, code_grants: 1 },
    'the person signed in once, not twice',
  );
  t.equal([one, two].filter((r) => /sign in to continue/.test(r.stderr)).length, 1, 'one process sent them');

  await new Promise((resolve) => setTimeout(resolve, 3500));
  // The refresh token rotates: two processes renewing with it at once would have one refused.
  const noBrowser = { BROWSER: '/nonexistent/browser' };
  const renewed = await Promise.all([
    mcpmuxCall(file, 'shared__whoami', noBrowser),
    mcpmuxCall(file, 'shared__whoami', noBrowser),
  ]);
  for (const run of renewed) t.match(run.stdout, /hello, signed-in user/);
  t.match(
    await remote.stats(),
    { authorizations: 1, refresh_grants: 1, refused_refreshes: 0 },
    'one refresh, which the other process read',
  );
  await remote.server.stop();
});

t.test(
  "a second serving mcpmux shows where the first sent the person, and comes up on the first's sign-in",
  async (t) => {
    const remote = await startOAuthServer({});
    const file = config('both', { url: remote.url, oauth: {} });
    // No browser: the person opens the URL by hand. One store for the two, no tokens kept yet.
    const env = { XDG_STATE_HOME: join(scratch, 'two-serving'), BROWSER: '' };
    const statusOf = async (s: Awaited<ReturnType<typeof startMcpmux>>) =>
      (await s.json('list_servers')).servers[0];
    const first = await startMcpmux(['--config', file], undefined, env);
    t.teardown(() => first.client.close().catch(() => {}));
    t.ok(await waitFor(async () => (await statusOf(first)).status === 'needs_auth', 15_000));
    const url = (await statusOf(first)).authorization_url as string;

    const second = await startMcpmux(['--config', file], undefined, env);
    t.teardown(() => second.client.close().catch(() => {}));
    t.ok(
      await waitFor(async () => (await statusOf(second)).status === 'needs_auth', 15_000),
      'needs_auth while the other waits for the person, not starting',
    );
    t.match(await statusOf(second), {
      authorization_url: url,
      authorization_reason: `another mcpmux process (pid ${first.process.pid}) waits for this sign-in; this one uses what it keeps`,
    });
    t.match(second.stderr(), `waits for this sign-in; this one uses what it keeps: ${url}`);
    t.notMatch(second.stderr(), /sign in to continue/, 'the second sends no one anywhere');

    // The person signs in where the first sent them: both come up.
    await (await fetch(url)).text();
    for (const s of [first, second])
      t.ok(await waitFor(async () => (await statusOf(s)).status === 'running', 15_000));
    t.match((await second.client.callTool({ name: 'both__whoami', arguments: {} })).content, [
      { text: 'hello, signed-in user' },
    ]);
    t.match(await remote.stats(), { authorizations: 1, code_grants: 1 }, 'one sign-in for the two');
    for (const s of [first, second]) {
      await s.client.close();
      await s.process.exited;
    }
    await remote.server.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "tokens another process kept that the server refuses: this one signs in itself, not 'refused the token it just issued'",
  async (t) => {
    const remote = await startOAuthServer({});
    const file = config('others', { url: remote.url, oauth: {} });
    const stateHome = join(scratch, 'others-state');
    const store = new CredentialStore(remote.url, join(stateHome, 'mcpmux', 'oauth'));
    mkdirSync(dirname(store.path), { recursive: true });
    // Another process (this test) is signing in, and has sent the person somewhere.
    writeFileSync(`${store.path}.lock`, `${process.pid}\nhttp://127.0.0.1:9/elsewhere\n`);
    const running = mcpmuxCall(file, 'others__whoami', { XDG_STATE_HOME: stateHome });
    let stderr = '';
    running.child.stderr?.on('data', (d) => (stderr += d));
    t.ok(await waitFor(() => stderr.includes('waits for this sign-in'), 15_000), 'it waits for the other');
    // The other keeps tokens this server will not take, and lets go.
    store.update((kept) => ({ ...kept, tokens: { access_token: 'at-elsewhere', token_type: 'Bearer' } }));
    rmSync(`${store.path}.lock`);
    const { stdout } = await running;
    t.match(stdout, /hello, signed-in user/);
    t.match(await remote.stats(), { authorizations: 1 }, 'it tried the kept tokens, then signed in');
    await remote.server.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'a configured server waiting for the person holds back neither the opening nor the first lists; its tools come with list_changed',
  async (t) => {
    const remote = await startOAuthServer({});
    const file = join(scratch, 'with-echo.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          remote: { url: remote.url, era: 'legacy', oauth: {} },
          echo: { command: process.execPath, args: [fixturePath('echo-v2')] },
        },
      }),
    );
    const s = await startMcpmux(['--config', file], undefined, {
      XDG_STATE_HOME: join(scratch, 'configured-waiting'),
      BROWSER: '',
    });
    t.teardown(() => s.client.close().catch(() => {}));
    // Held until each server started or failed, this list would come at the 60 s start-up timeout.
    const first = (await s.client.listTools()).tools.map((x) => x.name);
    t.ok(
      first.some((name) => name.startsWith('echo__')),
      'the running server is listed',
    );
    t.notOk(first.some((name) => name.startsWith('remote__')));
    const waiting = (await s.json('list_servers')).servers.find(
      (x: { name: string }) => x.name === 'remote',
    ) as { status: string; authorization_url: string } | undefined;
    t.equal(waiting?.status, 'needs_auth', 'answered while the sign-in still waits');
    t.match(s.stderr(), /server 'remote' waits for a sign-in \(list_servers shows where\)/);

    await (await fetch(waiting!.authorization_url)).text();
    t.ok(await waitFor(() => s.listChanged() > 0, 15_000), 'list_changed once signed in');
    t.ok((await s.client.listTools()).tools.some((x) => x.name === 'remote__whoami'));
    await s.client.close();
    await s.process.exited;
    await remote.server.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'a config edit that adds a server waiting for the person is applied and announced at once, the others running',
  async (t) => {
    const remote = await startOAuthServer({});
    const file = join(scratch, 'watched.json');
    const echo = { command: process.execPath, args: [fixturePath('echo-v2')] };
    writeFileSync(file, JSON.stringify({ mcpServers: { first: echo } }));
    const s = await startMcpmux(['--config', file, '--watch-config'], undefined, {
      XDG_STATE_HOME: join(scratch, 'watched-state'),
      BROWSER: '',
    });
    t.teardown(() => s.client.close().catch(() => {}));
    await s.client.listTools();
    const before = s.listChanged();
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { first: echo, second: echo, remote: { url: remote.url, era: 'legacy', oauth: {} } },
      }),
    );
    // Held for the sign-in, the edit would be announced at the 60 s start-up timeout.
    t.ok(await waitFor(() => s.listChanged() > before, 15_000), 'list_changed for the edit');
    const tools = (await s.client.listTools()).tools.map((x) => x.name);
    t.ok(
      tools.some((name) => name.startsWith('second__')),
      'the other new server is listed',
    );
    t.match(await serverStatus(s, 'remote'), { status: 'needs_auth', authorization_url: /\/authorize\?/ });
    t.match(s.stderr(), /server 'remote' waits for a sign-in \(list_servers shows where\)/);
    await s.client.close();
    await s.process.exited;
    await remote.server.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'serving: a revoked refresh token leads back to needs_auth with the URL; signing in brings the server up; no secret is ever shown',
  async (t) => {
    const remote = await startOAuthServer({ PRE_CLIENT_ID: 'pre-client', PRE_CLIENT_SECRET: SECRET });
    const file = config('gh', {
      url: remote.url,
      oauth: { client_id: 'pre-client', client_secret: '${GH_SECRET}', scopes: ['mcp'] },
    });
    // Signed in once from the shell, so that tokens are kept.
    const signedIn = await mcpmuxCall(file, 'gh__whoami', { GH_SECRET: SECRET });
    t.match(signedIn.stdout, /hello/);
    await remote.revoke();

    process.env['XDG_STATE_HOME'] = state;
    process.env['GH_SECRET'] = SECRET;
    delete process.env['BROWSER'];
    t.teardown(() => {
      delete process.env['XDG_STATE_HOME'];
      delete process.env['GH_SECRET'];
    });
    const s = await startMcpmux(['--config', file, '--log-level', 'debug']);
    t.ok(
      await waitFor(async () => (await s.json('list_servers')).servers[0].status === 'needs_auth', 15_000),
      'needs_auth once the refresh is refused',
    );
    const [waiting] = (await s.json('list_servers')).servers;
    t.match(waiting, {
      name: 'gh',
      status: 'needs_auth',
      authorization_url: /^http:\/\/127\.0\.0\.1:\d+\/authorize\?/,
      authorization_reason: 'the kept sign-in was refused or could not be renewed (revoked or expired)',
    });
    t.match(await remote.stats(), { refused_refreshes: 1 });
    t.match(
      s.stderr(),
      /\[gh\] the kept sign-in was refused or could not be renewed \(revoked or expired\): sign in to continue: http/,
      'the person is told why and where, on stderr',
    );

    // The person signs in (their browser follows the redirects to mcpmux's loopback).
    await (await fetch(waiting.authorization_url)).text();
    t.ok(
      await waitFor(async () => (await s.json('list_servers')).servers[0].status === 'running', 15_000),
      'running once signed in',
    );
    t.match((await s.client.callTool({ name: 'gh__whoami', arguments: {} })).content, [
      { text: 'hello, signed-in user' },
    ]);
    const shown = JSON.stringify(await s.json('list_servers')) + s.stderr() + signedIn.stderr;
    t.notOk(shown.includes(SECRET), 'the client secret is in no log line and no result');
    t.notMatch(shown, /\b(at|rt)-[0-9a-f]{16}\b/, 'nor is any access or refresh token');
    await s.client.close();
    await s.process.exited;
    await remote.server.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'a machine client (client_credentials) gets its tokens itself, by its secret or its private key, with nobody to sign in',
  async (t) => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    // Tokens live 2 s: a machine client asks for a new one with less than half its life left.
    const remote = await startOAuthServer({
      PRE_CLIENT_ID: 'machine',
      PRE_CLIENT_SECRET: SECRET,
      PRE_CLIENT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      TOKEN_TTL_SECONDS: '2',
    });
    const machine = (name: string, credential: Record<string, string>) =>
      config(name, {
        url: remote.url,
        oauth: { grant_type: 'client_credentials', client_id: 'machine', ...credential },
      });
    // No browser: a sign-in would fail the run (the command does not exist). Each its own store.
    const call = (file: string, tool: string, own: string) =>
      mcpmuxCall(file, tool, {
        BROWSER: '/nonexistent/browser',
        XDG_STATE_HOME: join(scratch, own),
        CC_KEY: key,
      });

    const bySecret = await call(machine('cs', { client_secret: SECRET }), 'cs__whoami', 'cs-state');
    t.match(bySecret.stdout, /hello, signed-in user/, 'by its secret');
    t.match(await remote.stats(), { client_credentials_grants: 1, authorizations: 0, registrations: 0 });

    const keyed = machine('ck', { private_key: '${CC_KEY}' });
    t.match((await call(keyed, 'ck__whoami', 'ck-state')).stdout, /hello, signed-in user/, 'by its key');
    t.match(await remote.stats(), { client_credentials_grants: 2, authorizations: 0 });

    await new Promise((resolve) => setTimeout(resolve, 1200));
    const renewed = await call(keyed, 'ck__whoami', 'ck-state');
    t.match(renewed.stdout, /hello, signed-in user/, 'a token near its end is replaced, with nobody asked');
    t.match(await remote.stats(), { client_credentials_grants: 3, authorizations: 0, refresh_grants: 0 });
    t.notOk(
      bySecret.stderr.includes(SECRET) || renewed.stderr.includes('PRIVATE KEY'),
      'no secret in the log',
    );

    // A key the authorization server does not know is refused, and the error says so.
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const refused = await mcpmuxCall(machine('cx', { private_key: stranger }), 'cx__whoami', {
      BROWSER: '/nonexistent/browser',
      XDG_STATE_HOME: join(scratch, 'cx-state'),
    }).catch((error: { stderr: string; code: number }) => error);
    t.equal((refused as { code?: number }).code, 1, 'the call fails');
    t.match(refused.stderr, /AUTH_FAILED|invalid_client/, 'saying the sign-in failed');
    await remote.server.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "a workload (jwt_bearer) trades its platform's token for tokens, reading the file again as it rotates; a refused token says what to check",
  async (t) => {
    // The platform (a Kubernetes cluster, a cloud) signs the workload's tokens; the
    // authorization server trusts its key.
    const platform = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const remote = await startOAuthServer({
      WORKLOAD_PUBLIC_KEY: platform.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      TOKEN_TTL_SECONDS: '2',
    });
    const origin = new URL(remote.url).origin;
    const workloadToken = (sub: string, aud = origin) => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      const signed = `${part({ alg: 'ES256', typ: 'JWT' })}.${part({ iss: 'https://platform.example', sub, aud, iat: now, exp: now + 600 })}`;
      const signature = sign('sha256', Buffer.from(signed), {
        key: platform.privateKey,
        dsaEncoding: 'ieee-p1363',
      });
      return `${signed}.${signature.toString('base64url')}`;
    };
    const tokenFile = join(scratch, 'workload-token');
    writeFileSync(tokenFile, `${workloadToken('agent-1')}\n`);
    const file = config('wl', {
      url: remote.url,
      oauth: { grant_type: 'jwt_bearer', client_id: 'ci-agent', assertion_file: '${TOKEN_FILE}' },
    });
    const call = (own: string) =>
      mcpmuxCall(file, 'wl__whoami', {
        BROWSER: '/nonexistent/browser',
        XDG_STATE_HOME: join(scratch, own),
        TOKEN_FILE: tokenFile,
      });

    t.match((await call('wl-state')).stdout, /hello, signed-in user/, 'no person, no registration');
    t.match(await remote.stats(), {
      jwt_bearer_grants: 1,
      last_workload_subject: 'agent-1',
      registrations: 0,
    });

    // The platform rotates the token; the access token nears its end; the file is read again.
    writeFileSync(tokenFile, workloadToken('agent-2'));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    t.match((await call('wl-state')).stdout, /hello, signed-in user/);
    t.match(await remote.stats(), {
      jwt_bearer_grants: 2,
      last_workload_subject: 'agent-2',
      refresh_grants: 0,
    });

    // A token for another audience is refused, and the error says what to check.
    writeFileSync(tokenFile, workloadToken('agent-3', 'https://elsewhere.example'));
    const refused = await call('wl-refused').catch((error: { stderr: string; code: number }) => error);
    t.equal((refused as { code?: number }).code, 1, 'the call fails');
    t.match(
      refused.stderr,
      /refused the workload token in .*workload-token: check that it is current, that its audience is this authorization server/,
    );
    // The SDK's auth() asks once more after an invalid_grant (it drops the tokens, as for a
    // refresh token): the same token again, then no more.
    t.match(await remote.stats(), { refused_workload_tokens: 2 });
    t.notOk(refused.stderr.includes('eyJ'), 'no JWT in the log');

    rmSync(tokenFile);
    const missing = await call('wl-missing').catch((error: { stderr: string }) => error);
    t.match(
      missing.stderr,
      /cannot read the workload token in oauth.assertion_file .*workload-token: ENOENT/,
    );
    await remote.server.stop();
    await assertNoLeaks(t);
  },
);

async function startIdentityProvider(env: Record<string, string>) {
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
 * An organisation: its identity provider (mcpmux its client mcpmux-at-acme) and MCP servers
 * whose authorization servers trust it and know mcpmux as acme-mcp-client; `config` writes a
 * config naming the servers, each with the oauth block that goes through the provider.
 */
async function startOrganisation(
  servers: string[],
  { idp = {}, tokenTtl }: { idp?: Record<string, string>; tokenTtl?: string } = {},
) {
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
}

t.test(
  "enterprise-managed authorization: the organisation's identity provider trades the person's ID token for a grant the server's authorization server takes",
  async (t) => {
    const {
      provider,
      remotes,
      config: organisationConfig,
      stop,
    } = await startOrganisation(['corp'], {
      idp: { IDP_CLIENT_SECRET: 'idp-secret-77' },
      tokenTtl: '2',
    });
    const [remote] = remotes;
    const idTokenFile = join(scratch, 'id-token');
    writeFileSync(idTokenFile, `${await provider.idToken('alice@acme.example')}\n`);
    // No grant_type: an idp implies jwt_bearer. The provider's token endpoint is discovered.
    const file = organisationConfig('corp', {
      client_secret: '${IDP_SECRET}',
      id_token_file: idTokenFile,
    });
    const call = (own: string) =>
      mcpmuxCall(file, 'corp__whoami', {
        BROWSER: '/nonexistent/browser',
        XDG_STATE_HOME: join(scratch, own),
        IDP_SECRET: 'idp-secret-77',
      });

    t.match((await call('corp-state')).stdout, /hello, signed-in user/, 'no browser, no consent screen');
    t.match(await provider.stats(), {
      token_exchanges: 1,
      last_audience: new URL(remote!.url).origin,
      last_resource: remote!.url,
    });
    t.match(await remote!.stats(), { id_jag_grants: 1, last_id_jag_subject: 'alice@acme.example' });

    // The person's SSO agent renews the ID token; the access token nears its end; a new grant.
    writeFileSync(idTokenFile, await provider.idToken('alice2@acme.example'));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    t.match((await call('corp-state')).stdout, /hello, signed-in user/);
    t.match(await provider.stats(), { token_exchanges: 2 });
    t.match(await remote!.stats(), {
      id_jag_grants: 2,
      last_id_jag_subject: 'alice2@acme.example',
      refresh_grants: 0,
    });

    // An ID token the provider did not issue to mcpmux is refused there, and the error says what to do.
    writeFileSync(idTokenFile, await provider.idToken('mallory', 'another-app'));
    const refused = await call('corp-refused').catch((error: { stderr: string; code: number }) => error);
    t.equal((refused as { code?: number }).code, 1, 'the call fails');
    t.match(
      refused.stderr,
      /the identity provider http:\/\/127\.0\.0\.1:\d+ gave no grant for .*invalid_grant.*: the ID token in .*id-token was refused \(expired, or issued for another client than mcpmux-at-acme\); sign in to http:\/\/127\.0\.0\.1:\d+ again/,
    );
    t.notOk(refused.stderr.includes('eyJ'), 'no JWT in the log');
    t.match(await remote!.stats(), { id_jag_grants: 2 }, 'nothing reached the authorization server');

    // A wrong secret at the provider.
    const wrongSecret = await mcpmuxCall(file, 'corp__whoami', {
      BROWSER: '/nonexistent/browser',
      XDG_STATE_HOME: join(scratch, 'corp-secret'),
      IDP_SECRET: 'not-it',
    }).catch((error: { stderr: string }) => error);
    t.match(wrongSecret.stderr, /invalid_client.*check oauth\.idp\.client_id and client_secret/);

    rmSync(idTokenFile);
    const missing = await call('corp-missing').catch((error: { stderr: string }) => error);
    t.match(
      missing.stderr,
      /cannot read the person's ID token in oauth\.idp\.id_token_file .*id-token: ENOENT/,
    );
    await stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "with no id_token_file, mcpmux signs the person in to their identity provider once for all the organisation's servers, renews the ID token, and auth --logout forgets that session",
  async (t) => {
    // ID tokens and the servers' tokens live 3 s: the last run renews them all.
    const { provider, remotes, config, stop } = await startOrganisation(['wiki', 'tickets'], {
      idp: { PERSON: 'carol@acme.example', ID_TOKEN_TTL_SECONDS: '3' },
      tokenTtl: '3',
    });
    const [wiki, tickets] = remotes as [(typeof remotes)[number], (typeof remotes)[number]];
    const file = config('organisation');
    const own = { XDG_STATE_HOME: join(scratch, 'organisation-state') };
    const noBrowser = { ...own, BROWSER: '/nonexistent/browser' };

    // The person signs in from the shell, for one server: at the provider, once.
    const signedIn = await run(process.execPath, [DIST_MAIN, 'auth', 'wiki', '--config', file], {
      env: taggedEnv({ ...own, BROWSER }),
      timeout: 30_000,
    });
    t.match(signedIn.stdout, /signed in to 'wiki'/);
    t.match(
      signedIn.stdout,
      /your session at the identity provider http:\/\/127\.0\.0\.1:\d+ is kept in .*organisation-state/,
    );
    t.match(signedIn.stderr, /not signed in to the identity provider http:\/\/127\.0\.0\.1:\d+ yet/);
    t.match(await provider.stats(), { sign_ins: 1, token_exchanges: 1 });
    t.match(await wiki.stats(), { id_jag_grants: 1, last_id_jag_subject: 'carol@acme.example' });

    // Both servers start (call starts the config's): the other one is served by the kept session.
    t.match((await mcpmuxCall(file, 'tickets__whoami', noBrowser)).stdout, /hello, signed-in user/);
    t.match(await provider.stats(), { sign_ins: 1 });
    t.match(await tickets.stats(), { id_jag_grants: 1, last_id_jag_subject: 'carol@acme.example' });

    // Everything nears its end (more than half of 3 s): renewed, with nobody asked. (Counted
    // as increments: on a slow machine the run above may already have renewed some.)
    const before = { idp: await provider.stats(), wiki: await wiki.stats(), tickets: await tickets.stats() };
    await new Promise((resolve) => setTimeout(resolve, 2000));
    t.match((await mcpmuxCall(file, 'wiki__whoami', noBrowser)).stdout, /hello, signed-in user/);
    const after = { idp: await provider.stats(), wiki: await wiki.stats(), tickets: await tickets.stats() };
    t.equal(after.idp['sign_ins'], 1, 'the person was not asked again');
    t.ok(after.idp['id_token_refreshes']! > before.idp['id_token_refreshes']!, 'the ID token was renewed');
    t.ok(after.wiki['id_jag_grants']! > before.wiki['id_jag_grants']!, "a new grant for the wiki's token");
    t.ok(after.tickets['id_jag_grants']! > before.tickets['id_jag_grants']!, 'and for the tickets');

    const out = await run(process.execPath, [DIST_MAIN, 'auth', '--logout', 'wiki', '--config', file], {
      env: taggedEnv(own),
    });
    t.match(out.stdout, /signed out of 'wiki'/);
    t.match(
      out.stdout,
      /signed out of the identity provider http:\/\/127\.0\.0\.1:\d+ \(for every server it signs in to\): removed /,
    );
    const kept = readdirSync(join(scratch, 'organisation-state', 'mcpmux', 'oauth'));
    t.equal(kept.length, 1, "only the tickets server's tokens are left");
    const left = readFileSync(join(scratch, 'organisation-state', 'mcpmux', 'oauth', kept[0]!), 'utf8');
    t.notOk(left.includes('id_token'), "the person's ID token is not among them");
    await stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'two mcpmux processes that need the person at the identity provider at once sign them in there once',
  async (t) => {
    const { provider, config, stop } = await startOrganisation(['wiki', 'tickets'], {
      idp: { PERSON: 'dan@acme.example' },
    });
    // One server each: all the two processes share is the person's session at the provider.
    const { mcpServers } = JSON.parse(readFileSync(config('two-processes'), 'utf8'));
    const fileFor = (name: string) => {
      const file = join(scratch, `two-processes-${name}.json`);
      writeFileSync(file, JSON.stringify({ mcpServers: { [name]: mcpServers[name] } }));
      return file;
    };
    // A person who takes 3 s to sign in: the other process is waiting by then.
    const slowBrowser = join(scratch, 'slow-browser.sh');
    writeFileSync(slowBrowser, `#!/bin/sh\nsleep 3\nexec ${BROWSER} "$1"\n`, { mode: 0o755 });
    const env = { XDG_STATE_HOME: join(scratch, 'two-processes-state'), BROWSER: slowBrowser };
    const runs = await Promise.all([
      mcpmuxCall(fileFor('wiki'), 'wiki__whoami', env),
      mcpmuxCall(fileFor('tickets'), 'tickets__whoami', env),
    ]);
    for (const run of runs) t.match(run.stdout, /hello, signed-in user/);
    t.match(
      await provider.stats(),
      { sign_ins: 1 },
      'one sign-in at the provider, which the other process used',
    );
    const sender = runs.findIndex((r) => /sign in to continue: (\S+)/.test(r.stderr));
    const sentTo = /sign in to continue: (\S+)/.exec(runs[sender]?.stderr ?? '')?.[1];
    t.match(
      runs[1 - sender]?.stderr,
      `waits for the sign-in to ${provider.issuer}; this one uses what it keeps: ${sentTo}`,
      'the other showed where the person was sent, and sent no one',
    );
    await stop();
    await assertNoLeaks(t);
  },
);

t.test(
  "serving, the organisation's servers wait for one sign-in at its identity provider, each showing needs_auth with that provider's URL",
  async (t) => {
    const { provider, config, stop } = await startOrganisation(['wiki', 'tickets']);
    const file = config('organisation-serving');
    const s = await startMcpmux(['--config', file, '--startup-timeout', '60'], undefined, {
      XDG_STATE_HOME: join(scratch, 'organisation-serving-state'),
      BROWSER: '',
    });
    type Listed = { name: string; status: string; authorization_url?: string };
    let listed: Listed[] = [];
    t.ok(
      await waitFor(async () => {
        listed = (await s.json('list_servers')).servers as Listed[];
        return listed.length === 2 && listed.every((x) => x.status === 'needs_auth');
      }, 15_000),
      'both wait for the person',
    );
    const [first, second] = listed;
    t.match(first!.authorization_url, `${provider.issuer}/authorize?`, "the provider's sign-in page");
    t.equal(first!.authorization_url, second!.authorization_url, 'one page for both');

    // The person signs in there (the browser follows the redirect to mcpmux).
    await (await fetch(first!.authorization_url!)).text();
    t.ok(
      await waitFor(async () =>
        ((await s.json('list_servers')).servers as Listed[]).every((x) => x.status === 'running'),
      ),
      'both run',
    );
    t.match(await provider.stats(), { sign_ins: 1, token_exchanges: 2 });
    t.match((await s.client.callTool({ name: 'tickets__whoami', arguments: {} })).content, [
      { text: 'hello, signed-in user' },
    ]);
    await s.client.close();
    await s.process.exited;
    await stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'DPoP: an authorization server that offers it binds the tokens to a key mcpmux keeps, across runs and refreshes, with nonces when asked',
  async (t) => {
    const own = join(scratch, 'dpop-state');
    const kept = () => {
      const dir = join(own, 'mcpmux', 'oauth');
      const [file] = readdirSync(dir);
      t.equal(statSync(join(dir, file!)).mode & 0o777, 0o600, 'the key is kept 0600, with the tokens');
      return JSON.parse(readFileSync(join(dir, file!), 'utf8')) as {
        tokens: { token_type: string };
        dpopKey: { alg: string; jwk: { kty: string; d?: string } };
      };
    };
    // Tokens live 2 s: the second run refreshes, which a bound refresh token allows only with
    // a proof of the same key (so the key came back from the disk).
    const remote = await startOAuthServer({ DPOP: 'RS256,ES256', TOKEN_TTL_SECONDS: '2' });
    const file = config('bound', { url: remote.url, oauth: {} });
    const first = await mcpmuxCall(file, 'bound__whoami', { XDG_STATE_HOME: own });
    t.match(first.stdout, /hello, signed-in user/);
    const stats = await remote.stats();
    t.match(stats, { code_grants: 1, dpop_bound_tokens: 1 });
    t.ok(stats['dpop_requests']! >= 3, 'every request to the server went with a proof');
    t.match(kept(), { tokens: { token_type: 'DPoP' }, dpopKey: { alg: 'ES256', jwk: { kty: 'EC' } } });

    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await mcpmuxCall(file, 'bound__whoami', {
      XDG_STATE_HOME: own,
      BROWSER: '/nonexistent/browser',
    });
    t.match(second.stdout, /hello, signed-in user/, 'the kept tokens and key were used: no new sign-in');
    t.match(await remote.stats(), { authorizations: 1, refresh_grants: 1, dpop_bound_tokens: 2 });
    await remote.server.stop();

    // An authorization server and a resource server that each ask for a nonce first.
    const strict = await startOAuthServer({ DPOP: 'EdDSA', DPOP_NONCE: '1' });
    const strictFile = config('strict', { url: strict.url, oauth: {} });
    const own2 = join(scratch, 'dpop-nonce-state');
    const third = await mcpmuxCall(strictFile, 'strict__whoami', { XDG_STATE_HOME: own2 });
    t.match(third.stdout, /hello, signed-in user/);
    // One challenge: the token endpoint's nonce is the server's too (one origin), and reused.
    t.match(await strict.stats(), { dpop_bound_tokens: 1, dpop_nonce_challenges: 1 });
    await strict.server.stop();

    // A machine client's tokens are bound the same way.
    const machine = await startOAuthServer({
      DPOP: 'ES256',
      PRE_CLIENT_ID: 'machine',
      PRE_CLIENT_SECRET: SECRET,
    });
    const machineFile = config('mdpop', {
      url: machine.url,
      oauth: { grant_type: 'client_credentials', client_id: 'machine', client_secret: SECRET },
    });
    const byMachine = await mcpmuxCall(machineFile, 'mdpop__whoami', {
      XDG_STATE_HOME: join(scratch, 'dpop-machine-state'),
      BROWSER: '/nonexistent/browser',
    });
    t.match(byMachine.stdout, /hello, signed-in user/);
    t.match(await machine.stats(), { client_credentials_grants: 1, dpop_bound_tokens: 1 });
    await machine.server.stop();

    // No DPoP offered: bearer tokens, and no key made.
    const plain = await startOAuthServer({});
    const own3 = join(scratch, 'bearer-state');
    await mcpmuxCall(config('plain', { url: plain.url, oauth: {} }), 'plain__whoami', {
      XDG_STATE_HOME: own3,
    });
    const dir = join(own3, 'mcpmux', 'oauth');
    const bearer = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')) as Record<
      string,
      unknown
    >;
    t.match(bearer, { tokens: { token_type: 'Bearer' } });
    t.notOk('dpopKey' in bearer, 'no key');
    await plain.server.stop();
    await assertNoLeaks(t);
  },
);

t.test('mcpmux auth NAME signs in from the shell; --logout forgets; mistakes are named', async (t) => {
  const remote = await startOAuthServer({});
  const file = join(scratch, 'auth.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        linear: { url: remote.url, era: 'legacy' },
        plain: { url: remote.url, era: 'legacy', oauth: false },
        local: { command: process.execPath, args: ['-e', ''] },
      },
    }),
  );
  const auth = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [DIST_MAIN, 'auth', ...args, '--config', file], {
      env: taggedEnv({ XDG_STATE_HOME: join(scratch, 'auth-state'), BROWSER, ...env }),
      timeout: 30_000,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  const signed = await auth(['linear']);
  t.equal(signed.code, 0);
  t.match(
    signed.stdout,
    /^signed in to 'linear' \(http:\/\/127\.0\.0\.1:\d+\/mcp\); kept in .*auth-state\/mcpmux\/oauth\/[0-9a-f]{32}\.json/,
  );
  t.match(await remote.stats(), { authorizations: 1, code_grants: 1 });
  const again = await auth(['linear'], { BROWSER: '/nonexistent/browser' });
  t.equal(again.code, 0, 'a second auth uses the kept tokens');
  t.match(await remote.stats(), { authorizations: 1 });

  const out = await auth(['--logout', 'linear']);
  t.match(out.stdout, /^signed out of 'linear': removed .*\.json/);
  t.match((await auth(['--logout', 'linear'])).stdout, /nothing was kept for 'linear'/);

  t.match(await auth(['nosuch']), {
    code: 1,
    stderr: /no server named 'nosuch' in the config \(servers: linear, plain, local\)/,
  });
  t.match(await auth(['plain']), {
    code: 1,
    stderr: /'plain' has "oauth": false in the config; remove it to sign in/,
  });
  t.match(await auth(['local']), {
    code: 1,
    stderr: /'local' is a local command; signing in is for remote servers/,
  });
  await remote.server.stop();
  await assertNoLeaks(t);
});

t.test(
  'add_server of a server that needs a sign-in answers needs_auth at once; the client is asked through URL-mode elicitation',
  async (t) => {
    const remote = await startOAuthServer({});
    process.env['XDG_STATE_HOME'] = join(scratch, 'runtime-state');
    delete process.env['BROWSER'];
    t.teardown(() => void delete process.env['XDG_STATE_HOME']);
    const asked: { mode?: string; url?: string; message?: string; elicitationId?: string }[] = [];
    const completed: unknown[] = [];
    let answer: 'accept' | 'decline' = 'accept';
    const s = await startMcpmux([], {
      capabilities: { elicitation: { url: {} } },
      setup: (client) => {
        client.setRequestHandler('elicitation/create', async (request) => {
          const params = request.params as (typeof asked)[number];
          asked.push(params);
          // The person opens the URL in their browser, which follows the redirects.
          if (answer === 'accept' && params.url) await (await fetch(params.url)).text();
          return { action: answer };
        });
        client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
          completed.push(notification.params);
        });
      },
    });
    const added = await s.json('add_server', { name: 'notes', url: remote.url, era: 'legacy' });
    t.match(added.server, {
      name: 'notes',
      status: /needs_auth|running/,
    });
    t.ok(
      await waitFor(async () => (await s.json('list_servers')).servers[0]?.status === 'running', 15_000),
      'running once the person signed in from the client',
    );
    t.match(asked, [
      {
        mode: 'url',
        url: /^http:\/\/127\.0\.0\.1:\d+\/authorize\?/,
        message: /Sign in to 'notes' \(127\.0\.0\.1:\d+\): not signed in yet\./,
      },
    ]);
    t.match((await s.client.callTool({ name: 'notes__whoami', arguments: {} })).content, [
      { text: 'hello, signed-in user' },
    ]);
    t.ok(await waitFor(() => completed.length > 0), 'the client is told the sign-in there ended');
    t.same(completed, [{ elicitationId: asked[0]!.elicitationId }], 'naming the elicitation it was asked');

    // Declined in the client: the start fails at once, saying so.
    answer = 'decline';
    const second = await startOAuthServer({});
    const declined = await s.json('add_server', { name: 'other', url: second.url });
    t.match(
      declined.server,
      { name: 'other', status: 'needs_auth', authorization_url: /\/authorize\?/ },
      'needs_auth at once, with the URL',
    );
    t.ok(
      await waitFor(
        async () => !(await s.json('list_servers')).servers.some((x: { name: string }) => x.name === 'other'),
        15_000,
      ),
      'gone once declined',
    );
    t.match(
      s.stderr(),
      /server 'other' did not start: .*the sign-in to 'other' was declined in the client \(decline\)/,
    );
    t.equal(completed.length, 1, 'a declined sign-in did not end');
    await s.client.close();
    await s.process.exited;
    await remote.server.stop();
    await second.server.stop();
    await assertNoLeaks(t);
  },
);

t.test(
  'a 401 fails the start with what to do: "oauth": false names the sign-in it turned off, a server with no OAuth the header it wants',
  async (t) => {
    const remote = await startOAuthServer({});
    const off = await mcpmuxCall(config('off', { url: remote.url, oauth: false }), 'off__whoami').then(
      () => t.fail('the call should fail'),
      (error: { stderr: string }) => error.stderr,
    );
    t.match(
      off,
      /server 'off' failed to start: .*wants a sign-in \(HTTP 401 with an OAuth challenge\), and its entry has "oauth": false: remove "oauth": false to sign in, or give a token in "headers"/,
    );
    t.match(await remote.stats(), { registrations: 0, authorizations: 0 }, 'no sign-in was tried');

    // A server that wants a key of its own: no challenge, no metadata, its answer names the header.
    const keyed = await ChildProcess.spawn({
      command: process.execPath,
      args: [fixturePath('modern-http')],
      env: taggedEnv({ PORT: '0', REQUIRE_HEADER: 'X-Api-Key: k-123' }),
    });
    let out = '';
    keyed.stdout.on('data', (d) => (out += d));
    keyed.stderr.on('data', (d) => (out += d));
    await waitFor(() => /listening on (\S+)/.test(out));
    const url = /listening on (\S+)/.exec(out)![1]!;
    const missing = await mcpmuxCall(config('keyed', { url }), 'keyed__echo').then(
      () => t.fail('the call should fail'),
      (error: { stderr: string }) => error.stderr,
    );
    t.match(
      missing,
      /answered HTTP 401 \(no WWW-Authenticate challenge\) and offers no OAuth sign-in: it probably wants a token or key in a header; give it in the entry's "headers", e.g. \{"X-Api-Key": "\$\{API_KEY\}"\}/,
    );
    t.notMatch(missing, /sign in to continue/, 'no person was sent anywhere');
    const given = await run(
      process.execPath,
      [
        DIST_MAIN,
        'call',
        'keyed__echo',
        '{"message": "let in"}',
        '--config',
        config('keyed', { url, headers: { 'X-Api-Key': 'k-123' } }),
      ],
      { env: taggedEnv({ XDG_STATE_HOME: state }), timeout: 30_000 },
    );
    t.match(given.stdout, /let in/, 'with the header it answers');
    await keyed.stop();
    await remote.server.stop();
    await assertNoLeaks(t);
  },
);
