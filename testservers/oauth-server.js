// @ts-check
// Simulates: a remote MCP server behind OAuth 2.1, with its own authorization server on the
// same origin (as GitHub's or Linear's are to their clients): protected-resource metadata,
// authorization-server metadata, dynamic registration, an authorization endpoint that
// approves at once (the browser's part is a GET that follows redirects), PKCE (S256) at the
// token endpoint, refresh tokens, a pre-registered confidential client, and the
// client_credentials grant (SEP-1046) for it, by its secret or by an assertion signed with
// its private key (private_key_jwt, checked against PRE_CLIENT_PUBLIC_KEY); the JWT-bearer
// grant for a workload's token (RFC 7523 §2.1, SEP-1933) or for a grant an organisation's
// identity provider issued (an ID-JAG, SEP-990); and DPoP (RFC 9449). MCP itself is a
// stateless JSON-over-POST endpoint with one tool, `whoami`.
// Env: TOKEN_TTL_SECONDS (access token lifetime, default 3600), TOKEN_DELAY_MS (how long the
// token endpoint takes to answer, default 0), PRE_CLIENT_ID and
// PRE_CLIENT_SECRET (a client registered beforehand), PRE_CLIENT_PUBLIC_KEY (its public key,
// PEM), WORKLOAD_PUBLIC_KEY (the PEM key of the issuer whose workload tokens it takes as
// grants), IDP_PUBLIC_KEY (the PEM key of the identity provider whose ID-JAGs it takes, for
// the pre-registered client only, as their client_id claim says). DPOP=ALG,ALG… advertises DPoP with those algorithms: a token request with a valid
// proof gets tokens bound to its key, which /mcp then takes only with a proof of that key;
// DPOP_NONCE=1 also asks for a nonce, at both ends. Test hooks: POST /admin/revoke (every
// refresh token and access token stops working), GET /admin/stats.
import { constants, createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer } from 'node:http';

const ttl = Number(process.env['TOKEN_TTL_SECONDS'] ?? 3600);
const tokenDelayMs = Number(process.env['TOKEN_DELAY_MS'] ?? 0);
const preClient = process.env['PRE_CLIENT_ID'];
const preSecret = process.env['PRE_CLIENT_SECRET'];
const prePublicKey = process.env['PRE_CLIENT_PUBLIC_KEY'];
const workloadPublicKey = process.env['WORKLOAD_PUBLIC_KEY'];
const idpPublicKey = process.env['IDP_PUBLIC_KEY'];
const dpopAlgs = process.env['DPOP']?.split(',');
const dpopNonce = process.env['DPOP_NONCE'] === '1' ? id('nonce') : undefined;
/** @type {Map<string, {challenge: string, client: string, redirect: string, scope: string}>} */
const codes = new Map();
/** @type {Map<string, {expires: number, scope: string, jkt?: string}>} */
const access = new Map();
/** @type {Map<string, {scope: string, jkt?: string}>} refresh token → its grant */
const refresh = new Map();
/** DPoP proofs' jti seen: each may be used once. */
const seenJti = new Set();
const stats = {
  registrations: 0,
  authorizations: 0,
  code_grants: 0,
  refresh_grants: 0,
  refused_refreshes: 0,
  client_credentials_grants: 0,
  jwt_bearer_grants: 0,
  refused_workload_tokens: 0,
  /** The sub of the last workload token granted. */
  last_workload_subject: '',
  id_jag_grants: 0,
  refused_id_jags: 0,
  /** The person the last ID-JAG granted was for. */
  last_id_jag_subject: '',
  dpop_bound_tokens: 0,
  dpop_requests: 0,
  dpop_nonce_challenges: 0,
};
let base = '';
function id(prefix) {
  return `${prefix}-${randomBytes(8).toString('hex')}`;
}

/** @param {import('node:http').IncomingMessage} request */
async function body(request) {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}
/** @param {import('node:http').ServerResponse} response */
function json(response, status, value, headers = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
}

/**
 * A new access token, and a refresh token unless the client is a machine (it asks again);
 * with `jkt`, both bound to that DPoP key.
 */
function issue(response, scope, refreshable = true, jkt = undefined) {
  const token = id('at');
  const renew = refreshable ? id('rt') : undefined;
  access.set(token, { expires: Date.now() + ttl * 1000, scope, jkt });
  if (renew) refresh.set(renew, { scope, jkt });
  if (jkt) stats.dpop_bound_tokens++;
  json(response, 200, {
    access_token: token,
    token_type: jkt ? 'DPoP' : 'Bearer',
    expires_in: ttl,
    ...(renew && { refresh_token: renew }),
    scope,
  });
}

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** A JWT's claims when `publicKey` (PEM) signed it, for this server, and it has not expired. */
function verifiedJwt(jwt, publicKey) {
  const [head, claims, signature] = jwt.split('.');
  if (!publicKey || !signature) return undefined;
  const header = JSON.parse(Buffer.from(head ?? '', 'base64url').toString());
  const payload = JSON.parse(Buffer.from(claims ?? '', 'base64url').toString());
  const key = createPublicKey(publicKey);
  const digest = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', EdDSA: null }[header.alg];
  if (digest === undefined) return undefined;
  const signed = Buffer.from(`${head}.${claims}`);
  const ok = verify(digest, signed, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  const audience = [base, `${base}/token`];
  const fresh = typeof payload.exp === 'number' && payload.exp * 1000 > Date.now();
  const forUs = [payload.aud].flat().some((aud) => audience.includes(aud));
  return ok && fresh && forUs ? payload : undefined;
}

/** A JWT's typ header. */
function jwtType(jwt) {
  try {
    return JSON.parse(Buffer.from(jwt?.split('.')[0] ?? '', 'base64url').toString()).typ;
  } catch {
    return undefined;
  }
}

/** A client assertion (RFC 7523) signed by the pre-registered client's key, for this server, not expired. */
function assertedClient(form) {
  if (form.get('client_assertion_type') !== JWT_BEARER) return undefined;
  const payload = verifiedJwt(form.get('client_assertion') ?? '', prePublicKey);
  return payload?.iss === preClient && payload?.sub === preClient ? preClient : undefined;
}

/** RFC 7638's thumbprint of a public JWK. */
function thumbprint(jwk) {
  const members =
    jwk.kty === 'RSA'
      ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
      : jwk.kty === 'OKP'
        ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
        : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/**
 * Checks a request's DPoP proof (RFC 9449 §4.3) for `htu`, and for `token` when one is
 * presented: the key's thumbprint, or {error} (use_dpop_nonce when it lacks the nonce).
 * @returns {{jkt: string} | {error: string}}
 */
function checkProof(request, htu, token = undefined) {
  const proof = request.headers['dpop'];
  if (typeof proof !== 'string' || proof.includes(',')) return { error: 'invalid_dpop_proof' };
  const [head = '', claims = '', signature = ''] = proof.split('.');
  const header = JSON.parse(Buffer.from(head, 'base64url').toString());
  const payload = JSON.parse(Buffer.from(claims, 'base64url').toString());
  const digest = /** @type {Record<string, string | null>} */ ({
    ES256: 'sha256',
    ES384: 'sha384',
    RS256: 'sha256',
    PS256: 'sha256',
    EdDSA: null,
  })[header.alg];
  if (header.typ !== 'dpop+jwt' || !header.jwk || header.jwk.d || digest === undefined)
    return { error: 'invalid_dpop_proof' };
  const key = createPublicKey({ key: header.jwk, format: 'jwk' });
  const options = header.alg === 'PS256' ? { padding: constants.RSA_PKCS1_PSS_PADDING } : {};
  const signed = Buffer.from(`${head}.${claims}`);
  if (
    !verify(
      digest,
      signed,
      { key, dsaEncoding: 'ieee-p1363', ...options },
      Buffer.from(signature, 'base64url'),
    )
  )
    return { error: 'invalid_dpop_proof' };
  const fresh = Math.abs(Date.now() / 1000 - payload.iat) < 300 && !seenJti.has(payload.jti);
  const ath = token && createHash('sha256').update(token).digest('base64url');
  if (!fresh || payload.htm !== request.method || payload.htu !== htu || (token && payload.ath !== ath))
    return { error: 'invalid_dpop_proof' };
  seenJti.add(payload.jti);
  if (dpopNonce && payload.nonce !== dpopNonce) {
    stats.dpop_nonce_challenges++;
    return { error: 'use_dpop_nonce' };
  }
  return { jkt: thumbprint(header.jwk) };
}

/** The client a token request authenticates as, or undefined when it fails to. */
function clientOf(request, form) {
  if (form.has('client_assertion')) return assertedClient(form);
  const basic = request.headers.authorization?.match(/^Basic (.+)$/)?.[1];
  if (basic) {
    const [client, secret] = Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent);
    return client === preClient && secret === preSecret ? client : undefined;
  }
  const client = form.get('client_id') ?? undefined;
  return client === preClient ? undefined : client; // the confidential client must authenticate
}

function mcp(message) {
  const { id: requestId, method } = message;
  if (requestId === undefined) return undefined;
  const result = (value) => ({ jsonrpc: '2.0', id: requestId, result: value });
  if (method === 'initialize')
    return result({
      protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'oauth-fixture', version: '1.0.0' },
    });
  if (method === 'ping') return result({});
  if (method === 'tools/list')
    return result({
      tools: [{ name: 'whoami', description: 'Who the token belongs to', inputSchema: { type: 'object' } }],
    });
  if (method === 'tools/call') return result({ content: [{ type: 'text', text: 'hello, signed-in user' }] });
  return { jsonrpc: '2.0', id: requestId, error: { code: -32601, message: `Method not found: ${method}` } };
}

const server = createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', base);
  const path = url.pathname;
  if (request.method === 'GET' && path === '/.well-known/oauth-protected-resource/mcp')
    return json(response, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
  if (request.method === 'GET' && path === '/.well-known/oauth-authorization-server')
    return json(response, 200, {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', JWT_BEARER_GRANT],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['RS256', 'ES256', 'ES384', 'EdDSA'],
      ...(dpopAlgs && { dpop_signing_alg_values_supported: dpopAlgs }),
    });
  if (request.method === 'POST' && path === '/register') {
    stats.registrations++;
    const wanted = JSON.parse(await body(request));
    return json(response, 201, { ...wanted, client_id: id('client'), token_endpoint_auth_method: 'none' });
  }
  if (request.method === 'GET' && path === '/authorize') {
    stats.authorizations++;
    const q = url.searchParams;
    if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
      return json(response, 400, { error: 'invalid_request', error_description: 'PKCE S256 required' });
    const code = id('code');
    const redirect = q.get('redirect_uri') ?? '';
    codes.set(code, {
      challenge: q.get('code_challenge') ?? '',
      client: q.get('client_id') ?? '',
      redirect,
      scope: q.get('scope') ?? 'mcp',
    });
    const back = new URL(redirect);
    back.searchParams.set('code', code);
    if (q.get('state')) back.searchParams.set('state', q.get('state') ?? '');
    response.writeHead(302, { location: back.href }).end();
    return;
  }
  if (request.method === 'POST' && path === '/token') {
    if (tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, tokenDelayMs));
    const form = new URLSearchParams(await body(request));
    const client = clientOf(request, form);
    if (!client) return json(response, 401, { error: 'invalid_client' });
    // A request with a DPoP proof gets tokens bound to its key; a bad proof is refused.
    let jkt;
    if (dpopAlgs && request.headers['dpop'] !== undefined) {
      const checked = checkProof(request, `${base}/token`);
      if ('error' in checked)
        return json(response, 400, { error: checked.error }, dpopNonce ? { 'dpop-nonce': dpopNonce } : {});
      jkt = checked.jkt;
    }
    if (form.get('grant_type') === 'authorization_code') {
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!grant || grant.client !== client || grant.challenge !== challenge)
        return json(response, 400, { error: 'invalid_grant' });
      stats.code_grants++;
      return issue(response, grant.scope, true, jkt);
    }
    if (form.get('grant_type') === 'refresh_token') {
      const grant = refresh.get(form.get('refresh_token') ?? '');
      if (grant === undefined) {
        stats.refused_refreshes++;
        return json(response, 400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
      }
      // A bound refresh token is good only with a proof of its key (RFC 9449 §5).
      if (grant.jkt !== undefined && grant.jkt !== jkt)
        return json(response, 400, { error: 'invalid_grant', error_description: 'DPoP key mismatch' });
      refresh.delete(form.get('refresh_token') ?? '');
      stats.refresh_grants++;
      return issue(response, grant.scope, true, jkt);
    }
    // A grant the identity provider issued for a person (SEP-990): for this server, this client.
    if (
      form.get('grant_type') === JWT_BEARER_GRANT &&
      jwtType(form.get('assertion')) === 'oauth-id-jag+jwt'
    ) {
      const grant = verifiedJwt(form.get('assertion') ?? '', idpPublicKey);
      if (!grant || grant.client_id !== client || grant.resource !== `${base}/mcp`) {
        stats.refused_id_jags++;
        return json(response, 400, { error: 'invalid_grant', error_description: 'ID-JAG refused' });
      }
      stats.id_jag_grants++;
      stats.last_id_jag_subject = grant.sub;
      return issue(response, form.get('scope') ?? 'mcp', false, jkt);
    }
    // A workload's token (RFC 7523 §2.1) from the issuer whose key this server trusts.
    if (form.get('grant_type') === JWT_BEARER_GRANT) {
      const workload = verifiedJwt(form.get('assertion') ?? '', workloadPublicKey);
      if (!workload) {
        stats.refused_workload_tokens++;
        return json(response, 400, { error: 'invalid_grant', error_description: 'workload token refused' });
      }
      stats.jwt_bearer_grants++;
      stats.last_workload_subject = workload.sub;
      return issue(response, form.get('scope') ?? 'mcp', false, jkt);
    }
    if (form.get('grant_type') === 'client_credentials' && client === preClient) {
      stats.client_credentials_grants++;
      return issue(response, form.get('scope') ?? 'mcp', false, jkt);
    }
    return json(response, 400, { error: 'unsupported_grant_type' });
  }
  if (request.method === 'POST' && path === '/admin/revoke') {
    refresh.clear();
    access.clear();
    return json(response, 200, {});
  }
  if (request.method === 'GET' && path === '/admin/stats') return json(response, 200, stats);
  if (path === '/mcp') {
    const [, scheme, token] = request.headers.authorization?.match(/^(Bearer|DPoP) (.+)$/) ?? [];
    const granted = token ? access.get(token) : undefined;
    const metadata = `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
    const refuse = (error, headers = {}) =>
      json(
        response,
        401,
        { error },
        {
          'www-authenticate': granted?.jkt ? `DPoP error="${error}", ${metadata}` : `Bearer ${metadata}`,
          ...headers,
        },
      );
    if (!granted || granted.expires < Date.now()) return refuse('invalid_token');
    // A bound token goes with the DPoP scheme and a proof of its key, for this request.
    if (granted.jkt !== undefined || scheme === 'DPoP') {
      const checked =
        scheme === 'DPoP' ? checkProof(request, `${base}/mcp`, token) : { error: 'invalid_token' };
      if ('error' in checked)
        return refuse(checked.error, checked.error === 'use_dpop_nonce' ? { 'dpop-nonce': dpopNonce } : {});
      if (checked.jkt !== granted.jkt) return refuse('invalid_token');
      stats.dpop_requests++;
    }
    if (request.method !== 'POST') return json(response, 405, { error: 'method not allowed' });
    const answer = mcp(JSON.parse(await body(request)));
    if (!answer) return response.writeHead(202).end();
    return json(response, 200, answer);
  }
  json(response, 404, { error: 'not found' });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  process.stdout.write(`listening on ${base}/mcp\n`);
});
