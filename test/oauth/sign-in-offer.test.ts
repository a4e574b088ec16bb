// Whether a 401 offers an OAuth sign-in (a Bearer challenge, or metadata where discovery looks,
// read from a real HTTP server), and the header named to a person when it does not.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { clientSdk } from '../../src/protocol/client-sdk.js';
import { challengeSchemes, likelyHeader, offersSignIn } from '../../src/oauth/sign-in-offer.js';

const refusal = (challenge?: string) =>
  new Response('', { status: 401, headers: challenge ? { 'www-authenticate': challenge } : {} });

t.test('the schemes of a WWW-Authenticate header, not its parameters', async (t) => {
  t.same(challengeSchemes('Bearer'), ['Bearer']);
  t.same(challengeSchemes('Bearer realm="mcp", error="invalid_token"'), ['Bearer']);
  t.same(challengeSchemes('Basic realm="x", Bearer resource_metadata="https://a/b"'), ['Basic', 'Bearer']);
  t.same(challengeSchemes('DPoP algs="ES256"'), ['DPoP']);
  t.same(challengeSchemes(null), []);
  t.same(challengeSchemes(''), []);
});

t.test('the header a server that offers no sign-in probably wants', async (t) => {
  t.equal(
    likelyHeader(refusal('Basic realm="api"'), ''),
    '{"Authorization": "Basic ${BASE64_USER_COLON_PASSWORD}"}',
  );
  t.equal(likelyHeader(refusal('Token'), ''), '{"Authorization": "Token ${TOKEN}"}');
  t.equal(likelyHeader(refusal(), 'missing header X-Api-Key'), '{"X-Api-Key": "${API_KEY}"}');
  t.equal(likelyHeader(refusal(), '{"error": "provide x-goog-api-key"}'), '{"x-goog-api-key": "${API_KEY}"}');
  t.equal(likelyHeader(refusal(), 'Unauthorized'), '{"Authorization": "Bearer ${TOKEN}"}');
});

t.test('a sign-in is offered by a Bearer challenge, or by metadata at the well-known places', async (t) => {
  const sdk = await clientSdk();
  let published: 'none' | 'resource' | 'server' = 'none';
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(request.url ?? '');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (published === 'resource' && request.url?.startsWith('/.well-known/oauth-protected-resource')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [base] }));
      return;
    }
    if (published === 'server' && request.url === '/.well-known/oauth-authorization-server') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          response_types_supported: ['code'],
        }),
      );
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;

  t.equal(await offersSignIn(sdk, refusal('Bearer error="invalid_token"'), url), true);
  t.same(asked, [], 'a Bearer challenge is enough: nothing is fetched');
  t.equal(await offersSignIn(sdk, refusal(), url), false, 'no challenge, no metadata');
  t.ok(asked.length > 0, 'the metadata was looked for');
  t.equal(await offersSignIn(sdk, refusal('Basic realm="x"'), url), false, 'another scheme, no metadata');
  published = 'resource';
  t.equal(await offersSignIn(sdk, refusal(), url), true, 'protected-resource metadata (RFC 9728)');
  published = 'server';
  t.equal(
    await offersSignIn(sdk, refusal(), url),
    true,
    "authorization-server metadata at the origin (2025-03-26's)",
  );
});
