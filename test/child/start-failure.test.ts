import t from 'tap';
import { closedByServer, handshakeVerdict } from '../../src/child/start-failure.js';
import { StreamClosedError } from '../../src/transport/json-line-writer.js';

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
