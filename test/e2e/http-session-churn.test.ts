// 1,000 HTTP sessions opened and abandoned against the built mcpmux: each expires, nothing it
// held stays live on the heap, and RSS comes back once V8 gives the freed pages back.
import t, { type Test } from 'tap';
import { startMcpmuxHttp, type HttpMcpmux } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, rssMb, waitFor } from '../helpers/processes.js';
import { callTool, inSession, openSession, post } from '../helpers/raw-http.js';

t.teardown(() => killTaggedProcesses());
// The file's budget, past .taprc's: the test may wait up to 180 s for V8 to give memory back,
// beside the whole suite.
t.setTimeout(450_000);

async function stop(t: Test, served: HttpMcpmux): Promise<void> {
  await served.stop();
  await assertNoLeaks(t);
}

t.test(
  '1,000 sessions opened and abandoned: all expire, nothing they held stays live, and RSS gives back all but 10 MB or a fifth of the burst',
  { timeout: 330_000 },
  async (t) => {
    const served = await startMcpmuxHttp(['--session-idle-timeout', '1', '--log-level', 'debug'], {
      bare: true,
    });
    const expired = () => served.stderr().match(/expired after/g)?.length ?? 0;
    // What the heap holds after each idle collection (a full GC once quiet): the live data alone.
    const liveAfter = (from: number) =>
      [
        ...served
          .stderr()
          .slice(from)
          .matchAll(/idle collection: ([\d.]+) MB live/g),
      ].map((m) => Number(m[1]));
    t.ok(await waitFor(() => liveAfter(0).length > 0, 20_000), 'collected once started');
    const liveAtStart = liveAfter(0)[0]!;
    const { url, process: proc } = served;
    const start = rssMb(proc.pid);
    let peak = start;
    // Ten waves of 100 (the default cap): each wave is abandoned and expires before the next.
    for (let wave = 0; wave < 10; wave++) {
      const ids = await Promise.all(Array.from({ length: 100 }, () => openSession(url)));
      await Promise.all(ids.map((id, i) => post(url, callTool('list_servers', {}, i + 10), inSession(id))));
      peak = Math.max(peak, rssMb(proc.pid));
      t.ok(await waitFor(() => expired() === 100 * (wave + 1), 10_000), `wave ${wave} expired`);
    }
    // The collection a second after the last session ended: a leak would still be live there.
    const lastEnd = served.stderr().lastIndexOf('expired after');
    t.ok(await waitFor(() => liveAfter(lastEnd).length > 0, 20_000), 'collected once the sessions ended');
    const live = liveAfter(lastEnd)[0]!;
    // Start-up leaves less live than the first sessions build once (~4 MB measured); a session
    // that stayed would leave its server and transport, 8 MB for 1,000 sessions at 8 KB each.
    t.ok(live <= liveAtStart + 8, `${live} MB live after 1,000 sessions, ${liveAtStart} MB after start-up`);
    // RSS comes down once V8's memory reducer gives the freed pages back: ~25 s on a quiet
    // machine (measured), more than 90 s once in a CI run beside the whole suite. Node 20 and
    // 22 give back all but a few MB; Node 24's V8 keeps more of a burst's pages (measured
    // 2026-11-29 after a burst of 80–85 MB: 5–16 MB kept, with the live heap as on 22), so
    // the bound is 10 MB or a fifth of the burst, whichever is more.
    const bound = () => start + Math.max(10, (peak - start) / 5);
    const back = await waitFor(() => rssMb(proc.pid) <= bound(), 180_000, 500);
    t.ok(
      back,
      `RSS ${rssMb(proc.pid).toFixed(0)} MB, started at ${start.toFixed(0)} MB (peak ${peak.toFixed(0)} MB, bound ${bound().toFixed(0)} MB)`,
    );
    t.notMatch(served.stderr(), /refused a new HTTP session/, 'expired sessions freed their places');
    await stop(t, served);
  },
);
