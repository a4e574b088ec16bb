// A machine client's OAuth (client_credentials, jwt_bearer): no redirect, a token
// request, and, with a private key, an assertion signed with the key's usual algorithm.
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CredentialStore } from '../../src/oauth/credential-store.js';
import { MachineOAuthProvider, usualAlgorithm } from '../../src/oauth/machine-client.js';
import type { OAuthSettings } from '../../src/oauth/oauth-settings.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpmux-machine-unit-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const machine = (settings: OAuthSettings) =>
  new MachineOAuthProvider({
    settings: { grantType: 'client_credentials', ...settings },
    store: new CredentialStore('https://mcp.example.com/mcp', dir),
    redirectUrl: () => {
      throw new Error('a machine client has no redirect');
    },
    sendToSignIn: () => {
      throw new Error('a machine client sends nobody to sign in');
    },
  });
const pem = (type: 'ec' | 'rsa' | 'ed25519', namedCurve?: string) => {
  const { privateKey, publicKey } =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: namedCurve! })
      : type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
};

t.test('a secret: no redirect, a client_credentials request authenticated by the secret', async (t) => {
  const p = machine({ clientId: 'm1', clientSecret: 's', scopes: ['read', 'write'] });
  t.equal(p.redirectUrl, undefined, "so the SDK's auth() takes its non-interactive flow");
  t.same(p.clientMetadata, {
    client_name: 'mcpmux',
    redirect_uris: [],
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'read write',
  });
  t.same(p.clientInformation(), { client_id: 'm1', client_secret: 's' });
  t.equal((await p.prepareTokenRequest('read')).toString(), 'grant_type=client_credentials&scope=read');
  t.equal((await p.prepareTokenRequest()).toString(), 'grant_type=client_credentials');
  t.equal(p.addClientAuthentication, undefined, 'the SDK authenticates it by its secret');
});

t.test('a private key signs an assertion for the authorization server', async (t) => {
  const { key, publicKey } = pem('ec', 'P-256');
  const p = machine({ clientId: 'm2', privateKey: key });
  t.equal(p.clientMetadata.token_endpoint_auth_method, 'private_key_jwt');
  const params = new URLSearchParams();
  await p.addClientAuthentication!(new Headers(), params, 'https://auth.example.com/token', {
    issuer: 'https://auth.example.com',
  } as never);
  t.equal(params.get('client_assertion_type'), 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
  const [head, body, signature] = params.get('client_assertion')!.split('.');
  const header = JSON.parse(Buffer.from(head!, 'base64url').toString()) as { alg: string };
  const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
  t.equal(header.alg, 'ES256', "the key's usual algorithm");
  t.match(claims, { iss: 'm2', sub: 'm2', aud: 'https://auth.example.com' });
  t.ok(
    verify(
      'sha256',
      Buffer.from(`${head}.${body}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature!, 'base64url'),
    ),
    'signed by the key',
  );
});

t.test("a key's usual algorithm", async (t) => {
  t.equal(usualAlgorithm(pem('rsa').key), 'RS256');
  t.equal(usualAlgorithm(pem('ec', 'P-256').key), 'ES256');
  t.equal(usualAlgorithm(pem('ec', 'P-384').key), 'ES384');
  t.equal(usualAlgorithm(pem('ed25519').key), 'EdDSA');
});

t.test(
  'a grant from an identity provider names the authorization server and the resource: a server that publishes no resource metadata is refused before the provider is asked',
  async (t) => {
    const idp = { issuer: 'https://idp.example', clientId: 'mcpmux', idTokenFile: '/nonexistent/id-token' };
    const p = machine({ grantType: 'jwt_bearer', clientId: 'c', idp });
    t.same(p.clientMetadata.grant_types, ['urn:ietf:params:oauth:grant-type:jwt-bearer']);
    await t.rejects(p.prepareTokenRequest(), /publishes no protected-resource metadata \(RFC 9728\)/);
    p.saveAuthorizationServerUrl('https://auth.example.com');
    p.saveResourceUrl('https://mcp.example.com/mcp');
    // Now the provider would be asked; the ID token is read first, and there is none.
    await t.rejects(
      p.prepareTokenRequest(),
      /cannot read the person's ID token in oauth\.idp\.id_token_file/,
    );
  },
);
