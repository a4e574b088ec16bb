// OAuth with nobody at a browser, end to end: a machine client's client_credentials (by secret
// or private key), a workload's jwt_bearer token read again as it rotates, and DPoP-bound
// tokens with the key mcpmux keeps.
import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { assertNoLeaks } from '../helpers/processes.js';
import { SECRET, oauthScratch, startOAuthServer } from '../helpers/oauth-fixtures.js';

const { scratch, config, mcpmuxCall } = oauthScratch(t);

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
    // Renewed at least once, each renewal bound to the key (a loaded machine's slow run may renew the 2 s token twice).
    const renewed = await remote.stats();
    t.match(renewed, { authorizations: 1 });
    t.ok(renewed['refresh_grants']! >= 1, `renewed (${renewed['refresh_grants']} times)`);
    t.equal(
      renewed['dpop_bound_tokens'],
      1 + renewed['refresh_grants']!,
      'each renewal bound to the kept key',
    );
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
