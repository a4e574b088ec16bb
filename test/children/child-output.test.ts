// What a server prints on stdout that is no MCP message: noise skipped and logged, a flood that
// keeps its start-up timeout, a handshake that can never finish, and a start that times out
// saying what came out instead; stderr is forwarded under the server's name.
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { waitFor } from '../helpers/processes.js';

t.test('noisy stdout lines are skipped and logged, calls still work', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'noisy', ...fixture('noisy-stdout') });
  t.equal(textOf(await h.call('noisy__echo', { message: 'clean' })), 'clean');
  t.ok(
    h.logs.some((l) => l.includes('[noisy] skipped a non-JSON line on stdout: noisy-stdout: starting up')),
  );
  t.ok(h.logs.some((l) => l.includes('noisy-stdout: handling echo of clean')));
  await h.close();
});

t.test(
  'a server flooding its stdout with text: a few lines logged, its start-up timeout still kept',
  async (t) => {
    const h = await startHarness(t);
    // As `yes` does: lines of text, as fast as the pipe takes them, and never a JSON-RPC message.
    const flood =
      "const b = Buffer.alloc(65536, 'y\\n'); const w = () => { while (process.stdout.write(b)); process.stdout.once('drain', w); }; w();";
    const began = performance.now();
    const failed = await h.call('add_server', {
      name: 'yes',
      command: process.execPath,
      args: ['-e', flood],
      startup_timeout_seconds: 2,
    });
    t.match(textOf(failed), /did not finish start-up .* within 2 s/);
    const logged = h.logs.filter((l) => l.includes('[yes] skipped'));
    // At most 10 lines and one count per 10 s window (one window, unless a loaded machine took longer to end it).
    const windows = Math.ceil((performance.now() - began) / 10_000);
    t.ok(
      logged.length >= 1 && logged.length <= 11 * windows,
      `${logged.length} lines logged about it in ${windows} window(s) of 10 s`,
    );
    await h.close();
  },
);

// Without the diagnosis each start waited its whole timeout (60 s here) and said only that.
for (const { fixtureName, says } of [
  {
    fixtureName: 'pretty-prints' as const,
    says: "writes each message across several lines of stdout (pretty-printed JSON?): MCP's stdio transport takes one JSON-RPC message a line",
  },
  {
    fixtureName: 'no-newline' as const,
    says: "wrote a message without the newline that ends it: MCP's stdio transport ends each JSON-RPC message with one",
  },
  {
    fixtureName: 'no-jsonrpc' as const,
    says: 'answers without "jsonrpc": "2.0" in its messages, which JSON-RPC 2.0, and so MCP, requires of each: {"id":',
  },
])
  t.test(
    `a server that can never finish its handshake (${fixtureName}) fails to start, saying why`,
    async (t) => {
      const h = await startHarness(t);
      const failed = await h.call('add_server', {
        name: 'hand',
        ...fixture(fixtureName),
        startup_timeout_seconds: 60,
      });
      t.ok(failed.isError);
      t.match(textOf(failed), `server 'hand' ${says}`);
      t.match(textOf(failed), /STARTUP_FAILED/);
      await h.close();
    },
  );

t.test(
  'pretty-printed JSON on stdout that is no message is noise: the server starts and works',
  async (t) => {
    const h = await startHarness(t);
    await h.callJson('add_server', {
      name: 'dump',
      ...fixture('pretty-prints'),
      env: { PRETTY_PRINTS: 'dump' },
    });
    t.equal(textOf(await h.call('dump__hello')), 'hello');
    await h.close();
  },
);

t.test('a start that times out with nothing on stdout suggests buffered output', async (t) => {
  const h = await startHarness(t);
  // Its answers come only as it exits, when the failed start closes its stdin: too late.
  const failed = await h.call('add_server', {
    name: 'held',
    ...fixture('buffers-output'),
    startup_timeout_seconds: 1,
  });
  t.match(
    textOf(failed),
    /within 1 s \(it wrote nothing on stderr\)\nit wrote nothing on stdout either: still starting .* or its output is buffered \(Python: print\(…, flush=True\), or run it with python -u\)/,
  );
  await h.close();
});

t.test('a start that times out says what the server printed on stdout instead of messages', async (t) => {
  const h = await startHarness(t);
  const failed = await h.call('add_server', {
    name: 'chatty',
    command: process.execPath,
    args: [
      '-e',
      "console.log('listening on port 3000'); console.log('ready'); process.stdout.write('waiting'); setInterval(() => {}, 1000)",
    ],
    startup_timeout_seconds: 1,
  });
  t.match(
    textOf(failed),
    /within 1 s \(it wrote nothing on stderr\)\non stdout it wrote 2 lines that are not JSON-RPC messages, the first: listening on port 3000\nits stdout ends with text no newline has ended: waiting/,
  );
  await h.close();
});

t.test('child stderr is forwarded with the server name as prefix', async (t) => {
  const h = await startHarness(t);
  await h.callJson('add_server', { name: 'boom', ...fixture('crash-on-call') });
  await h.call('boom__crash');
  t.ok(await waitFor(() => h.logs.some((l) => l.includes('[boom] crash-on-call: exiting on purpose'))));
  await h.close();
});
