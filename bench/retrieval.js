#!/usr/bin/env node
// @ts-check
// Retrieval quality of search_tools: mcpmux's ranking (src/catalog/tool-index.ts) against a
// plain BM25 baseline, over 342 real tool definitions captured from 24 npm MCP servers
// (bench/data/real-tools.json) and 100 labelled task queries (bench/data/tool-queries.json),
// reported for the tuning half and the held-out half separately. Writes
// bench/results/retrieval.json. Run with `npm run bench:retrieval`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';
import { Bm25Ranker } from '../dist/internals.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (/** @type {string} */ file) => JSON.parse(readFileSync(join(root, 'bench/data', file), 'utf8'));
/** @type {{servers: {server: string, package: string, version: string, tools: import('@modelcontextprotocol/client').Tool[]}[]}} */
const catalog = read('real-tools.json');
/** @type {{queries: {query: string, relevant: string[], split: 'tuning' | 'held_out'}[]}} */
const { queries } = read('tool-queries.json');
const DEPTH = 50;

/** @type {Map<string, {name: string, server: string, tool: any}>} */
const tools = new Map();
for (const { server, tools: list } of catalog.servers) {
  for (const tool of list)
    tools.set(`${server}__${tool.name}`, { name: `${server}__${tool.name}`, server, tool });
}

/** mcpmux's ranker, exactly as search_tools uses it. */
const mcpmux = new Bm25Ranker();
mcpmux.update(tools);

/** The baseline: MiniSearch's BM25 over the raw name and the description, with its default tokenizer and nothing else. */
const plain = new MiniSearch({ fields: ['name', 'description'], searchOptions: { combineWith: 'OR' } });
plain.addAll(
  [...tools.values()].map(({ name, tool }) => ({
    id: name,
    name: name,
    description: tool.description ?? '',
  })),
);

const rankers = {
  mcpmux: (/** @type {string} */ q) => mcpmux.rank(q, { limit: DEPTH }).map((r) => r.name),
  plain_bm25: (/** @type {string} */ q) =>
    plain
      .search(q)
      .slice(0, DEPTH)
      .map((r) => String(r.id)),
};

/** Hit@1, Recall@5, Recall@10 and MRR of one ranker over some queries. */
function evaluate(/** @type {(q: string) => string[]} */ rank, /** @type {typeof queries} */ set) {
  let hit1 = 0,
    recall5 = 0,
    recall10 = 0,
    mrr = 0;
  /** @type {string[]} */
  const missedAt10 = [];
  for (const { query, relevant } of set) {
    const ranked = rank(query);
    const found = (/** @type {number} */ k) =>
      relevant.filter((name) => ranked.slice(0, k).includes(name)).length / relevant.length;
    const first = ranked.findIndex((name) => relevant.includes(name));
    if (first === 0) hit1++;
    if (first >= 0) mrr += 1 / (first + 1);
    recall5 += found(5);
    recall10 += found(10);
    if (first < 0 || first >= 10) missedAt10.push(query);
  }
  const mean = (/** @type {number} */ x) => Math.round((1000 * x) / set.length) / 1000;
  return {
    queries: set.length,
    hit_at_1: mean(hit1),
    recall_at_5: mean(recall5),
    recall_at_10: mean(recall10),
    mrr: mean(mrr),
    none_in_top_10: missedAt10,
  };
}

const halves = {
  tuning: queries.filter((q) => q.split === 'tuning'),
  held_out: queries.filter((q) => q.split === 'held_out'),
  all: queries,
};
const results = /** @type {Record<string, any>} */ ({
  date: new Date().toISOString(),
  catalog: { servers: catalog.servers.length, tools: tools.size },
});
for (const [half, set] of Object.entries(halves)) {
  results[half] = Object.fromEntries(
    Object.entries(rankers).map(([name, rank]) => [name, evaluate(rank, set)]),
  );
}

mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/retrieval.json'), JSON.stringify(results, null, 2) + '\n');
const row = (/** @type {string} */ half, /** @type {string} */ name) => {
  const r = results[half][name];
  return `${half.padEnd(9)} ${name.padEnd(11)} n=${String(r.queries).padEnd(4)} Hit@1 ${r.hit_at_1.toFixed(3)}  R@5 ${r.recall_at_5.toFixed(3)}  R@10 ${r.recall_at_10.toFixed(3)}  MRR ${r.mrr.toFixed(3)}`;
};
process.stdout.write(
  `${tools.size} tools from ${catalog.servers.length} servers, ${queries.length} queries\n`,
);
for (const half of Object.keys(halves))
  for (const name of Object.keys(rankers)) process.stdout.write(row(half, name) + '\n');
