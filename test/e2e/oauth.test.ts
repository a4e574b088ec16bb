// OAuth to a remote server, end to end with real processes: the built mcpmux (one-shot and
// serving) signs a person in to a fixture server that is its own authorization server, keeps
// and renews the tokens, shares them between processes, and says what to do when it cannot.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { ChildProcess } from '../../src/child/process/child-process.js';
import { CredentialStore } from '../../src/oauth/credential-store.js';
import { DIST_MAIN, fixturePath } from '../helpers/fixtures.js';
import { serverStatus, startMcpmux } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, matchLogged, taggedEnv, waitFor } from '../helpers/processes.js';
import { BROWSER, SECRET, oauthScratch, run, startOAuthServer } from '../helpers/oauth-fixtures.js';

const { scratch, state, config, mcpmuxCall } = oauthScratch(t);

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
    await matchLogged(
      t,
      () => s.stderr(),
      /server 'remote' waits for a sign-in \(list_servers shows where\)/,
    );

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
    await matchLogged(
      t,
      () => s.stderr(),
      /server 'remote' waits for a sign-in \(list_servers shows where\)/,
    );
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
