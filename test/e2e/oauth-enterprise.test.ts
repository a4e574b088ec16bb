// Enterprise-managed authorization, end to end: the organisation's identity provider trades
// the person's ID token for grants its servers' authorization servers take; one sign-in at the
// provider serves all of the organisation's servers, across processes and while serving.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { DIST_MAIN } from '../helpers/fixtures.js';
import { startMcpmux } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, taggedEnv, waitFor } from '../helpers/processes.js';
import { BROWSER, oauthScratch, run } from '../helpers/oauth-fixtures.js';

const { scratch, mcpmuxCall, startOrganisation } = oauthScratch(t);

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
