// A remote server's HTTP refusals, met through a real server that answers with them
// (testservers/http-faults.js): each says whose it was and what to do; the server stays.
import t from 'tap';
import { httpRefusal } from '../../../src/child/remote/http-refusal.js';
import { withFaultyRemote } from '../../helpers/remote-fixtures.js';
import { textOf } from '../../helpers/mux-harness.js';

t.test("a remote server's HTTP refusal says whose it was and what to do; the server stays", async (t) => {
  const { h, close } = await withFaultyRemote(t);
  const refused = async (status: number, body: string) => {
    await h.call('exp__fail_next', { status, body });
    const result = await h.call('exp__echo', { message: 'x' });
    t.ok(result.isError, `HTTP ${status}`);
    return textOf(result);
  };
  t.equal(
    await refused(401, 'token expired'),
    "server 'exp' answered HTTP 401 Unauthorized: token expired; it did not accept mcpmux's credentials: check the server's headers (a token may have expired or lack a permission), then call reload_server [AUTH_FAILED]",
  );
  t.match(await refused(403, ''), /^server 'exp' answered HTTP 403 Forbidden; it did not accept/);
  t.match(
    await refused(429, '{"jsonrpc":"2.0","error":{"code":-32000,"message":"slow down"},"id":null}'),
    /^server 'exp' answered HTTP 429 Too Many Requests: slow down; it is limiting how often it is called: try again later \[CHILD_ERROR\]$/,
    'a JSON-RPC error body gives its message',
  );
  const page = `<html>\n<body>${'x'.repeat(500)}</body></html>`;
  t.match(
    await refused(502, page),
    /^server 'exp' answered HTTP 502 Bad Gateway: <html> <body>x+…; the server \(or a proxy in front of it\) failed: try again, and reload_server if it persists \[CHILD_ERROR\]$/,
    'an error page, on one line and cut short',
  );
  // A success that is a web page (a proxy's, say), not JSON-RPC: the call's answer is an error saying so.
  await h.call('exp__fail_next', { status: 200, body: page });
  await t.rejects(h.call('exp__echo', { message: 'x' }), {
    code: -32603,
    message: /^the server's answer is not JSON-RPC: it sent text\/plain: <html> <body>x+…$/,
  });
  t.notMatch(h.logs.join('\n') + JSON.stringify(await h.callJson('list_servers')), /unexpectedly/);
  t.match((await h.callJson('list_servers')).servers[0], { status: 'running' });
  t.match(
    textOf(await h.call('exp__echo', { message: 'fine' })),
    /^fine \(session 1\)$/,
    'and answers again',
  );
  await close();
});

t.test("an HTTP+SSE server's refusal (the SDK words it as text) reads the same", async (t) => {
  const refusal = httpRefusal('old', new Error('Error POSTing to endpoint (HTTP 502): <html>\nbad</html>'));
  t.match(refusal, {
    code: 'CHILD_ERROR',
    message: /^server 'old' answered HTTP 502 Bad Gateway: <html> bad<\/html>; the server \(or a proxy/,
  });
  const other = new Error('something else');
  t.equal(httpRefusal('old', other), other, 'anything else is left as it is');
});
