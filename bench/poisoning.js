#!/usr/bin/env node
// @ts-check
// The tool-poisoning scanner (src/trust/poison-scan.ts) measured:
// - recall per attack class over the written attacks of bench/data/poisoning.json, for each of
//   its two batches (the patterns were set on the first; the second was written after) and
//   together (an attack
//   is caught when the scanner raises any flag on it; also reported: caught by a flag of its
//   own kind, and by a hard flag), each scanned beside four other servers (mail, bank, github,
//   filesystem) whose tools shadowing may name;
// - false positives over every real tool captured in bench/data (real-tools, mcp-bench,
//   msc-bench: 2,974 tools of 543 servers), each scanned beside the nine servers next to it in
//   its dataset (a set as a person runs), and beside every other server of its dataset (the
//   harshest set: hundreds of servers' tool names to be named by chance); and over the
//   corpus's hard negatives (benign texts written to look like attacks);
// - the written attacks with no tell (plain-language), caught or not, for the record;
// - the time to scan and pin a 1,000-tool list (median of 20).
// Targets: recall ≥ 0.95 overall and ≥ 0.9 per class; false positives ≤ 1% of real tools.
// Writes bench/results/poisoning.json. Run with `npm run bench:poisoning`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HARD_KINDS, pinOf, scanItem } from '../dist/internals.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (/** @type {string} */ file) => JSON.parse(readFileSync(join(root, 'bench/data', file), 'utf8'));
const corpus = read('poisoning.json');
/** The servers every entry is scanned next to (mail, bank, github, filesystem), as the corpus names them. */
const BESIDE = corpus.beside;

/** @param {any} entry */
function scanEntry(entry) {
  const others = new Map(Object.entries({ ...BESIDE, ...entry.context }));
  return scanItem(entry, { server: 'suspect', own: new Set([entry.name]), others });
}

// Recall, per class: over the attacks the patterns were tuned on, and over those written after.
/** @typedef {{n: number, any: number, own: number, hard: number, missed: string[]}} ClassRecall */
/** @param {any[]} entries */
function recallOf(entries) {
  /** @type {Record<string, ClassRecall>} */
  const classes = {};
  for (const entry of entries) {
    const flags = scanEntry(entry);
    const c = (classes[entry.class] ??= { n: 0, any: 0, own: 0, hard: 0, missed: [] });
    c.n++;
    if (flags.length > 0) c.any++;
    else c.missed.push(entry.id);
    if (flags.some((f) => f.kind === entry.class)) c.own++;
    if (flags.some((f) => HARD_KINDS.has(f.kind))) c.hard++;
  }
  const counted = Object.entries(classes).filter(([name]) => name !== 'plain-language');
  const caught = counted.reduce((sum, [, c]) => sum + c.any, 0);
  const total = counted.reduce((sum, [, c]) => sum + c.n, 0);
  return { classes, caught, total };
}
const attacksOf = (/** @type {number} */ batch) =>
  corpus.entries.filter((/** @type {any} */ e) => e.label === 'attack' && (e.batch ?? 1) === batch);
const tuned = recallOf(attacksOf(1));
const second = recallOf(attacksOf(2));
const all = recallOf(corpus.entries.filter((/** @type {any} */ e) => e.label === 'attack'));
const { classes, caught, total: attacks } = all;

// False positives over real tools.
/** @param {number} window servers per set (Infinity: the whole dataset) */
function realFalsePositives(window) {
  let tools = 0;
  /** @type {{dataset: string, server: string, tool: string, flags: string[]}[]} */
  const flagged = [];
  for (const dataset of ['real-tools', 'mcp-bench', 'msc-bench']) {
    const servers = read(`${dataset}.json`).servers;
    servers.forEach((/** @type {any} */ server, /** @type {number} */ i) => {
      const start = Number.isFinite(window) ? Math.floor(i / window) * window : 0;
      const set = Number.isFinite(window) ? servers.slice(start, start + window) : servers;
      const others = new Map(
        set
          .filter((/** @type {any} */ s) => s !== server)
          .map((/** @type {any} */ s) => [s.server, (s.tools ?? []).map((/** @type {any} */ t) => t.name)]),
      );
      const own = new Set((server.tools ?? []).map((/** @type {any} */ t) => t.name));
      for (const tool of server.tools ?? []) {
        tools++;
        const flags = scanItem(tool, { server: server.server, own, others });
        if (flags.length > 0)
          flagged.push({
            dataset,
            server: server.server,
            tool: tool.name,
            flags: flags.map((f) => `${f.kind} ${f.where}: ${f.text}`),
          });
      }
    });
  }
  return { tools, flagged: flagged.length, rate: flagged.length / tools, examples: flagged.slice(0, 20) };
}
const beside9 = realFalsePositives(10);
const besideAll = realFalsePositives(Infinity);
const hardNegatives = corpus.entries.filter((/** @type {any} */ e) => e.label === 'benign');
const hardFlagged = hardNegatives
  .map((/** @type {any} */ e) => ({
    id: e.id,
    name: e.name,
    flags: scanEntry(e).map((f) => `${f.kind}: ${f.text}`),
  }))
  .filter((/** @type {any} */ e) => e.flags.length > 0);

// Time: scan and pin 1,000 real tools, beside their datasets' neighbours.
const thousand = read('msc-bench.json')
  .servers.flatMap((/** @type {any} */ s) => s.tools ?? [])
  .slice(0, 1000);
const timeContext = { server: 'x', own: new Set(), others: new Map(Object.entries(BESIDE)) };
const times = [];
for (let run = 0; run < 20; run++) {
  const started = performance.now();
  for (const tool of thousand) {
    scanItem(tool, timeContext);
    pinOf(tool);
  }
  times.push(performance.now() - started);
}
times.sort((x, y) => x - y);
const median = times[Math.floor(times.length / 2)];

const round = (/** @type {number} */ x) => Math.round(x * 1000) / 1000;
const results = {
  measured: new Date().toISOString().slice(0, 10),
  node: process.version,
  corpus: {
    attacks,
    classes: Object.fromEntries(Object.entries(classes).map(([name, c]) => [name, c.n])),
    hard_negatives: hardNegatives.length,
    real_tools: beside9.tools,
  },
  recall: {
    batch_1: round(tuned.caught / tuned.total),
    batch_2: round(second.caught / second.total),
    overall: round(caught / attacks),
    per_class: Object.fromEntries(
      Object.entries(classes).map(([name, c]) => [
        name,
        {
          recall: round(c.any / c.n),
          own_kind: round(c.own / c.n),
          hard: round(c.hard / c.n),
          missed: c.missed,
        },
      ]),
    ),
  },
  false_positives: {
    real_tools_beside_9: { rate: round(beside9.rate), flagged: beside9.flagged, examples: beside9.examples },
    real_tools_beside_all: {
      rate: round(besideAll.rate),
      flagged: besideAll.flagged,
      examples: besideAll.examples,
    },
    hard_negatives: { rate: round(hardFlagged.length / hardNegatives.length), flagged: hardFlagged },
  },
  scan_and_pin_1000_tools_ms: Math.round(median * 10) / 10,
};

const pct = (/** @type {number} */ x) => `${(x * 100).toFixed(1)}%`;
console.log(`recall over ${attacks} written attacks: ${pct(results.recall.overall)} (target ≥ 95%)`);
console.log(
  `  batch 1 (the patterns were set on it): ${tuned.caught}/${tuned.total} ${pct(tuned.caught / tuned.total)}; batch 2 (written after; 37/40 at its first run): ${second.caught}/${second.total} ${pct(second.caught / second.total)}`,
);
for (const [name, c] of Object.entries(classes))
  console.log(
    `  ${name.padEnd(16)} ${String(c.any).padStart(3)}/${String(c.n).padEnd(3)} ${pct(c.any / c.n).padStart(6)}` +
      `  own kind ${pct(c.own / c.n).padStart(6)}  hard ${pct(c.hard / c.n).padStart(6)}` +
      (name === 'plain-language' ? '  (no tell: not counted)' : '') +
      (c.missed.length > 0 ? `  missed ${c.missed.join(' ')}` : ''),
  );
console.log(
  `false positives over ${beside9.tools} real tools: ${pct(beside9.rate)} beside 9 servers, ${pct(besideAll.rate)} beside their whole dataset (target ≤ 1%)`,
);
for (const e of besideAll.examples)
  console.log(`  ${e.dataset} ${e.server}/${e.tool}: ${e.flags.join('; ')}`);
console.log(`hard negatives flagged: ${hardFlagged.length} of ${hardNegatives.length}`);
for (const e of hardFlagged) console.log(`  ${e.id} ${e.name}: ${e.flags.join('; ')}`);
console.log(
  `scan and pin 1,000 tools: ${results.scan_and_pin_1000_tools_ms} ms (median of 20; target < 50 ms)`,
);
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/poisoning.json'), JSON.stringify(results, null, 2) + '\n');
