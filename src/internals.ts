// What the benchmarks in bench/ measure, built into dist/internals.js (mcpmux itself is
// bundled, so its modules have no files of their own in dist/). Nothing else imports it.
export { ToolIndex } from './catalog/tool-index.js';
export { Bm25Ranker } from './catalog/bm25-ranker.js';
export { taskClauses } from './catalog/task-clauses.js';
export { SemanticRanker } from './catalog/semantic/semantic-ranker.js';
export { StaticEmbedder, missingEmbeddingTable } from './catalog/semantic/static-embedder.js';
export { toolTokens } from './catalog/token-cost.js';
export { SandboxPool } from './code/sandbox-pool.js';
export { toSandboxScript } from './code/strip-types.js';
export { createLogger } from './common/log.js';
export { EMPTY_CATALOG } from './protocol/capabilities.js';
export { CatalogRouter } from './router/catalog-router.js';
