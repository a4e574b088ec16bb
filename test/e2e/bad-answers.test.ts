// A hand-written server whose answers JSON-RPC does not allow, behind the built mcpmux
// (testservers/bad-answers.js). Before: `"error": null` threw in the forwarding fast path
// after the call was taken off its list, and the call was never answered; an error without an
// integer code reached the client as it was, which an SDK client drops and then waits for; and
// the server's `{}` for resources/templates/list failed its whole start, where a client
// connected to it directly would still have had its tools. Now each such answer fails its own
// request with an Internal error saying what the server sent, and the malformed list is empty.
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { fixturePath } from '../helpers/fixtures.js';
import { startMcpmux, startMcpmuxHttp } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

const SERVER = ['--', 'bad', process.execPath, fixturePath('bad-answers')];
const NOT_JSON_RPC = "the server's answer is not valid JSON-RPC: ";

/** Every malformed answer fails its own call, saying what was wrong; the next call is served. */
async function checkAnswers(t: Test, client: Client) {
  const failures = [
    ['no_code', `its error's "code" is missing, not an integer (it said: no code here)`],
    ['string_code', `its error's "code" is "E42", not an integer (it said: a string code)`],
    ['null_error', `its "error" is null, not an object`],
    ['empty_answer', `it has neither a "result" nor an "error"`],
  ] as const;
  for (const [tool, why] of failures)
    await t.rejects(
      client.callTool({ name: `bad__${tool}` }),
      { code: -32603, message: NOT_JSON_RPC + why },
      tool,
    );
  await t.rejects(client.readResource({ uri: 'bad://one' }), {
    code: -32603,
    message: /its error's "code" is "404", not an integer \(it said: a read that went wrong\)/,
  });
  t.match(await client.callTool({ name: 'bad__fine' }), { content: [{ type: 'text', text: 'fine' }] });
}

t.test('over stdio (the forwarding fast path)', async (t) => {
  const s = await startMcpmux(['--call-timeout', '120', ...SERVER]);
  t.teardown(() => s.client.close());
  t.match((await s.json('list_servers')).servers, [{ name: 'bad', status: 'running' }], 'it started');
  t.match(s.stderr(), /\[bad\] resources\/templates\/list: Invalid result .*; taking it as empty/);
  await checkAnswers(t, s.client);
  t.match(
    s.stderr(),
    /\[bad\] the server's answer is not valid JSON-RPC: its "error" is null, not an object/,
  );
  await s.client.close();
  await s.process.exited;
  await assertNoLeaks(t);
});

t.test('over HTTP', async (t) => {
  const mux = await startMcpmuxHttp(['--call-timeout', '120', ...SERVER]);
  t.teardown(() => mux.stop());
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(mux.url)));
  t.teardown(() => client.close());
  await checkAnswers(t, client);
});
