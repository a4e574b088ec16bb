// What the benchmarks in bench/ measure, built into dist/internals.js (mcpmux itself is
// bundled, so its modules have no files of their own in dist/). Nothing else imports it.
export { ToolIndex } from './search/tool-index.js';
export { Bm25Ranker } from './search/bm25-ranker.js';
export { taskClauses } from './search/task-clauses.js';
export { SemanticRanker } from './search/semantic/semantic-ranker.js';
export { StaticEmbedder, missingEmbeddingTable } from './search/semantic/static-embedder.js';
export { toolTokens } from './search/token-cost.js';
export { SandboxPool } from './code/sandbox-pool.js';
export { toSandboxScript } from './code/strip-types.js';
export { createLogger } from './common/log.js';
export { EMPTY_CATALOG } from './protocol/capabilities.js';
export { CatalogRouter } from './router/catalog-router.js';
export { scanItem, HARD_KINDS } from './trust/poison-scan.js';
export { pinOf } from './trust/pin.js';
