// @ts-check
// Simulates: an organisation's identity provider (Okta, Entra ID…) in enterprise-managed
// authorization (SEP-990). It issues its people's ID tokens (a test hook stands in for their
// SSO sign-in), publishes OpenID metadata, and at its token endpoint exchanges an ID token it
// issued to its client for a grant to one MCP server's authorization server (RFC 8693 token
// exchange → an ID-JAG, a JWT typed oauth-id-jag+jwt), which that server checks with this
// provider's public key (oauth-server.js's IDP_PUBLIC_KEY). Its people sign in with OpenID
// Connect (an authorization endpoint that approves PERSON at once, PKCE S256, the ID token
// and a refresh token that renews it).
// Env: IDP_PRIVATE_KEY (PEM, EC P-256: signs ID tokens and grants), IDP_CLIENT_ID and
// IDP_CLIENT_SECRET (its client, mcpmux), JAG_CLIENT_ID (the client the MCP server's
// authorization server knows mcpmux by, named in each grant), PERSON (who signs in),
// ID_TOKEN_TTL_SECONDS (default 600). Test hooks: GET /admin/id-token?sub=…[&aud=…] (an ID
// token for that person, as their SSO agent would keep it), GET /admin/stats.
import { createHash, createPrivateKey, createPublicKey, randomUUID, sign, verify } from 'node:crypto';
import { createServer } from 'node:http';

const key = createPrivateKey(process.env['IDP_PRIVATE_KEY'] ?? '');
const publicKey = createPublicKey(key);
const clientId = process.env['IDP_CLIENT_ID'] ?? 'mcpmux';
const clientSecret = process.env['IDP_CLIENT_SECRET'];
const jagClientId = process.env['JAG_CLIENT_ID'] ?? 'mcp-client';
/** Who signs in at the authorization endpoint. */
const signingIn = process.env['PERSON'] ?? 'alice@acme.example';
const idTokenTtl = Number(process.env['ID_TOKEN_TTL_SECONDS'] ?? 600);
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** @type {Map<string, {challenge: string, redirect: string}>} authorization code → its request */
const codes = new Map();
/** @type {Set<string>} */
const refreshTokens = new Set();
const stats = {
  sign_ins: 0,
  id_token_refreshes: 0,
  token_exchanges: 0,
  refused_id_tokens: 0,
  refused_clients: 0,
  /** What the last grant was for. */
  last_audience: '',
  last_resource: '',
};
let base = '';

const part = (/** @type {object} */ value) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A JWT this provider signs (ES256). */
function signed(header, claims) {
  const input = `${part({ alg: 'ES256', ...header })}.${part(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** A new ID token for `sub`, for this provider's client unless `aud` says otherwise. */
function idToken(sub, aud = clientId) {
  const now = Math.floor(Date.now() / 1000);
  return signed({ typ: 'JWT' }, { iss: base, sub, aud, iat: now, exp: now + idTokenTtl });
}

/** Whether the token request authenticates as this provider's client (by form or Basic). */
function isClient(request, form) {
  const basic = request.headers.authorization?.match(/^Basic (.+)$/)?.[1];
  const [id, secret] = basic
    ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent)
    : [form.get('client_id'), form.get('client_secret')];
  return id === clientId && (!clientSecret || secret === clientSecret);
}

/** The claims of an ID token this provider issued to its client, unexpired; else undefined. */
function verifiedIdToken(token) {
  const [head = '', claims = '', signature = ''] = token.split('.');
  const ok = verify(
    'sha256',
    Buffer.from(`${head}.${claims}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!ok) return undefined;
  const payload = JSON.parse(Buffer.from(claims, 'base64url').toString());
  const fresh = typeof payload.exp === 'number' && payload.exp * 1000 > Date.now();
  return fresh && payload.iss === base && payload.aud === clientId ? payload : undefined;
}

/** @param {import('node:http').ServerResponse} response */
function json(response, status, value) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

const server = createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', base);
  if (request.method === 'GET' && url.pathname === '/.well-known/openid-configuration')
    return json(response, 200, {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      grant_types_supported: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE],
      scopes_supported: ['openid', 'offline_access'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
    });
  if (request.method === 'GET' && url.pathname === '/authorize') {
    const q = url.searchParams;
    if (q.get('client_id') !== clientId || !q.get('scope')?.split(' ').includes('openid'))
      return json(response, 400, { error: 'invalid_request' });
    const code = randomUUID();
    codes.set(code, { challenge: q.get('code_challenge') ?? '', redirect: q.get('redirect_uri') ?? '' });
    const back = new URL(q.get('redirect_uri') ?? '');
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state') ?? '');
    response.writeHead(302, { location: back.href }).end();
    return;
  }
  if (request.method === 'POST' && url.pathname === '/token') {
    let text = '';
    for await (const chunk of request) text += chunk;
    const form = new URLSearchParams(text);
    if (!isClient(request, form)) {
      stats.refused_clients++;
      return json(response, 401, { error: 'invalid_client' });
    }
    if (form.get('grant_type') === 'authorization_code') {
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const challenge = createHash('sha256')
        .update(form.get('code_verifier') ?? '')
        .digest('base64url');
      if (!grant || grant.challenge !== challenge || grant.redirect !== form.get('redirect_uri'))
        return json(response, 400, { error: 'invalid_grant' });
      stats.sign_ins++;
      const refreshToken = randomUUID();
      refreshTokens.add(refreshToken);
      return json(response, 200, {
        access_token: randomUUID(),
        token_type: 'Bearer',
        expires_in: idTokenTtl,
        id_token: idToken(signingIn),
        refresh_token: refreshToken,
      });
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (!refreshTokens.has(form.get('refresh_token') ?? ''))
        return json(response, 400, { error: 'invalid_grant' });
      stats.id_token_refreshes++;
      return json(response, 200, {
        access_token: randomUUID(),
        token_type: 'Bearer',
        expires_in: idTokenTtl,
        id_token: idToken(signingIn),
      });
    }
    const wellFormed =
      form.get('grant_type') === TOKEN_EXCHANGE &&
      form.get('requested_token_type') === 'urn:ietf:params:oauth:token-type:id-jag' &&
      form.get('subject_token_type') === 'urn:ietf:params:oauth:token-type:id_token' &&
      form.get('audience') &&
      form.get('resource');
    if (!wellFormed) return json(response, 400, { error: 'invalid_request' });
    const person = verifiedIdToken(form.get('subject_token') ?? '');
    if (!person) {
      stats.refused_id_tokens++;
      return json(response, 400, { error: 'invalid_grant', error_description: 'ID token refused' });
    }
    stats.token_exchanges++;
    stats.last_audience = form.get('audience') ?? '';
    stats.last_resource = form.get('resource') ?? '';
    const now = Math.floor(Date.now() / 1000);
    const grant = signed(
      { typ: 'oauth-id-jag+jwt' },
      {
        iss: base,
        sub: person.sub,
        aud: form.get('audience'),
        resource: form.get('resource'),
        client_id: jagClientId,
        jti: randomUUID(),
        iat: now,
        exp: now + 300,
      },
    );
    return json(response, 200, {
      access_token: grant,
      issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      token_type: 'N_A',
      expires_in: 300,
    });
  }
  if (request.method === 'GET' && url.pathname === '/admin/id-token') {
    const token = idToken(url.searchParams.get('sub'), url.searchParams.get('aud') ?? clientId);
    return json(response, 200, { id_token: token });
  }
  if (request.method === 'GET' && url.pathname === '/admin/stats') return json(response, 200, stats);
  json(response, 404, { error: 'not found' });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  process.stdout.write(`listening on ${base}\n`);
});
