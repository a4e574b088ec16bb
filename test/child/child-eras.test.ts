// Children of both eras: a server on the v2 line (serveStdio) is spoken to in 2026-07-28,
// a 2025 server (server-everything, the v1 fixtures) in its own era; each verdict is kept so
// a reload skips the probe. A modern child's list changes arrive on its listen stream, and
// its input_required elicitation reaches a 2025 client as an ordinary elicitation request. A
// handshake the SDK refuses is reported as such.
import t from 'tap';
import { fixture } from '../helpers/fixtures.js';
import { startHarness, textOf } from '../helpers/mux-harness.js';
import { waitFor } from '../helpers/processes.js';

t.test(
  'a modern child: spoken to in 2026-07-28, its changes heard, its elicitation relayed to a 2025 client',
  async (t) => {
    const asked: string[] = [];
    const h = await startHarness(t, {
      clientCapabilities: { elicitation: { form: {} } },
      setupClient: (client) =>
        client.setRequestHandler('elicitation/create', async (request) => {
          asked.push((request.params as { message: string }).message);
          return { action: 'accept', content: { confirm: true } };
        }),
    });
    const added = await h.callJson('add_server', { name: 'modern', ...fixture('modern-v2') });
    t.equal(added.server.protocol_version, '2026-07-28');
    t.equal(textOf(await h.call('modern__echo', { message: 'hello modern' })), 'hello modern');

    const before = h.listChanged();
    t.equal(textOf(await h.call('modern__add_tool', { name: 'late' })), 'added late');
    t.ok(
      await waitFor(async () => (await h.toolNames()).includes('modern__late')),
      "the child's change came on its listen stream",
    );
    t.ok(await waitFor(() => h.listChanged() > before), 'and the client heard list_changed');

    t.equal(textOf(await h.call('modern__confirm', { action: 'deploy' })), 'deploy: accept {"confirm":true}');
    t.same(asked, ['Confirm deploy?'], 'the 2025 client answered the modern child once');

    const legacy = await h.callJson('add_server', { name: 'old', ...fixture('echo-v1') });
    t.equal(legacy.server.protocol_version, '2025-11-25', 'a 2025 child stays in its era');
    const reloaded = await h.callJson('reload_server', { name: 'modern' });
    t.equal(reloaded.server.protocol_version, '2026-07-28', 'a reload keeps the era');
    t.notOk(
      h.logs.some((l) => l.includes('server/discover')),
      'no probe trouble logged',
    );
    await h.close();
  },
);

t.test('"era" chooses: legacy goes straight to initialize; modern refuses a 2025 server', async (t) => {
  const h = await startHarness(t);
  const asLegacy = await h.callJson('add_server', { name: 'v2old', ...fixture('modern-v2'), era: 'legacy' });
  t.equal(asLegacy.server.protocol_version, '2025-11-25');
  const refused = await h.call('add_server', { name: 'strict', ...fixture('echo-v1'), era: 'modern' });
  t.ok(refused.isError);
  t.match(textOf(refused), /2026-07-28/);
  t.same(
    (await h.callJson('list_servers')).servers.map((s: { name: string }) => s.name),
    ['v2old'],
    'a failed add leaves nothing',
  );
  const bad = await h.call('add_server', { name: 'x', ...fixture('echo-v1'), era: 'future' });
  t.match(textOf(bad), /era must be auto, legacy or modern/);
  await h.close();
});

t.test(
  'a live server whose handshake the SDK refuses is reported for that, not for the exit the refusal causes',
  async (t) => {
    const h = await startHarness(t);
    const wrong = await h.call('add_server', { name: 'wrong', ...fixture('wrong-version') });
    t.ok(wrong.isError);
    t.equal(
      textOf(wrong),
      "server 'wrong' failed the MCP handshake: it answered initialize with protocol version 1999-01-01, which mcpmux does not speak (it speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07, and 2026-07-28 through server/discover) [PROTOCOL_MISMATCH]",
    );
    const refusing = fixture('wrong-version');
    const refused = await h.call('add_server', {
      name: 'refusing',
      command: refusing.command,
      args: [...refusing.args, 'error'],
    });
    t.equal(
      textOf(refused),
      "server 'refusing' failed the MCP handshake: Unsupported protocol version; this server speaks 1999-01-01 [PROTOCOL_MISMATCH]",
    );
    t.same((await h.callJson('list_servers')).servers, [], 'nothing is left of either');
    await h.close();
  },
);

t.test(
  'a server that closes its end before the first message is written and exits after: reported by its exit',
  async (t) => {
    const h = await startHarness(t);
    // A shell closes its ends within a few ms of its spawn, before mcpmux's first write.
    const added = await h.call('add_server', {
      name: 'closing',
      command: '/bin/sh',
      args: ['-c', 'exec 0<&- 1>&-; echo "missing API key DEMO_KEY" >&2; sleep 0.1; exit 3'],
    });
    t.ok(added.isError);
    // Its exit is usually seen within the drain window; on a loaded machine it may not be, and
    // the closed connection is reported. Either way: its stderr, and no refused handshake.
    t.match(
      textOf(added),
      /^server 'closing' (exited \(exit 3\) before it finished the MCP handshake|failed during start-up: Connection closed)[\s\S]*missing API key DEMO_KEY/,
      'its exit (or its closed connection) and stderr, not a failed handshake',
    );
    t.notMatch(textOf(added), /PROTOCOL_MISMATCH|stream closed|failed the MCP handshake/);
    await h.close();
  },
);

t.test(
  'a server that exits on start for a reason of its own is started once, not again with initialize',
  async (t) => {
    const h = await startHarness(t);
    const spawns = (name: string) => h.logs.filter((l) => l.includes(`spawn server=${name} `)).length;
    const failed = await h.call('add_server', { name: 'keyless', ...fixture('exit-on-start') });
    t.ok(failed.isError);
    t.match(textOf(failed), /missing API key DEMO_KEY/);
    t.equal(spawns('keyless'), 1, 'one process, one npm lookup for a misspelt package');
    t.notOk(h.logs.some((l) => l.includes('[keyless] exited while asked server/discover')));
    // One that exits on the probe without a word may be refusing it: it is tried with initialize.
    const quiet = await h.callJson('add_server', {
      name: 'quiet',
      ...fixture('exit-on-discover'),
      env: { EXIT_QUIETLY: '1' },
    });
    t.equal(quiet.server.status, 'running');
    t.equal(spawns('quiet'), 2);
    await h.close();
  },
);

t.test('a 2025 server that exits on the era probe is started again at once, with initialize', async (t) => {
  const h = await startHarness(t);
  const added = await h.callJson('add_server', { name: 'touchy', ...fixture('exit-on-discover') });
  t.equal(added.server.status, 'running', 'add_server succeeds on its own');
  t.equal(added.server.protocol_version, '2025-11-25');
  t.equal(textOf(await h.call('touchy__echo', { message: 'still here' })), 'still here');
  t.ok(
    h.logs.some((l) => l.includes('exited while asked server/discover') && l.includes('starting it again')),
    'the retry is logged',
  );
  t.ok(await waitFor(() => h.listChanged() === 1), 'the client hears of the new tools once');
  const reloaded = await h.callJson('reload_server', { name: 'touchy' });
  t.equal(reloaded.server.protocol_version, '2025-11-25', 'a reload goes straight to initialize');
  await h.close();
});
