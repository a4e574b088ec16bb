// The HTTP guard's verdicts for each kind of bind: loopback, one address, a wildcard.
import { hostname, networkInterfaces } from 'node:os';
import t from 'tap';
import { HttpGuard } from '../../src/transport/http-guard.js';
import { hostnameOf } from '../../src/transport/host-names.js';

t.test('a loopback bind answers only to loopback names, any port', async (t) => {
  const guard = new HttpGuard({ bindHost: '127.0.0.1' });
  for (const host of ['localhost:8080', '127.0.0.1', '[::1]:9', 'LOCALHOST:1'])
    t.same(guard.check({ host }), { ok: true }, host);
  t.match(guard.check({ host: 'evil.example.com:8080' }), { ok: false, status: 403 });
  t.match(guard.check({}), { ok: false, status: 403, message: /Missing Host header/ });
  t.match(guard.check({ host: '127.0.0.1', origin: 'https://evil.example.com' }), { ok: false, status: 403 });
  t.same(guard.check({ host: '127.0.0.1', origin: 'http://localhost:5173' }), { ok: true }, 'a local page');
});

t.test('a bind to one address also answers to that address; a wildcard to the machine', async (t) => {
  const one = new HttpGuard({ bindHost: '10.1.2.3', authToken: 't' });
  t.same(one.check({ host: '10.1.2.3:8080', authorization: 'Bearer t' }), { ok: true });
  t.match(one.check({ host: '10.9.9.9', authorization: 'Bearer t' }), { ok: false, status: 403 });
  const v6 = new HttpGuard({ bindHost: 'fd00::5' });
  t.same(v6.check({ host: '[fd00::5]:80' }), { ok: true });
  const any = new HttpGuard({ bindHost: '0.0.0.0', authToken: 't' });
  const address =
    Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === 'IPv4')?.address ?? '127.0.0.1';
  t.same(
    any.check({ host: `${address}:8080`, authorization: 'Bearer t' }),
    { ok: true },
    'an address of the machine',
  );
  t.same(any.check({ host: hostname(), authorization: 'Bearer t' }), { ok: true }, "the machine's name");
  t.match(
    any.check({ host: 'evil.example.com', authorization: 'Bearer t' }),
    { ok: false, status: 403 },
    'not any name',
  );
});

t.test('the token is checked after the door; 401 says what is missing', async (t) => {
  const guard = new HttpGuard({ bindHost: '127.0.0.1', authToken: 's3cret' });
  t.match(
    guard.check({ host: 'evil.example.com', authorization: 'Bearer s3cret' }),
    { status: 403 },
    'a foreign host is refused even with the token',
  );
  t.match(guard.check({ host: 'localhost' }), {
    status: 401,
    message: 'missing bearer token (send Authorization: Bearer <token>)',
    headers: { 'WWW-Authenticate': 'Bearer realm="mcpmux"' },
  });
  t.match(guard.check({ host: 'localhost', authorization: 'Bearer s3cret-and-more' }), {
    status: 401,
    message: 'wrong bearer token',
  });
  t.same(guard.check({ host: 'localhost', authorization: 'Bearer s3cret' }), { ok: true });
  t.same(
    guard.check({ host: 'localhost', authorization: 'bearer s3cret' }),
    { ok: true },
    "the scheme's name in any case",
  );
  t.same(guard.check({ host: 'localhost', authorization: 'BEARER  s3cret' }), { ok: true });
  t.match(
    guard.check({ host: 'localhost', authorization: 'Bearer S3CRET' }),
    { status: 401 },
    'the token is exact',
  );
  t.match(
    guard.check({ host: 'localhost', authorization: 'Basic s3cret' }),
    { status: 401 },
    'another scheme',
  );
  t.match(guard.check({ host: 'localhost', authorization: 's3cret' }), { status: 401 });
});

t.test('hostnameOf normalizes what flags give', async (t) => {
  t.equal(hostnameOf('Mux.Example.com:8443'), 'mux.example.com');
  t.equal(hostnameOf('::1'), '[::1]');
  t.equal(hostnameOf('https://app.example.com:8443/x'), 'app.example.com');
  t.throws(() => hostnameOf('a b'));
});
