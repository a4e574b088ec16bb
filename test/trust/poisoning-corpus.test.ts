// The scanner held to its targets over bench/data (what `npm run bench:poisoning` reports in
// full): every written attack with a tell caught, recall at least 0.9 in each class, no
// hard negative flagged, and at most 1% of 2,974 real tools flagged beside the servers next
// to them. A change of a pattern that loses an attack or flags honest text fails here.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { scanItem } from '../../src/trust/poison-scan.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const data = (file: string) => JSON.parse(readFileSync(join(ROOT, 'bench', 'data', file), 'utf8'));
const corpus = data('poisoning.json');
/** The servers every entry is scanned next to (mail, bank, github, filesystem), as the corpus names them. */
const BESIDE = corpus.beside;
const scan = (entry: any) =>
  scanItem(entry, {
    server: 'suspect',
    own: new Set([entry.name]),
    others: new Map(Object.entries({ ...BESIDE, ...entry.context })),
  });

t.test('written attacks: recall ≥ 0.95 overall and ≥ 0.9 per class; no hard negative flagged', async (t) => {
  const byClass = new Map<string, { n: number; caught: number }>();
  for (const entry of corpus.entries.filter(
    (e: any) => e.label === 'attack' && e.class !== 'plain-language',
  )) {
    const c = byClass.get(entry.class) ?? { n: 0, caught: 0 };
    c.n++;
    if (scan(entry).length > 0) c.caught++;
    byClass.set(entry.class, c);
  }
  t.equal(byClass.size, 8, 'eight classes');
  const all = [...byClass.values()].reduce((a, c) => ({ n: a.n + c.n, caught: a.caught + c.caught }), {
    n: 0,
    caught: 0,
  });
  t.ok(all.caught / all.n >= 0.95, `overall ${all.caught}/${all.n}`);
  for (const [name, c] of byClass) t.ok(c.caught / c.n >= 0.9, `${name}: ${c.caught}/${c.n}`);
  const flagged = corpus.entries.filter((e: any) => e.label === 'benign' && scan(e).length > 0);
  t.same(
    flagged.map((e: any) => e.id),
    [],
    'hard negatives',
  );
});

t.test('real tools: at most 1% flagged, each beside the nine servers next to it', async (t) => {
  let tools = 0;
  const flagged: string[] = [];
  for (const dataset of ['real-tools.json', 'mcp-bench.json', 'msc-bench.json']) {
    const servers = data(dataset).servers as { server: string; tools?: any[] }[];
    servers.forEach((server, i) => {
      const set = servers.slice(Math.floor(i / 10) * 10, Math.floor(i / 10) * 10 + 10);
      const others = new Map(
        set.filter((s) => s !== server).map((s) => [s.server, (s.tools ?? []).map((x) => x.name)]),
      );
      const own = new Set((server.tools ?? []).map((x) => x.name));
      for (const tool of server.tools ?? []) {
        tools++;
        if (scanItem(tool, { server: server.server, own, others }).length > 0)
          flagged.push(`${server.server}/${tool.name}`);
      }
    });
  }
  t.ok(tools > 2900, `${tools} real tools`);
  t.ok(flagged.length / tools <= 0.01, `${flagged.length} flagged: ${flagged.join(', ')}`);
});
