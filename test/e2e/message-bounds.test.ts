// --max-message-bytes on stdio, through the built mcpmux: a client that writes an endless
// line costs no more than the bound and gets served after it; a server whose answer is
// over the bound fails that one call at once (not at its timeout), and keeps working.
import { setTimeout as delay } from 'node:timers/promises';
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { serverStatus, startMcpmux, text } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, rssMb, waitFor } from '../helpers/processes.js';

t.teardown(() => killTaggedProcesses());

t.test(
  'an endless line of zero bytes from the client: dropped past the bound, logged once, and the next request is served',
  async (t) => {
    const s = await startMcpmux(['--max-message-bytes', '1048576', '--call-timeout', '20']);
    const before = rssMb(s.process.pid);
    const zeros = Buffer.alloc(1024 * 1024);
    // 64 MB without a newline, written as a client would, waiting for the pipe each time.
    for (let i = 0; i < 64; i++) {
      if (!s.process.stdin.write(zeros))
        await new Promise((resolve) => s.process.stdin.once('drain', resolve));
    }
    s.process.stdin.write('\n');
    const after = rssMb(s.process.pid);
    // Unbounded, the line cost 320-360 MB; bounded, what remains is garbage not yet collected (about 30 MB seen).
    t.ok(
      after - before < 96,
      `RSS grew by ${(after - before).toFixed(0)} MB for a 64 MB line (the bound is 1 MB)`,
    );
    t.same((await s.json('list_servers')).servers, [], 'served after the line ends');
    t.equal(
      s.stderr().match(/a message of more than 1048576 bytes from the client was dropped/g)?.length,
      1,
      'logged once',
    );
    s.process.stdin.end();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);

t.test("a server's answer over the bound fails that call at once; the server goes on", async (t) => {
  const s = await startMcpmux(['--max-message-bytes', '65536', '--call-timeout', '60']);
  await s.json('add_server', { name: 'big', ...fixture('big-result') });
  const started = Date.now();
  // The child's failure reaches the client as the JSON-RPC error it is.
  await t.rejects(s.call('big__lines', { bytes: 200_000 }), {
    code: -32700,
    message:
      /a message of more than 65536 bytes from the server was dropped \(the limit is --max-message-bytes\)/,
  });
  t.ok(Date.now() - started < 30_000, 'long before the call timeout');
  t.match(
    text(await s.call('big__lines', { bytes: 1000 })),
    /line 1: the quick brown fox/,
    'the next call works',
  );
  t.ok(
    await waitFor(() =>
      /\[big\] a message of more than 65536 bytes from the server was dropped/.test(s.stderr()),
    ),
    'logged with the server name',
  );
  s.process.stdin.end();
  await s.process.exited;
  await assertNoLeaks(t);
});

t.test(
  'a server that stops reading its input: requests past the bound are refused at once, and served again once it reads',
  async (t) => {
    const bound = 262_144;
    const s = await startMcpmux([
      '--max-message-bytes',
      String(bound),
      '--max-result-bytes',
      '0',
      '--call-timeout',
      '60',
    ]);
    await s.json('add_server', { name: 'ev', ...fixture('echo-v1') });
    const pid = (await serverStatus(s, 'ev')).pid as number;
    process.kill(pid, 'SIGSTOP');
    t.teardown(() => {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // ended
      }
    });
    // 40 calls of 50 KB each: 2 MB for a server that reads nothing.
    const message = 'x'.repeat(50_000);
    const calls = Array.from({ length: 40 }, () => s.call('ev__echo', { message }));
    // Unref: a pending 30 s timer would keep the test process alive long after the race.
    const refused = await Promise.race([calls[calls.length - 1]!, delay(30_000, undefined, { ref: false })]);
    t.ok(refused, 'the last call is answered at once, the server being stopped');
    t.equal(refused?.isError, true);
    t.match(
      text(refused!),
      /^server 'ev' is not reading its input: 0\.\d MB of requests wait for it, past the bound of 0\.3 MB \(--max-message-bytes\)(, and its input has been full for [\d.]+ s)?\. It may be hung or stopped \(list_servers shows its pings\); try again once it reads, or call reload_server \{"name":"ev"\} \[SERVER_BUSY\]$/,
    );
    const status = await serverStatus(s, 'ev');
    t.ok(
      status.unread_input_bytes >= bound && status.unread_input_bytes < bound + 51_000,
      `what waits for it stays under the bound and one message (${status.unread_input_bytes} bytes)`,
    );
    t.type(status.input_full_seconds, 'number', 'list_servers shows how long its input has been full');
    process.kill(pid, 'SIGCONT');
    const answers = await Promise.all(calls);
    const served = answers.filter((r) => !r.isError);
    t.ok(
      served.length >= 4 && served.length < 40,
      `the calls written before the bound are served (${served.length})`,
    );
    t.ok(
      served.every((r) => text(r) === message),
      'with their own answers',
    );
    t.equal(text(await s.call('ev__echo', { message: 'again' })), 'again', 'it is called as before');
    const after = await serverStatus(s, 'ev');
    t.equal(after.unread_input_bytes, undefined, 'nothing waits for it any more');
    s.process.stdin.end();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);
