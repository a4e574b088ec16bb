// mcpmux's HTTP server turns TCP keepalive on for every connection, so that a client gone
// without a word (its GET stream left open, its session never idle) is found and closed.
// Read from the kernel: an idle socket with keepalive on has its keepalive timer pending
// (timer 2 in /proc/net/tcp, so this test needs Linux), one without has none (0).
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import t from 'tap';
import { silentLogger } from '../../src/common/log.js';
import { McpHttpServer } from '../../src/transport/http-server.js';

/** The timer of the socket from `local` to `remote` (ports on 127.0.0.1), from /proc/net/tcp. */
function tcpTimer(local: number, remote: number): string | undefined {
  const hex = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === hex(local) && fields[2] === hex(remote)) return fields[5]?.split(':')[0];
  }
  return undefined;
}

t.test('an idle connection to the HTTP server has its keepalive timer running', async (t) => {
  const served = await McpHttpServer.listen({
    port: 0,
    host: '127.0.0.1',
    createSession: () => {
      throw new Error('no session is opened here');
    },
    logger: silentLogger,
  });
  t.teardown(() => served.close());
  const port = Number(new URL(served.url).port);
  // A bare socket (no keepalive of its own) makes a request and stays open, idle.
  const socket = connect(port, '127.0.0.1');
  t.teardown(() => socket.destroy());
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(`GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  const answer = await new Promise<string>((resolve) => socket.once('data', (d) => resolve(String(d))));
  t.match(answer, /^HTTP\/1\.1 404/, 'answered, and the connection stays open');
  const clientPort = socket.localPort!;
  t.equal(tcpTimer(port, clientPort), '02', "the server's side: keepalive timer pending");
  t.equal(
    tcpTimer(clientPort, port),
    '00',
    "the client's side, without keepalive: no timer (the reading is right)",
  );
});
