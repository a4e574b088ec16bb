import t from 'tap';
import { closedByServer, handshakeVerdict, knownFix } from '../../src/child/start-failure.js';
import { StreamClosedError } from '../../src/protocol/json-line-writer.js';

const VERSIONS = ['2025-11-25'];

t.test('a connection the server closed is its doing, in every form it takes', async (t) => {
  for (const error of [
    new Error('Connection closed'),
    new StreamClosedError(),
    new Error('transport closed'),
    // How the SDK reports a probe it could not send.
    new Error('Version negotiation probe failed: transport closed'),
    // The SDK heard the close before it sent the probe.
    new Error('Version negotiation probe failed: Not connected'),
    new Error('Version negotiation probe failed', { cause: new StreamClosedError() }),
  ]) {
    t.ok(closedByServer(error), error.message);
    t.equal(handshakeVerdict('x', error, true, VERSIONS), undefined, 'not a refusal');
  }
});

t.test('a live server that refuses the handshake is reported for that', async (t) => {
  const refusal = new Error('Server protocol version is not supported: 1999-01-01');
  t.notOk(closedByServer(refusal));
  t.match(handshakeVerdict('x', refusal, true, VERSIONS)?.message, /protocol version 1999-01-01/);
  t.equal(
    handshakeVerdict('x', refusal, false, VERSIONS),
    undefined,
    'once it has exited, the exit says why',
  );
});

t.test('npx without -y, asking before an install, is told to add it', async (t) => {
  // npm 10's words, as a server started by `npx some-package` with no cached copy ends.
  const npx = [
    'npm error npx canceled due to missing packages and no YES option: ["@modelcontextprotocol/server-sequential-thinking@2026.8.31"]',
    'npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-27T16_44_26_210Z-debug-0.log',
  ];
  t.match(knownFix(npx), /put "-y" first in its args/);
  t.equal(knownFix(['Error: missing API key DEMO_KEY']), '', 'nothing for a failure it does not know');
});
