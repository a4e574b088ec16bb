// The HTTP+SSE transport on a real HTTP server, without mcpmux around it: what its stream
// carries while nothing is sent, and what it asks of a closed one.
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { LegacySseTransport } from '../../src/transport/legacy-sse.js';
import { waitFor } from '../helpers/processes.js';

async function servedTransport(keepAliveMs: number) {
  let transport!: LegacySseTransport;
  const server = createServer((_req, res) => {
    transport = new LegacySseTransport(res, { keepAliveMs });
    void transport.start();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let body = '';
  const response = await new Promise<IncomingMessage>((resolve) =>
    request(`http://127.0.0.1:${port}/sse`, { headers: { accept: 'text/event-stream' } }, resolve).end(),
  );
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => (body += chunk));
  response.on('error', () => {});
  return {
    transport: () => transport,
    body: () => body,
    end: () => {
      response.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const comments = (body: string) => body.split('\n\n').filter((block) => block === ': keepalive').length;

t.test('a quiet stream gets a keepalive comment at each interval, and none once it has ended', async (t) => {
  const served = await servedTransport(40);
  t.ok(await waitFor(() => comments(served.body()) >= 3, 5_000), 'comments while nothing is sent');
  t.match(served.body(), /^event: endpoint\ndata: \/messages\?sessionId=/, 'after the endpoint event');
  let closed = false;
  served.transport().onclose = () => (closed = true);
  await served.transport().close();
  t.ok(closed, 'the session ends with its stream');
  const after = comments(served.body());
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(comments(served.body()), after, 'no comment after the end');
  await t.rejects(
    served.transport().send({ jsonrpc: '2.0', method: 'notifications/message', params: {} }),
    /the SSE stream is closed/,
  );
  await served.end();
});
