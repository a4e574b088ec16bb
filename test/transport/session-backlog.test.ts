// SessionBacklog over a real socket: what waits for a client that stopped reading is counted
// to the byte, log messages and progress are shed past the bound (nothing else is), and once
// the client reads again the count of what was shed is reported once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { SessionBacklog } from '../../src/transport/session-backlog.js';
import { waitFor } from '../helpers/processes.js';

const log = {
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: 'x' },
} as const;
const progress = {
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 1, progress: 1 },
} as const;
const listChanged = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as const;
const answer = { jsonrpc: '2.0', id: 7, result: {} } as const;
const request = { jsonrpc: '2.0', id: 8, method: 'sampling/createMessage', params: {} } as const;

t.test('sheds only what a client can lose, only past the bound, and reports it once caught up', async (t) => {
  const shedding: number[] = [];
  const caughtUp: number[] = [];
  const backlog = new SessionBacklog({
    maxBytes: 256 * 1024,
    onShedding: (waiting) => shedding.push(waiting),
    onCaughtUp: (dropped) => caughtUp.push(dropped),
  });
  const { serverRes, clientRes } = await unreadStream(t, (res) => backlog.watch(res));
  t.ok(backlog.admits(log), 'a log message goes out while little waits');

  // The client reads nothing: chunks pile up past the sockets' buffers and the bound.
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let refused = 0;
  for (let i = 0; i < 400 && backlog.waitingBytes <= 256 * 1024; i++) {
    if (!serverRes.write(chunk)) refused++;
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(refused, 0, 'every write is taken (the adapter keeps pulling, so Node counts what waits)');
  t.ok(backlog.waitingBytes > 256 * 1024, `${backlog.waitingBytes} bytes wait`);

  t.notOk(backlog.admits(log), 'a log message is shed');
  t.notOk(backlog.admits(progress), 'and progress');
  t.notOk(backlog.admits(log), 'again');
  t.ok(backlog.admits(answer), 'an answer is not');
  t.ok(backlog.admits(request), 'nor a request');
  t.ok(backlog.admits(listChanged), 'nor a change of a list');
  t.equal(shedding.length, 1, 'shedding is said once');
  t.same(caughtUp, [], 'nothing reported while it waits');

  clientRes.resume();
  t.ok(await waitFor(() => caughtUp.length > 0), 'the client caught up');
  t.same(caughtUp, [3], 'once read, the three shed messages are reported');
  t.ok(backlog.admits(log), 'and log messages go out again');
  clientRes.destroy();
});

t.test("sheds a response's SSE frames the SDK writes itself, and reports before the answer", async (t) => {
  const caughtUp: number[] = [];
  let write: (chunk: string) => void = () => {};
  const backlog = new SessionBacklog({
    maxBytes: 256 * 1024,
    onShedding: () => {},
    onCaughtUp: (dropped) => {
      caughtUp.push(dropped);
      write(frame({ ...log, params: { level: 'warning', data: `dropped ${dropped}` } }));
    },
  });
  const { serverRes, clientRes } = await unreadStream(t, (res) => (write = backlog.watchFrames(res)));
  const encoder = new TextEncoder();
  const sdkWrite = (message: object) => serverRes.write(encoder.encode(frame(message)));
  // Progress of 64 KB each, as the SDK writes frames (bytes), until past the bound.
  const big = { ...progress, params: { ...progress.params, message: 'p'.repeat(64 * 1024) } };
  for (let i = 0; i < 400 && backlog.waitingBytes <= 256 * 1024; i++) {
    sdkWrite(big);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const before = backlog.waitingBytes;
  t.ok(before > 256 * 1024, `${before} bytes wait`);
  t.ok(sdkWrite(big), 'a progress frame past the bound is taken');
  sdkWrite(log);
  const cut = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"';
  serverRes.write(cut);
  // (Chunked encoding adds a few bytes to each write.)
  const added = backlog.waitingBytes - before;
  t.ok(
    added >= cut.length && added < 64 * 1024,
    `the two whole frames were dropped; what does not parse as a message was written (${added} bytes)`,
  );
  sdkWrite(listChanged);
  t.ok(backlog.waitingBytes > before + cut.length, 'a change of a list is written');
  t.same(caughtUp, [], 'nothing reported yet');
  const waiting = backlog.waitingBytes;
  sdkWrite(answer);
  t.same(caughtUp, [2], 'the answer first reports the two dropped frames');
  t.ok(
    backlog.waitingBytes > waiting + frame(answer).length,
    'then both the notice and the answer are written',
  );
  serverRes.end();

  let text = '';
  clientRes.on('data', (d) => (text += d));
  clientRes.resume();
  await new Promise((resolve) => clientRes.once('end', resolve));
  t.ok(
    text.indexOf('dropped 2') !== -1 && text.indexOf('dropped 2') < text.indexOf('"id":7'),
    'the client reads the notice before the answer',
  );
});

/** An SSE stream over a real socket, `watch`ed as it opens, whose client reads nothing until resumed. */
async function unreadStream(
  t: Test,
  watch: (res: http.ServerResponse) => void,
): Promise<{ serverRes: http.ServerResponse; clientRes: http.IncomingMessage }> {
  let serverRes: http.ServerResponse | undefined;
  const server = http.createServer((_req, res) => {
    watch(res);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    serverRes = res;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const clientRes = await new Promise<http.IncomingMessage>((resolve) =>
    http.get({ host: '127.0.0.1', port }, (res) => {
      res.pause();
      resolve(res);
    }),
  );
  await waitFor(() => serverRes !== undefined);
  return { serverRes: serverRes!, clientRes };
}

function frame(message: object): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
