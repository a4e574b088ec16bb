// The ranker search_tools uses, from --search-ranker; loaded when first needed.
import type { Logger } from '../../common/log.js';
import { bm25Ranker, type RankerSource } from '../tool-index.js';
import { missingEmbeddingTable } from './static-embedder.js';

/** How search_tools ranks a whole task (--search-ranker). */
export type SearchRankerChoice = 'auto' | 'bm25' | 'semantic';

/** BM25 fused with the distilled embeddings when this build has them (main.ts refused `semantic` without). */
export function toolRanker(choice: SearchRankerChoice, logger: Logger): RankerSource {
  if (choice === 'bm25') return bm25Ranker;
  const missing = missingEmbeddingTable();
  if (missing !== undefined) {
    logger.debug(`tool search ranks with BM25 alone: no embedding table at ${missing}`);
    return bm25Ranker;
  }
  return async () => {
    const [{ SemanticRanker }, { StaticEmbedder }] = await Promise.all([
      import('./semantic-ranker.js'),
      import('./static-embedder.js'),
    ]);
    return new SemanticRanker({ embedder: new StaticEmbedder(), logger });
  };
}
